#pragma once
// What the roofline says the device could do better: op groups whose kernels run far below
// what their roof allows for their shape, attention that does not run on a fused kernel, and
// torch.compile's generated memory-bound kernels far below the memory bandwidth. The causal
// model shortens their kernels to a realistic share of the roof (its gains), and the
// diagnosis names them (rules_roofline.cpp, rules_compiled.cpp).
#include "core/roofline/roofline.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace kinetoscope::analysis {

enum class RoofGap : uint8_t
{
    None,
    BelowRoof,         // a GEMM or convolution well under what its roof allows for its shape
    UnfusedAttention,  // attention on separate GEMM and softmax kernels (the math path)
    BelowBandwidth,    // a generated (Triton) pointwise or reduction kernel well under the
                       // memory bandwidth a generated kernel streams at (kStreamingTargetShare)
};

// The shares of the roof well-tuned libraries reach, by kind: cuBLAS and cuDNN on large
// 16-bit GEMMs and convolutions, FlashAttention-2 on attention, a GEMV on a memory-bound
// (skinny) GEMM, cuDNN on a memory-bound (few-channel) convolution, whose backward passes
// re-read their inputs. A group is judged below its roof under half its target.
inline constexpr double kComputeTargetShare = 0.6;
inline constexpr double kAttentionTargetShare = 0.45;
inline constexpr double kMemoryTargetShare = 0.7;
inline constexpr double kMemoryConvolutionTargetShare = 0.5;
// A fused memory-bound chain's kernel (what torch.compile generates): half the bandwidth for
// the bytes its costliest member moves at the least (a norm's backward reads its inputs
// twice, once to reduce and once to scale). A generated pointwise or reduction kernel is
// judged against the same target: below it under half of it (a quarter of the bandwidth).
inline constexpr double kStreamingTargetShare = 0.5;
// No kernel runs shorter than this however well tuned (launch and tail): a target never
// goes below it. Nanoseconds.
inline constexpr double kShortestKernelNs = 3000;
// The output tile a GEMM kernel gives one SM (128 x 128): fewer tiles than SMs leave SMs idle.
inline constexpr double kGemmTile = 128;

struct RoofVerdict
{
    RoofGap gap = RoofGap::None;
    double targetShare = 0;  // of the roof at its intensity, for its shape
    double fill = 1;         // the share of the SMs its output tiles can occupy (GEMMs)
    double factor = 1;       // its calls' target time over their measured time (< 1 with a gap)
};

// Does this kernel name say fused attention (FlashAttention, memory-efficient, cuDNN or
// CK fmha, Triton attention)?
bool isFusedAttentionKernel(std::string_view kernelName);

// Is this op group a generated memory-bound kernel's launch: a Triton pointwise, reduction or
// persistent-reduction kernel torch.compile's Inductor wrote (not a template: a GEMM or a
// convolution, judged as one; not a foreach: an optimizer's list of tensors)?
bool isGeneratedStreamingKernel(const roofline::OpRoofline& row);

// The verdict on one op group; `numSms` the device's (<= 0 when unknown: fill 1).
// fp32 GEMMs off the matrix units and shapes misaligned for them are not judged here:
// no-tensor-cores and tensor-core-misaligned own them. A generated streaming kernel
// (isGeneratedStreamingKernel) rated memory-bound is judged against kStreamingTargetShare of
// the bandwidth; any other op that is no matrix kind is not judged.
RoofVerdict judgeRoof(const roofline::OpRoofline& row, const roofline::Roofline& roofline,
                      int numSms);

// The groups with a gap, by (op name, input shapes).
using RoofGaps = std::map<std::pair<std::string, std::string>, RoofVerdict>;
RoofGaps roofGaps(const roofline::Roofline& roofline, const trace::TraceModel& model);

// What the causal model shortens, per kernel (its event index).
struct RoofTargets
{
    // The kernels of the groups with a gap: the gap, and their target duration over their
    // measured one.
    std::unordered_map<uint32_t, std::pair<RoofGap, float>> gaps;
    // The lone kernel of a memory-bound (streaming) op call: its duration at
    // kStreamingTargetShare of the bandwidth for the bytes the call moves, never under
    // kShortestKernelNs, where that is shorter than measured. Nanoseconds. What a fused
    // chain's kernel costs (the Fusion cause).
    std::unordered_map<uint32_t, int64_t> streamingNs;
};
RoofTargets roofTargets(const trace::TraceModel& model, const roofline::Roofline& roofline,
                        const RoofGaps& gaps);

}  // namespace kinetoscope::analysis
