#pragma once
// The work one operator call does, from what the trace recorded about it (record_shapes):
// its inputs' sizes and dtypes, and the scalars torch writes as "Concrete Inputs". FLOPs and
// the bytes it must move at the least (each input read once, each output written once), per
// call. The formulas and their sources: docs/roofline.md. An op in the catalogue whose
// arguments do not tell (no shapes, no stride) says why rather than guessing.
#include "core/trace/event_args.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope::roofline {

// The precision a call computes in, which picks its roof.
enum class Precision : uint8_t
{
    Unknown,
    Fp64,
    Fp32,
    Fp16,
    Bf16,
    Fp8,
    Int8,
    Int
};
const char* precisionName(
    Precision precision);  // "fp64", "fp32", "fp16", "bf16", "fp8", "int8", "int", "unknown"

// A dtype as torch writes it in "Input type" ("float", "c10::BFloat16", "c10::Half",
// "c10::Float8_e4m3fn", "long int", "unsigned char", "bool", ...): its precision and its
// size in bytes (0 when not a tensor dtype: "Scalar", "TensorList", "GenericList", "").
struct DType
{
    Precision precision = Precision::Unknown;
    int bytes = 0;
};
DType dtypeOf(std::string_view inputType);

// One argument of a call, as recorded.
struct OpInput
{
    std::vector<int64_t> dims;  // a tensor's sizes ([] for a 0-dim tensor or a non-tensor)
    std::vector<std::vector<int64_t>> list;  // a TensorList's tensors' sizes
    std::string type;                        // "Input type" entry, as written
    std::string concrete;  // "Concrete Inputs" entry ("[2, 2]", "True", "0.1", ""), as written
    // "Input Strides" entry, in elements, one per dim of a tensor; empty when not recorded
    // (torch ~2.1 and later record it). A stride of 0 is a broadcast dimension: its
    // elements share one address.
    std::vector<int64_t> strides;
};

// The inputs of a call from its args ("Input Dims", "Input type", "Concrete Inputs",
// "Input Strides"); empty when it recorded no shapes.
std::vector<OpInput> opInputs(std::span<const trace::Arg> args);
// The same from "Input Dims" as the trace model keeps it ("[[4, 8], [8, 16]]"), types and
// concrete inputs left empty.
std::vector<OpInput> opInputsFromDims(std::string_view inputDims);

enum class OpKind : uint8_t
{
    Matmul,
    Convolution,
    Attention,
    Elementwise,
    Normalization,
    Softmax,
    Reduction,
    Copy
};
const char* opKindName(OpKind kind);  // "matmul", "convolution", "attention", "elementwise", ...
// Matmul, convolution and attention are the matrix-unit kinds: their roof is the matrix
// units' for their precision; the rest are costed as streaming (bytes) ops.
bool isMatrixKind(OpKind kind);

struct OpWork
{
    OpKind kind = OpKind::Elementwise;
    double flops = 0;  // per call (a multiply-add is 2 FLOPs)
    double bytes = 0;  // per call, at the least: inputs read once, outputs written once
    Precision precision =
        Precision::Unknown;  // matrix kinds: the operands'; others: the widest tensor's
    // Why the call has no figures (the op is in the catalogue but its recorded arguments
    // do not determine them), e.g. "stride not recorded (no Concrete Inputs)"; empty when
    // flops and bytes hold.
    std::string unmodelled;
    bool modelled() const { return unmodelled.empty(); }
};

// Is the op in the catalogue (whatever its arguments)? The roofline charges a call's device
// time to the outermost catalogued op around it, so that aten::linear > aten::addmm is one call.
// Besides aten and vendor ops, the catalogue holds the launch ops torch.compile's Triton
// kernels are recorded under (named after the kernel: "triton_poi_fused_add_cos_sin_0").
bool inCatalogue(std::string_view opName);

// The work of one call; nullopt when the op is not in the catalogue.
std::optional<OpWork> workOf(std::string_view opName, std::span<const OpInput> inputs);

}  // namespace kinetoscope::roofline
