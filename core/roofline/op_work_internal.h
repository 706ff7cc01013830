#pragma once
// Internal to core/roofline: what the files behind op_work.h share, and nothing outside
// core/roofline includes. The parsers of recorded text (op_inputs.cpp); a call's recorded
// arguments and the shape and figure helpers every model uses (op_work_shapes.cpp); and each
// op family's argument layouts and models (op_work_<family>.cpp), which the catalogue
// (op_work.cpp) maps op names onto.
#include "core/roofline/op_work.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope::roofline::detail {

// ---------------------------------------------------------------------------------------
// Recorded text (op_inputs.cpp)
// ---------------------------------------------------------------------------------------

std::string_view trim(std::string_view text);
std::optional<int64_t> parseInt(std::string_view text);
std::optional<bool> parseBool(std::string_view text);
// "[2, 2]" or "3" (torch writes an int argument bare and an int list in brackets).
std::optional<std::vector<int64_t>> parseIntList(std::string_view text);
// "[True, True, False]".
std::optional<std::vector<bool>> parseBoolList(std::string_view text);
// A c10::ScalarType as torch records a dtype argument (its enum value, e.g. "15").
std::optional<DType> dtypeOfCode(int64_t code);

// ---------------------------------------------------------------------------------------
// Shapes and figures (op_work_shapes.cpp)
// ---------------------------------------------------------------------------------------

using Dims = std::vector<int64_t>;

inline double real(int64_t value)
{
    return static_cast<double>(value);
}

// Elements of a tensor of these sizes (1 for a 0-dim tensor). Sizes are non-negative here.
double product(std::span<const int64_t> dims);

bool isFloat(Precision precision);

// Orders dtypes as torch's type promotion does, roughly: floating beats integer, then
// the wider wins.
int rankOf(DType dtype);

// A recorded tensor argument.
struct Tensor
{
    std::span<const int64_t> dims;
    DType dtype;

    size_t rank() const { return dims.size(); }
    // Size of dimension i, counted from the end when negative. i must be in range.
    int64_t size(ptrdiff_t i) const
    {
        const ptrdiff_t index = i < 0 ? static_cast<ptrdiff_t>(dims.size()) + i : i;
        return dims[static_cast<size_t>(index)];
    }
    double numel() const { return product(dims); }
    double bytes() const { return numel() * dtype.bytes; }
};

inline constexpr DType kInt64{Precision::Int, 8};
inline constexpr DType kBool{Precision::Int, 1};
inline constexpr DType kFloat32{Precision::Fp32, 4};
inline constexpr DType kBFloat16{Precision::Bf16, 2};

// Is the argument recorded with a value, recorded as None, or not recorded at all?
enum class Recorded : uint8_t
{
    Value,
    None,
    Missing
};

// The recorded inputs of one call, with bounds-checked accessors.
class Call
{
public:
    explicit Call(std::span<const OpInput> inputs);

    size_t size() const { return inputs_.size(); }
    const OpInput* at(size_t i) const { return i < inputs_.size() ? &inputs_[i] : nullptr; }

    // A tensor argument with its dtype; nullopt for a non-tensor, a TensorList, None, or a
    // tensor whose dtype is not recorded.
    std::optional<Tensor> tensor(size_t i) const;
    std::optional<Tensor> tensor(int8_t i) const;

    std::string_view concrete(size_t i) const;
    // Whether the call has any "Concrete Inputs" at all (torch ~2.1 and later).
    bool concreteRecorded() const { return concreteRecorded_; }
    // In a call with Concrete Inputs, None is an empty entry of an empty type. Without
    // them nothing tells None apart: older torch also gives int lists an empty type.
    Recorded recorded(int8_t i) const;
    std::optional<std::vector<int64_t>> ints(int8_t i) const;
    std::optional<int64_t> integer(int8_t i) const;
    std::optional<bool> flag(int8_t i) const;
    std::optional<std::vector<bool>> flags(int8_t i) const;
    // A dtype argument (a ScalarType's number).
    std::optional<DType> dtypeArg(int8_t i) const;

    // Bytes of every tensor argument, each read once (TensorLists excluded).
    double readAllTensors() const;
    // The precision of the widest tensor argument: floating point before integer.
    Precision widestPrecision() const;

private:
    std::span<const OpInput> inputs_;
    bool concreteRecorded_ = false;
};

// A call the catalogue knows but cannot cost, and why.
OpWork unmodelled(OpKind kind, std::string reason);
// A call's figures, or unmodelled when they are beyond any real GPU's reach (or not finite).
OpWork figures(OpKind kind, double flops, double bytes, Precision precision);
// unmodelled with "<what> not recorded".
OpWork notRecorded(OpKind kind, std::string_view what);

// The broadcast of several shapes (numpy rules), or nullopt when they do not broadcast.
std::optional<Dims> broadcast(std::span<const std::span<const int64_t>> shapes);
std::optional<Dims> broadcast2(std::span<const int64_t> a, std::span<const int64_t> b);

// A per-spatial-dimension list ("[2, 2]", or one value for all dimensions).
std::optional<std::vector<double>> spatialList(const Call& call, int8_t index, size_t spatial);
bool allAtLeast(const std::vector<double>& values, double least);

// ---------------------------------------------------------------------------------------
// Matrix multiplications (op_work_matmul.cpp)
// ---------------------------------------------------------------------------------------

OpWork mmWork(const Call& call);
OpWork addmmWork(const Call& call);
OpWork bmmWork(const Call& call);
OpWork baddbmmWork(const Call& call);
OpWork addbmmWork(const Call& call);
OpWork matmulWork(const Call& call);
OpWork linearWork(const Call& call);
OpWork mvPlain(const Call& call);
OpWork addmvWork(const Call& call);
OpWork scaledMmWork(const Call& call);
OpWork intMmWork(const Call& call);
OpWork groupedMmPlain(const Call& call);
OpWork scaledGroupedMmWork(const Call& call);

// ---------------------------------------------------------------------------------------
// Convolutions (op_work_convolution.cpp)
// ---------------------------------------------------------------------------------------

// Where a forward convolution's arguments sit (-1: the op has no such argument).
struct ConvArgs
{
    int8_t bias;
    int8_t stride;
    int8_t padding;
    int8_t dilation;
    int8_t transposed;     // a bool argument; -1: fixed by the op (see fixedTransposed)
    int8_t outputPadding;  // transposed convolutions only
    int8_t groups;
    bool fixedTransposed;
};

OpWork convForwardWork(const ConvArgs& args, const Call& call);

// Where a convolution backward's arguments sit.
struct ConvBackwardArgs
{
    int8_t gradOutput;
    int8_t input;
    int8_t weight;
    int8_t transposed;  // -1: never transposed
    int8_t outputMask;  // bool[2] or bool[3]: grad_input, grad_weight (, grad_bias)
};

OpWork convBackwardWork(const ConvBackwardArgs& args, const Call& call);
// cudnn/miopen_convolution_backward_input and _backward_weight.
OpWork cudnnBackwardInput(const Call& call);
OpWork cudnnBackwardWeight(const Call& call);

// ---------------------------------------------------------------------------------------
// Attention (op_work_attention.cpp)
// ---------------------------------------------------------------------------------------

// The query's layout: [batch, heads, length, head dim] or [batch, length, heads, head dim].
enum class Layout : uint8_t
{
    BHLE,
    BLHE
};
// How the call says it is causal: a bool is_causal, or custom_mask_type (0 none, 1 top-left
// causal, 2 bottom-right causal).
enum class CausalArg : uint8_t
{
    Flag,
    MaskType
};
enum class Align : uint8_t
{
    TopLeft,
    BottomRight
};

struct AttentionArgs
{
    Layout layout;
    bool backward;
    int8_t causal;
    CausalArg causalArg;
    Align align;        // which diagonal a Flag causal mask follows when L != S
    int8_t varlen;      // cum_seq_q: a packed variable-length batch when a tensor
    int8_t windowLeft;  // window_size_left / right: sliding-window attention when >= 0
    int8_t windowRight;
};

OpWork attentionWork(const AttentionArgs& args, const Call& call);

// ---------------------------------------------------------------------------------------
// Elementwise ops (op_work_elementwise.cpp)
// ---------------------------------------------------------------------------------------

// How an elementwise op's output is typed and which inputs it reads.
enum class Out : uint8_t
{
    Promote,     // the tensor inputs' promoted dtype
    Bool,        // comparisons and logical ops: bool
    First,       // the first tensor's dtype (gradients, masked_fill, cumsum)
    Overwrite,   // the first argument is written, never read (copy_, fill_, zero_, RNG)
    Dropout,     // like Promote, plus a bool mask
    Where,       // where(cond, a, b): the condition takes no part in the promotion
    TrueDivide,  // div: integer inputs give a float32 output unless rounding_mode is set
};

struct ElementwiseOp
{
    std::string_view base;  // the name without "aten::", a trailing '_' and "_foreach_"
    Out out;
    OpKind kind;
    // Bit i: argument i may be a tensor input. A tensor anywhere else is an out= argument
    // (torch records `out` among the inputs): written, not read.
    uint8_t tensorArgs;
    bool inPlaceOnly;  // only the `_` form is in the catalogue
};

inline constexpr uint8_t kUnary = 0b1;
inline constexpr uint8_t kBinary = 0b11;
inline constexpr uint8_t kTernary = 0b111;

enum class Form : uint8_t
{
    Plain,
    InPlace
};

OpWork elementwiseWork(const ElementwiseOp& op, Form form, const Call& call);
// aten::_foreach_<op>: the op applied to each tensor of the lists in turn.
OpWork foreachWork(const ElementwiseOp& op, Form form, const Call& call);
// aten::_foreach_norm: one norm per tensor.
OpWork foreachNormWork(const Call& call);

// ---------------------------------------------------------------------------------------
// Data movement (op_work_data_movement.cpp)
// ---------------------------------------------------------------------------------------

OpWork catWork(const Call& call);
OpWork indexSelectWork(const Call& call);
OpWork embeddingWork(const Call& call);
OpWork gatherWork(const Call& call);
OpWork embeddingBackwardWork(const Call& call);

// ---------------------------------------------------------------------------------------
// Normalization, softmax, reductions, pooling (op_work_reduction.cpp)
// ---------------------------------------------------------------------------------------

struct NormArgs
{
    int8_t input;   // the normalized tensor (forward: its size is the output's)
    int8_t weight;  // backward: the affine weight, whose size the weight/bias grads have
    int8_t mask;    // backward: output_mask; -1: the op computes every gradient
    bool backward;
    bool biasGrad;  // backward: the op has a bias gradient
    double flopsPerElement;
};

OpWork normWork(const NormArgs& args, const Call& call);

// Vendor kernels that take their outputs as arguments (out first): the slots in `outputs`
// are written, the other tensors read; FLOPs per element of argument 0.
struct OutArgsOp
{
    std::string_view name;
    OpKind kind;
    uint8_t outputs;  // bit i: argument i is an output
    double flopsPerElement;
};

OpWork outArgsWork(const OutArgsOp& op, const Call& call);

struct SoftmaxArgs
{
    bool backward;
    bool halfToFloat;  // forward: argument 2 is half_to_float (else a dtype)
};

OpWork softmaxWork(const SoftmaxArgs& args, const Call& call);

enum class RedOut : uint8_t
{
    Values,
    ValuesIndices,
    Indices,
    TwoValues,
    Bool
};

struct ReductionArgs
{
    int8_t dimOverloadArgs;  // with at least this many arguments the op reduces given dims
    int8_t dim;              // where the dims are then
    int8_t dtypeFull;        // the dtype argument of the full-reduction overload (-1: none)
    int8_t dtypeDim;         // the dtype argument of the dims overload (-1: none)
    RedOut out;
    double flopsPerElement;
    bool integerToLong;   // sum / prod of integers give int64
    bool binaryOverload;  // max / min(a, b) is elementwise
};

OpWork reductionWork(const ReductionArgs& args, const Call& call);

enum class Pool : uint8_t
{
    Max,
    Avg,
    Adaptive
};

struct PoolArgs
{
    Pool pool;
    bool backward;
    uint8_t spatial;  // 2 or 3 (a count, never negative)
    int8_t kernel;    // forward argument positions (backward: shifted by one)
    int8_t stride;
    int8_t padding;
    int8_t dilation;  // -1: none (avg)
    int8_t ceilMode;
};

OpWork poolWork(const PoolArgs& args, const Call& call);

// ---------------------------------------------------------------------------------------
// Compiled kernels' launches (op_work_compiled.cpp)
// ---------------------------------------------------------------------------------------

// The kind of a torch.compile launch op (named after its Triton kernel:
// "triton_red_fused_add_mean_0"); nullopt when the name is not an Inductor Triton kernel's.
std::optional<OpKind> compiledLaunchKind(std::string_view opName);
// Its work: every tensor argument (the kernel's inputs and outputs) moved once, FLOPs from
// its operands (a template's GEMM or convolution) or one per element of its largest tensor.
// opName must be one compiledLaunchKind accepts.
OpWork compiledLaunchWork(std::string_view opName, const Call& call);

}  // namespace kinetoscope::roofline::detail
