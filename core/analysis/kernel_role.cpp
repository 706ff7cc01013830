#include "core/analysis/kernel_role.h"

#include "core/analysis/breakdown.h"
#include "core/analysis/name_match.h"
#include "core/analysis/tensor_cores.h"

#include <algorithm>
#include <iterator>

namespace kinetoscope::analysis {

namespace {

// The aten op's base name: "aten::native_layer_norm_backward" -> "layer_norm",
// "aten::add_" -> "add", "aten::_softmax" -> "softmax".
std::string_view baseName(std::string_view op)
{
    if (!op.starts_with("aten::"))
        return {};
    op.remove_prefix(6);
    while (op.starts_with("_"))
        op.remove_prefix(1);
    if (op.starts_with("native_"))
        op.remove_prefix(7);
    if (op.starts_with("cudnn_"))
        op.remove_prefix(6);
    for (std::string_view suffix : {"_backward_data", "_backward", "_out"})
        if (op.ends_with(suffix))
            op.remove_suffix(suffix.size());
    while (op.ends_with("_"))
        op.remove_suffix(1);
    return op;
}

bool isFusibleOp(std::string_view op)
{
    // Pointwise arithmetic and activations, norms, softmax and reductions: what Inductor
    // fuses into one generated kernel per chain.
    static constexpr std::string_view ops[] = {
        "add",        "sub",         "mul",         "div",      "neg",
        "abs",        "exp",         "log",         "sqrt",     "rsqrt",
        "pow",        "reciprocal",  "square",      "sign",     "relu",
        "gelu",       "silu",        "sigmoid",     "tanh",     "hardtanh",
        "leaky_relu", "elu",         "softplus",    "mish",     "threshold",
        "hardswish",  "hardsigmoid", "erf",         "clamp",    "clamp_min",
        "clamp_max",  "where",       "masked_fill", "dropout",  "fused_dropout",
        "addcmul",    "addcdiv",     "lerp",        "maximum",  "minimum",
        "eq",         "ne",          "lt",          "gt",       "le",
        "ge",         "logical_not", "mean",        "sum",      "var",
        "std",        "var_mean",    "amax",        "amin",     "norm",
        "layer_norm", "batch_norm",  "group_norm",  "rms_norm", "instance_norm",
        "softmax",    "log_softmax", "cos",         "sin",      "batch_norm_elemt",
    };
    return !op.empty() && std::find(std::begin(ops), std::end(ops), op) != std::end(ops);
}

// Kernel names of PyTorch's own memory-bound kernels, for traces that do not link ops.
bool namesFusibleKernel(std::string_view name)
{
    static constexpr std::string_view words[] = {
        "elementwise_kernel",
        "vectorized_elementwise",
        "unrolled_elementwise",
        "reduce_kernel",
        "softmax_warp",
        "cunn_softmax",
        "layer_norm",
        "layernorm",
        "batch_norm",
        "batchnorm",
        "rmsnorm",
        "rms_norm",
    };
    return std::any_of(std::begin(words), std::end(words),
                       [&](std::string_view w) { return containsNoCase(name, w); });
}

bool namesComputeKernel(std::string_view name)
{
    if (matrixUnitOf(name) != MatrixUnit::Unknown)
        return true;
    if (containsNoCase(name, "convert"))  // dtype conversions, not convolutions
        return false;
    static constexpr std::string_view words[] = {
        "gemm",      "cutlass", "nvjet", "xmma", "cijk_",     "conv",   "winograd",
        "implicit_", "fmha",    "flash", "attn", "attention", "matmul",
    };
    return std::any_of(std::begin(words), std::end(words),
                       [&](std::string_view w) { return containsNoCase(name, w); });
}

// Concatenation copies its inputs into one tensor: data movement, which a compiler writes
// into its producers' fused kernel where they are memory-bound.
bool isConcatOp(std::string_view op)
{
    const std::string_view base = baseName(op);
    return base == "cat" || base == "stack" || base == "concat" || base == "concatenate";
}

}  // namespace

std::vector<std::pair<size_t, size_t>> fusibleChains(const std::vector<KernelRole>& roles)
{
    std::vector<std::pair<size_t, size_t>> chains;
    size_t begin = 0;
    bool fusible = false;
    for (size_t i = 0; i <= roles.size(); ++i) {
        const bool member =
            i < roles.size() && (roles[i] == KernelRole::Fusible || roles[i] == KernelRole::Copy);
        if (member) {
            fusible |= roles[i] == KernelRole::Fusible;
            continue;
        }
        if (fusible && i - begin >= 2)
            chains.emplace_back(begin, i);
        begin = i + 1;
        fusible = false;
    }
    return chains;
}

const char* kernelRoleName(KernelRole role)
{
    switch (role) {
    case KernelRole::Compute:
        return "compute";
    case KernelRole::Fusible:
        return "fusible";
    case KernelRole::Copy:
        return "copy";
    case KernelRole::Update:
        return "update";
    case KernelRole::Fused:
        return "fused";
    case KernelRole::Communication:
        return "communication";
    case KernelRole::Other:
        break;
    }
    return "other";
}

KernelRoles::KernelRoles(const trace::TraceModel& model)
    : m_model(model), m_updateScope(model.strings().size(), false)
{
    for (size_t i = 0; i < m_updateScope.size(); ++i) {
        const std::string_view name = model.text(trace::StringId{static_cast<uint32_t>(i)});
        m_updateScope[i] = name.starts_with("Optimizer.step#") ||
                           name.starts_with("Optimizer.zero_grad#") ||
                           name == "torch::autograd::AccumulateGrad";
    }
}

KernelRole KernelRoles::of(const trace::Event& kernel)
{
    const uint32_t op = kernel.op.valid() ? m_model.event(kernel.op).name.value : UINT32_MAX;
    auto [it, fresh] =
        m_known.try_emplace((uint64_t(kernel.name.value) << 32) | op, KernelRole::Other);
    if (fresh)
        it->second = kernelRole(m_model.text(kernel.name),
                                kernel.op.valid() ? m_model.text(m_model.event(kernel.op).name)
                                                  : std::string_view());
    // A parameter update's kernels each touch a tensor of their own (one per parameter):
    // torch.compile of the model does not fuse them; the fused optimizer does.
    if (it->second == KernelRole::Fusible)
        for (trace::EventId p = kernel.op; p.valid(); p = m_model.event(p).parent)
            if (m_updateScope[m_model.event(p).name.value])
                return KernelRole::Update;
    return it->second;
}

KernelRole kernelRole(std::string_view kernelName, std::string_view opName)
{
    if (isCommunicationKernel(kernelName) || isCommunicationOp(opName))
        return KernelRole::Communication;
    if (kernelName.starts_with("triton_") || kernelName.starts_with("void triton_"))
        return KernelRole::Fused;
    if (isCopyOp(opName) || isConcatOp(opName))
        return KernelRole::Copy;
    if (isTensorCoreEligibleOp(opName) || opName.find("attention") != std::string_view::npos)
        return KernelRole::Compute;
    if (!opName.empty() && isFusibleOp(baseName(opName)))
        return namesComputeKernel(kernelName) ? KernelRole::Compute : KernelRole::Fusible;
    if (namesComputeKernel(kernelName))
        return KernelRole::Compute;
    if (opName.empty() &&
        (containsNoCase(kernelName, "copy") || containsNoCase(kernelName, "cast")))
        return KernelRole::Copy;  // PyTorch's copies run as elementwise kernels too
    if (namesFusibleKernel(kernelName))
        return KernelRole::Fusible;
    return KernelRole::Other;
}

}  // namespace kinetoscope::analysis
