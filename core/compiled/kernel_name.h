#pragma once
// What a compiler-generated kernel's name says: which backend wrote it, what kind of kernel
// it is, and the source ops it fused. torch.compile's Inductor names each kernel
// "<backend>_<kind>_fused_<op>_<op>..._<index>" (Triton on a GPU, C++ on a CPU), the ops
// being the original aten ops the kernel was made from, sorted and joined by '_':
//   triton_poi_fused_add_cos_sin_0                    pointwise: add, cos, sin
//   triton_red_fused__unsafe_view_add_mean_mul_pow_rsqrt_1
//                                                     reduction: _unsafe_view, add, mean, ...
//   triton_per_fused_layer_norm_tanh_0_0d1d2d3d4d     persistent reduction (an old Triton's
//                                                     argument signature after the index)
//   triton_tem_fused_addmm_relu_0                     template (a GEMM or convolution)
//   cpp_fused_add_mul_0                               Inductor's C++ kernel on a CPU
//   graph_0_cpp_fused_gelu_view_2                     the same recorded as an op
//                                                     (TORCHINDUCTOR_CPP_ENABLE_KERNEL_PROFILE=1)
// Since op names contain '_' themselves (layer_norm, _unsafe_view), the split follows a list
// of multi-word aten names; an unlisted one comes out as its words.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope::compiled {

enum class KernelKind : unsigned char
{
    Pointwise,            // "poi"
    Reduction,            // "red"
    PersistentReduction,  // "per"
    Template,             // "tem": a GEMM or convolution template (autotuned)
    Foreach,              // "for": one kernel over a list of tensors (an optimizer step)
    Other                 // a C++ kernel, or a kind this reader does not know
};
const char* kernelKindName(KernelKind kind);  // "pointwise", "reduction", ...

struct CompiledKernelName
{
    std::string backend;  // "triton" or "cpp"
    KernelKind kind = KernelKind::Other;
    std::vector<std::string> fusedOps;  // in the name's order; empty when it names none
};

// nullopt when the name is not a compiler-generated kernel's.
std::optional<CompiledKernelName> parseCompiledKernelName(std::string_view name);

// "add · cos · sin" (the fused ops joined for a column or a label); "" when none.
std::string fusedOpsText(const CompiledKernelName& name);

}  // namespace kinetoscope::compiled
