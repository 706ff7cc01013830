#pragma once
// Which kernels run on matrix units (NVIDIA Tensor Cores, AMD matrix cores), from the
// kernel-name families of each architecture, Volta to Blackwell and CDNA; and which
// devices have them. SIMT fp32 GEMMs (`sgemm`, `…_ffma`, `f32f32…ffma`) are not Tensor
// Core kernels even when their names carry `xmma` or an `sm80_` prefix.
#include "core/trace/trace_metadata.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace kinetoscope::analysis {

enum class MatrixUnit : uint8_t
{
    TensorCore,  // the name says a Tensor Core / matrix-core instruction family
    Simt,        // the name says a SIMT GEMM/convolution (fp32 FFMA)
    Unknown,     // not a GEMM-like name, or nothing in it tells
};
MatrixUnit matrixUnitOf(std::string_view kernelName);
inline bool isTensorCoreKernel(std::string_view kernelName)
{
    return matrixUnitOf(kernelName) == MatrixUnit::TensorCore;
}

// Is this CPU op one whose kernels can run on matrix units (GEMM, convolution, their
// backward, fused attention)?
bool isTensorCoreEligibleOp(std::string_view opName);

// The dimensions that decide whether a GEMM or convolution can use Tensor Cores, from its
// Input Dims as recorded ("[[32, 64, 56, 56], [64, 64, 3, 3], []]"): a GEMM's two matrices'
// last two dims; a convolution's input channels, output channels and channels per group.
std::vector<int64_t> tensorCoreDims(std::string_view opName, std::string_view inputShapes);
// One of them is not a multiple of 8 (what 16-bit Tensor Core kernels need).
bool misalignedForTensorCores(std::string_view opName, std::string_view inputShapes);

// Does the device that ran these kernels have matrix units the rules can recommend?
// NVIDIA from compute capability 7.0 (from deviceProperties, or architecture prefixes
// in kernel names when the trace has no device list); AMD CDNA (MI100 and later; gfx908,
// gfx90a, gfx94x). MTIA and unknown vendors: false (the NVIDIA rules stay silent).
bool hasMatrixUnits(const trace::TraceMetadata& metadata, trace::GpuVendor vendor,
                    const std::vector<std::string_view>& kernelNames);

}  // namespace kinetoscope::analysis
