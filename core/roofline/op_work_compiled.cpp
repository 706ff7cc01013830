// The work of a compiled graph's kernel launch (op_work_internal.h). Recent torch records each
// Triton kernel torch.compile's Inductor generated as a CPU op named after the kernel
// ("triton_red_fused_add_mean_mul_pow_rsqrt_0"), its arguments recorded like an aten op's:
// the tensors' dims, strides and dtypes, and "Scalar" for the element counts (xnumel,
// rnumel). A Triton kernel's tensor arguments are its inputs and outputs together, each a
// buffer it reads or writes, so:
//   bytes  = every tensor argument moved once, at its dtype, a broadcast (stride-0)
//            dimension holding no extra bytes; scalars cost nothing;
//   FLOPs  = a template's matrix product, 2·batch·M·N·K (a convolution's 2·N·Cout·out
//            positions·Cin/g·kernel), from its operands' shapes; for any other kernel, one
//            per element of its largest tensor (an estimate: those are rated on bytes).
// docs/roofline.md, "Compiled kernels".
#include "core/compiled/kernel_name.h"
#include "core/roofline/op_work_internal.h"

#include <algorithm>

namespace kinetoscope::roofline::detail {

namespace {

using compiled::KernelKind;

// The aten ops a GEMM template is made from (Inductor's mm, addmm, bmm, baddbmm templates
// and their scaled and int8 forms).
constexpr std::string_view kGemmOps[] = {"mm", "addmm", "bmm", "baddbmm", "_scaled_mm", "_int_mm"};
// ... and a convolution template.
constexpr std::string_view kConvolutionOps[] = {"convolution", "_convolution"};

bool namesAny(const compiled::CompiledKernelName& kernel, std::span<const std::string_view> ops)
{
    return std::any_of(kernel.fusedOps.begin(), kernel.fusedOps.end(), [&](const std::string& op) {
        return std::find(ops.begin(), ops.end(), op) != ops.end();
    });
}

std::optional<compiled::CompiledKernelName> tritonKernel(std::string_view opName)
{
    auto parsed = compiled::parseCompiledKernelName(opName);
    if (!parsed || parsed->backend != "triton")
        return std::nullopt;
    return parsed;
}

OpKind kindOf(const compiled::CompiledKernelName& kernel)
{
    switch (kernel.kind) {
    case KernelKind::Reduction:
    case KernelKind::PersistentReduction:
        return OpKind::Reduction;
    case KernelKind::Template:
        return namesAny(kernel, kConvolutionOps) ? OpKind::Convolution : OpKind::Matmul;
    case KernelKind::Pointwise:
    case KernelKind::Foreach:
    case KernelKind::Other:
        break;
    }
    return OpKind::Elementwise;
}

// A tensor argument with its recorded strides (empty when not recorded).
struct Argument
{
    Tensor tensor;
    std::span<const int64_t> strides;

    // The bytes its buffer holds: a stride-0 dimension repeats the same elements.
    double bytes() const
    {
        double elements = 1;
        for (size_t d = 0; d < tensor.rank(); ++d) {
            const bool broadcast = strides.size() == tensor.rank() && strides[d] == 0;
            elements *= broadcast ? 1.0 : real(tensor.dims[d]);
        }
        return elements * tensor.dtype.bytes;
    }
};

// Leading (batch) dims of a matrix operand: all but its last two.
double batchOf(const Tensor& t)
{
    return product(t.dims.first(t.rank() - 2));
}

// A template's matrix product: operands A [..., M, K] and B [..., K, N] (A before B, as
// Inductor passes them) and an output [..., M, N] among the other arguments. A bias or an
// epilogue's extra input may come anywhere. 2·batch·M·N·K FLOPs; the precision A's.
std::optional<std::pair<double, Precision>> gemm(std::span<const Argument> args)
{
    for (size_t a = 0; a < args.size(); ++a) {
        const Tensor& ta = args[a].tensor;
        if (ta.rank() < 2)
            continue;
        for (size_t b = a + 1; b < args.size(); ++b) {
            const Tensor& tb = args[b].tensor;
            if (tb.rank() < 2 || tb.size(-2) != ta.size(-1))
                continue;
            const int64_t m = ta.size(-2), k = ta.size(-1), n = tb.size(-1);
            const bool hasOutput = std::any_of(args.begin(), args.end(), [&](const Argument& c) {
                return &c != &args[a] && &c != &args[b] && c.tensor.rank() >= 2 &&
                       c.tensor.size(-2) == m && c.tensor.size(-1) == n;
            });
            if (!hasOutput)
                continue;
            const double batch = std::max(batchOf(ta), batchOf(tb));
            return std::pair{2 * batch * real(m) * real(n) * real(k), ta.dtype.precision};
        }
    }
    return std::nullopt;
}

// A convolution template: input x [N, Cin, *S], weight w [Cout, Cin/g, *k] (after x) and an
// output y [N, Cout, *S_out] of the same rank. 2·numel(y)·Cin/g·prod(k) FLOPs: a multiply-add
// per weight element at each output position; the precision x's.
std::optional<std::pair<double, Precision>> convolution(std::span<const Argument> args)
{
    for (size_t x = 0; x < args.size(); ++x) {
        const Tensor& tx = args[x].tensor;
        if (tx.rank() < 3)
            continue;
        for (size_t w = x + 1; w < args.size(); ++w) {
            const Tensor& tw = args[w].tensor;
            if (tw.rank() != tx.rank() || tw.size(1) <= 0 || tx.size(1) % tw.size(1) != 0)
                continue;
            for (size_t y = 0; y < args.size(); ++y) {
                const Tensor& ty = args[y].tensor;
                if (y == x || y == w || ty.rank() != tx.rank() || ty.size(0) != tx.size(0) ||
                    ty.size(1) != tw.size(0))
                    continue;
                const double perOutput = product(tw.dims.subspan(1));
                return std::pair{2 * ty.numel() * perOutput, tx.dtype.precision};
            }
        }
    }
    return std::nullopt;
}

}  // namespace

std::optional<OpKind> compiledLaunchKind(std::string_view opName)
{
    const auto kernel = tritonKernel(opName);
    return kernel ? std::optional(kindOf(*kernel)) : std::nullopt;
}

OpWork compiledLaunchWork(std::string_view opName, const Call& call)
{
    const auto kernel = tritonKernel(opName);
    const OpKind kind = kernel ? kindOf(*kernel) : OpKind::Elementwise;
    if (!kernel)
        return unmodelled(kind, "not a compiled kernel's launch");
    std::vector<Argument> args;
    double bytes = 0, largest = 0;
    for (size_t i = 0; i < call.size(); ++i) {
        const OpInput* in = call.at(i);
        if (!in->list.empty())
            return unmodelled(kind, "a TensorList argument in a compiled kernel's launch");
        const auto t = call.tensor(i);
        if (!t) {
            if (!in->dims.empty())
                return notRecorded(kind, "the dtype of a tensor argument is");
            continue;  // a Scalar (an element count) or None: no memory traffic
        }
        args.push_back({*t, in->strides});
        bytes += args.back().bytes();
        largest = std::max(largest, t->numel());
    }
    if (args.empty())
        return notRecorded(kind, "a tensor argument is");
    if (kernel->kind != KernelKind::Template)
        return figures(kind, largest, bytes, call.widestPrecision());
    if (kind == OpKind::Convolution) {
        const auto work = convolution(args);
        if (!work)
            return unmodelled(kind, "the template's input, weight and output shapes do not form "
                                    "a convolution");
        return figures(kind, work->first, bytes, work->second);
    }
    if (!namesAny(*kernel, kGemmOps))
        return unmodelled(kind, "a template that names no GEMM or convolution (flex "
                                "attention, a user template) is not modelled");
    const auto work = gemm(args);
    if (!work)
        return unmodelled(kind, "the template's operand shapes do not form a matrix product");
    return figures(kind, work->first, bytes, work->second);
}

}  // namespace kinetoscope::roofline::detail
