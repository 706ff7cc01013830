#include "core/analysis/tensor_cores.h"

#include "core/analysis/name_match.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <span>

namespace kinetoscope::analysis {

using namespace kinetoscope::trace;

namespace {

bool contains(std::string_view s, std::string_view part)
{
    return s.find(part) != std::string_view::npos;
}

bool containsAny(std::string_view s, std::span<const std::string_view> parts)
{
    return std::any_of(parts.begin(), parts.end(),
                       [&](std::string_view p) { return contains(s, p); });
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// An explicit SIMT GEMM or convolution: fp32 (or fp16 HFMA2) on the CUDA cores.
constexpr std::array<std::string_view, 13> kSimt = {
    "sgemm",           // volta_/ampere_/maxwell_sgemm_*, magma_sgemmEx, implicit_convolve_sgemm
    "simt",            // CUTLASS: cutlass_80_simt_sgemm_*, cutlass3x_sm100_simt_sgemm_*
    "_ffma",           // cuBLAS xmma kernels built on FFMA
    "_f32f32_f32f32",  // xmma type tag: fp32 inputs, fp32 math (tf32 reads "tf32f32")
    "scudnn",          // cuDNN fp32 convolutions: volta_scudnn_*, cudnn_ampere_scudnn_*
    "hcudnn",          // cuDNN fp16 HFMA2 convolutions
    "hgemm",           // cuBLAS fp16 HFMA2 GEMMs (not h884gemm / h1688gemm)
    "gemmSN_",         // cuBLAS small-N GEMM
    "gemmk1_kernel",   // cuBLAS k = 1 GEMM
    "gemv",            // cuBLAS gemv2N, gemv2T, gemvNSP, gemvx
    "dgrad_engine",    // cuDNN fp32 convolution engines (cudnn::detail::dgrad_engine<float>)
    "wgrad_alg0_engine",
    "wgrad_alg1_engine",
};

// Names that say a matrix-unit instruction or a library family that only uses them.
constexpr std::array<std::string_view, 27> kMatrix = {
    // Volta / Turing / Ampere MMA shapes, with the precision letter cuBLAS and cuDNN put first
    "h884",
    "s884",
    "h1688",
    "s1688",
    "c1688",
    "i8816",
    "h16816",
    "s16816",
    "i16832",
    "hmma",
    "wmma",
    "tensor16x8",   // xmma: tensor16x8x8 (tf32), tensor16x8x16 (f16, bf16)
    "_tensorop_",   // CUTLASS 2 kernel names: cutlass_80_tensorop_s1688gemm_*
    "MmaTensorOp",  // CUTLASS templates in mangled names (cuDNN's ImplicitGemmConvolution)
    "OpClassTensorOp",
    "wgmma",
    "gmma_",
    "tcgen05",          // Hopper warpgroup MMA, Blackwell tensor memory MMA
    "nvjet",            // cuBLASLt on Hopper and Blackwell: Tensor Core GEMMs only
    "mfma",             // AMD: v_mfma, paged_attention_ll4mi_QKV_mfma16_kernel
    "_gtcx",            // MIOpen igemm_{fwd,bwd,wrw}_gtcx*: its xdlops implicit GEMMs
    "kernel_moe_gemm",  // composable kernel's MoE GEMM (GridwiseMoeGemm, xdl)
    "GridwiseMoeGemm",
    "_matmul_ogs_",  // triton_kernels' GEMM (tl.dot on bf16/fp8/mxfp4: MMA or MFMA)
    "PrefillWith",   // FlashInfer and CK prefill attention (MMA), not their decode kernels
    "attn_fwd",
    "attn_bwd",  // Triton flash attention (AMD, tutorials)
};

// Attention kernels that run on matrix units for fp16/bf16, which is what they are built
// for (FlashAttention 2/3, xformers/PyTorch memory-efficient attention, TensorRT-LLM and
// CK fmha)...
bool isAttention(std::string_view name)
{
    return contains(name, "flash_fwd") || contains(name, "flash_bwd") ||
           contains(name, "FlashAttn") || containsNoCase(name, "fmha");
}
// ...except their helpers, which only reduce or convert.
bool isAttentionHelper(std::string_view name)
{
    static constexpr std::array<std::string_view, 6> helpers = {
        "flash_bwd_dot_do_o",     "flash_bwd_convert",       "flash_bwd_clear",
        "FlashAttnBwdPreprocess", "FlashAttnBwdPostprocess", "prepare_varlen"};
    return containsAny(name, helpers) || containsNoCase(name, "combine");
}

// Tensile / hipBLASLt: `Cijk_…_MT128x64x32_MI32x32x1_…` names the macro tile after `_MT`
// and the MFMA shape after `_MI`; a Tensile kernel without `_MI` runs on the vector ALUs.
bool followedByDigit(std::string_view name, std::string_view tag)
{
    for (size_t at = name.find(tag); at != std::string_view::npos; at = name.find(tag, at + 1))
        if (at + tag.size() < name.size() && isDigit(name[at + tag.size()]))
            return true;
    return false;
}
bool hasTensileMatrixInstruction(std::string_view name)
{
    return followedByDigit(name, "_MT") && followedByDigit(name, "_MI");
}

// Architecture-specific families (cuBLAS xmma, CUTLASS 3, TensorRT-LLM `…_sm100f`) whose
// GEMMs use Tensor Cores unless the name says SIMT.
bool isGenericMatrixFamily(std::string_view name)
{
    static constexpr std::array<std::string_view, 11> families = {
        "xmma",  "cutlass3x", "sm80_", "sm86_", "sm89_", "sm90",
        "sm100", "sm103",     "sm110", "sm120", "sm121"};
    static constexpr std::array<std::string_view, 6> gemmWords = {"gemm",  "bmm",   "conv",
                                                                  "fprop", "dgrad", "wgrad"};
    return containsAny(name, families) &&
           std::any_of(gemmWords.begin(), gemmWords.end(),
                       [&](std::string_view word) { return containsNoCase(name, word); });
}

}  // namespace

MatrixUnit matrixUnitOf(std::string_view name)
{
    if (containsAny(name, kSimt))
        return MatrixUnit::Simt;
    if (isAttention(name)) {
        if (isAttentionHelper(name))
            return MatrixUnit::Unknown;
        // PyTorch's memory-efficient attention is SIMT when built for sm50, and in fp32 before
        // sm80 (`fmha_cutlassF_f32_aligned_64x64_rf_sm75`); from sm80 fp32 runs on TF32 MMA.
        if (contains(name, "fmha_cutlass") &&
            (contains(name, "_sm50") ||
             (contains(name, "_f32_") && (contains(name, "_sm70") || contains(name, "_sm75")))))
            return MatrixUnit::Simt;
        return MatrixUnit::TensorCore;
    }
    if (containsAny(name, kMatrix) || containsNoCase(name, "xdl") ||
        hasTensileMatrixInstruction(name))
        return MatrixUnit::TensorCore;
    if (name.starts_with("Cijk_"))
        return MatrixUnit::Simt;
    // cuDNN's FFT convolutions multiply complex fp32 (ampere_gcgemm_*); its non-fused
    // Winograd kernels transform fp32 tiles for a SIMT GEMM.
    if (contains(name, "cgemm") || containsNoCase(name, "winograd"))
        return MatrixUnit::Simt;
    if (isGenericMatrixFamily(name))
        return MatrixUnit::TensorCore;
    // Not kept from the TensorBoard plugin's list (itself from NVIDIA PyProf's allowlist):
    // cuDNN 7's `dgrad_1x1_stride_2x2`, `first_layer_wgrad_kernel`, `conv2d_c1_k1` and
    // `direct_group`. Their names say neither an MMA shape nor a data type, no shared trace
    // has them to check against, so they cannot be told from SIMT kernels by name.
    return MatrixUnit::Unknown;
}

bool isTensorCoreEligibleOp(std::string_view opName)
{
    static constexpr std::array<std::string_view, 20> ops = {
        "aten::mm",
        "aten::addmm",
        "aten::bmm",
        "aten::baddbmm",
        "aten::addbmm",
        "aten::matmul",
        "aten::linear",
        "aten::conv1d",
        "aten::conv2d",
        "aten::conv3d",
        "aten::convolution",
        "aten::_convolution",
        "aten::cudnn_convolution",
        "aten::convolution_backward",
        "aten::cudnn_convolution_backward",
        "aten::cudnn_convolution_backward_input",
        "aten::cudnn_convolution_backward_weight",
        "aten::conv_transpose2d",
        "aten::_scaled_dot_product_efficient_attention",
        "aten::_scaled_dot_product_flash_attention",
    };
    return std::find(ops.begin(), ops.end(), opName) != ops.end();
}

namespace {

// An architecture tag of compute capability 7.0 or later in a kernel name: `sm80_xmma`,
// `nvjet_sm103`, `…_sm100f`, `fmhaSm100f`; or cuBLAS/cuDNN's `volta_`, `turing_`, `ampere_`.
bool namesTensorCoreArchitecture(std::string_view name)
{
    static constexpr std::array<std::string_view, 5> families = {"volta_", "turing_", "ampere_",
                                                                 "hopper_", "nvjet"};
    if (containsAny(name, families))
        return true;
    for (size_t at = 0; at + 4 <= name.size(); ++at) {
        // `sm` after a letter is part of a word; `Sm` is the camel-case tag.
        const bool tag = (name[at] == 's' || name[at] == 'S') && name[at + 1] == 'm';
        const bool inWord =
            name[at] == 's' && at > 0 && std::isalpha(static_cast<unsigned char>(name[at - 1]));
        if (!tag || inWord)
            continue;
        size_t end = at + 2;
        int version = 0;
        while (end < name.size() && isDigit(name[end]) && end - at < 5)
            version = version * 10 + (name[end++] - '0');
        if (end - at >= 4 && (end == name.size() || !isDigit(name[end])) && version >= 70)
            return true;
    }
    return false;
}

bool isCdnaDevice(const DeviceInfo& device)
{
    // Not MI25, MI50, MI60 (GCN, no MFMA).
    static constexpr std::array<std::string_view, 9> names = {
        "MI100", "MI210", "MI250", "MI3", "MI4", "gfx908", "gfx90a", "gfx94", "gfx95"};
    if (containsAny(device.name, names))
        return true;
    // HIP reports gfx942 as 9.4 and gfx950 as 9.5; 9.0 is also the MI50 (gfx906): unsure.
    return device.computeMajor == 9 && device.computeMinor >= 4;
}

}  // namespace

bool hasMatrixUnits(const TraceMetadata& metadata, GpuVendor vendor,
                    const std::vector<std::string_view>& kernelNames)
{
    auto anyKernel = [&](auto&& predicate) {
        return std::any_of(kernelNames.begin(), kernelNames.end(), predicate);
    };
    auto ranMatrixKernels = [&] {
        return anyKernel(
            [](std::string_view k) { return matrixUnitOf(k) == MatrixUnit::TensorCore; });
    };
    switch (vendor) {
    case GpuVendor::Nvidia: {
        bool known = false;
        for (const DeviceInfo& device : metadata.devices) {
            if (device.computeMajor >= 7)
                return true;
            known = known || device.computeMajor >= 0;
        }
        if (known)
            return false;
        return ranMatrixKernels() || anyKernel(namesTensorCoreArchitecture);
    }
    case GpuVendor::Amd:
        // ROCm often names a CDNA2 device "AMD Radeon Graphics": then the kernels tell.
        return std::any_of(metadata.devices.begin(), metadata.devices.end(), isCdnaDevice) ||
               ranMatrixKernels();
    case GpuVendor::Mtia:
    case GpuVendor::None:
        break;
    }
    return false;
}

namespace {

// Input Dims as written ("[[32, 64, 56, 56], [64, 64, 3, 3], []]") -> tensors' dims. A
// dim of more digits than int64 holds saturates at kHugeDim (no real tensor comes close).
std::vector<std::vector<int64_t>> parseShapes(std::string_view text)
{
    constexpr int64_t kHugeDim = INT64_MAX / 10;
    std::vector<std::vector<int64_t>> tensors;
    int depth = 0;
    int64_t number = 0;
    bool inNumber = false;
    for (char c : text) {
        if (c >= '0' && c <= '9') {
            number = number >= kHugeDim / 10 ? kHugeDim : number * 10 + (c - '0');
            inNumber = true;
            continue;
        }
        if (inNumber && depth == 2)
            tensors.back().push_back(number);
        inNumber = false;
        number = 0;
        if (c == '[') {
            ++depth;
            if (depth == 2)
                tensors.emplace_back();
        } else if (c == ']') {
            --depth;
        }
    }
    return tensors;
}

}  // namespace

std::vector<int64_t> tensorCoreDims(std::string_view op, std::string_view inputShapes)
{
    const std::vector<std::vector<int64_t>> tensors = parseShapes(inputShapes);
    std::vector<int64_t> dims;
    const bool conv = op.find("conv") != std::string_view::npos;
    if (conv) {
        if (!tensors.empty() && tensors[0].size() >= 2)
            dims.push_back(tensors[0][1]);  // input channels
        if (tensors.size() > 1 && tensors[1].size() >= 2) {
            dims.push_back(tensors[1][0]);  // output channels
            dims.push_back(tensors[1][1]);  // input channels per group
        }
        return dims;
    }
    int matrices = 0;
    for (const auto& t : tensors) {
        if (t.size() < 2)
            continue;  // a bias or a scalar
        dims.push_back(t[t.size() - 2]);
        dims.push_back(t[t.size() - 1]);
        if (++matrices == 2)
            break;
    }
    return dims;
}

bool misalignedForTensorCores(std::string_view op, std::string_view inputShapes)
{
    for (int64_t d : tensorCoreDims(op, inputShapes))
        if (d > 1 && d % 8 != 0)
            return true;
    return false;
}

}  // namespace kinetoscope::analysis
