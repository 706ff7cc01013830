// The work of normalizations, softmax, reductions and pooling (op_work_internal.h), forward
// and backward, and of the vendor kernels that take their outputs as arguments: streaming
// ops, costed by the bytes they read and write. docs/roofline.md, "Normalization",
// "Softmax" and "Reductions and pooling".
#include "core/roofline/op_work_internal.h"

#include <algorithm>
#include <cmath>

namespace kinetoscope::roofline::detail {

namespace {

constexpr OpKind kNorm = OpKind::Normalization;
constexpr OpKind kSoftmax = OpKind::Softmax;
constexpr OpKind kReduce = OpKind::Reduction;

}  // namespace

// ---- Normalization ----

// Forward: every tensor argument read, one output of the input's size and dtype written
// (the saved per-row or per-channel statistics are left out). Backward: every tensor
// argument read, the gradients the output mask asks for written.
OpWork normWork(const NormArgs& args, const Call& call)
{
    const auto input = call.tensor(args.input);
    if (!input)
        return notRecorded(kNorm, "the input's shape or dtype is");
    const double flops = args.flopsPerElement * input->numel();
    double bytes = call.readAllTensors();
    if (!args.backward)
        return figures(kNorm, flops, bytes + input->bytes(), call.widestPrecision());
    std::vector<bool> mask{true, true, args.biasGrad};
    if (const auto recorded = call.flags(args.mask); recorded && !recorded->empty())
        mask = *recorded;
    mask.resize(3, false);
    if (mask[0])
        bytes += input->bytes();
    // Without an affine weight there is no weight or bias gradient.
    if (const auto weight = call.tensor(args.weight)) {
        bytes += mask[1] ? weight->bytes() : 0;
        bytes += mask[2] && args.biasGrad ? weight->bytes() : 0;
    }
    return figures(kNorm, flops, bytes, call.widestPrecision());
}

// ---- Vendor kernels with output arguments ----

OpWork outArgsWork(const OutArgsOp& op, const Call& call)
{
    const auto first = call.tensor(size_t{0});
    if (!first)
        return notRecorded(op.kind, "the output's shape or dtype is");
    double bytes = 0;
    for (size_t i = 0; i < call.size(); ++i) {
        if (const auto t = call.tensor(i))
            bytes += t->bytes();
        else if (i < 8 && (op.outputs >> i & 1U))
            return notRecorded(op.kind, "an output's shape or dtype is");
    }
    return figures(op.kind, op.flopsPerElement * first->numel(), bytes, call.widestPrecision());
}

// ---- Softmax ----

// Forward: read the input, write the output (5 FLOPs per element: max, subtract,
// exponential, sum, scale). Backward: read grad_output and output, write grad_input (4).
OpWork softmaxWork(const SoftmaxArgs& args, const Call& call)
{
    const auto input = call.tensor(size_t{0});
    if (!input)
        return notRecorded(kSoftmax, "the input's shape or dtype is");
    DType out = input->dtype;
    if (args.backward) {
        if (const auto recorded = call.dtypeArg(3))
            out = *recorded;
        else if (const auto self = call.tensor(size_t{3}))
            out = self->dtype;  // torch <= 1.10: the forward's input is argument 3
        return figures(kSoftmax, 4 * input->numel(),
                       call.readAllTensors() + input->numel() * out.bytes, call.widestPrecision());
    }
    if (args.halfToFloat) {
        if (call.flag(2).value_or(false))
            out = kFloat32;
    } else if (const auto recorded = call.dtypeArg(2)) {
        out = *recorded;
    }
    return figures(kSoftmax, 5 * input->numel(), input->bytes() + input->numel() * out.bytes,
                   input->dtype.precision);
}

// ---- Reductions ----

OpWork reductionWork(const ReductionArgs& args, const Call& call)
{
    const auto input = call.tensor(size_t{0});
    if (!input)
        return notRecorded(kReduce, "the input's shape or dtype is");
    if (args.binaryOverload && call.size() == 2 && call.tensor(size_t{1})) {
        static constexpr ElementwiseOp kPairwise{"maximum", Out::Promote, OpKind::Elementwise,
                                                 kBinary, false};
        return elementwiseWork(kPairwise, Form::Plain, call);
    }
    const bool dimOverload = call.size() >= static_cast<size_t>(args.dimOverloadArgs);
    DType out = input->dtype;
    if (const auto recorded = call.dtypeArg(dimOverload ? args.dtypeDim : args.dtypeFull))
        out = *recorded;
    else if (args.integerToLong && !isFloat(input->dtype.precision))
        out = kInt64;

    // Output elements: 1 for a full reduction; the kept dims' product for given dims; -1
    // when the dims are not recorded (then only the read is counted).
    double outElements = 1;
    if (dimOverload) {
        const Recorded state = call.recorded(args.dim);
        if (state == Recorded::Missing) {
            outElements = -1;
        } else if (state == Recorded::Value) {
            const auto dims = call.ints(args.dim);
            if (!dims)
                return unmodelled(kReduce, "the reduced dims are unreadable");
            const int64_t rank = static_cast<int64_t>(input->rank());
            std::vector<bool> reduced(input->rank(), dims->empty());
            for (const int64_t d : *dims) {
                const int64_t wrapped = d < 0 ? d + std::max<int64_t>(rank, 1) : d;
                if (wrapped < 0 || wrapped >= std::max<int64_t>(rank, 1))
                    return unmodelled(kReduce, "a reduced dim is out of range");
                if (rank > 0)
                    reduced[static_cast<size_t>(wrapped)] = true;
            }
            for (size_t i = 0; i < input->rank(); ++i)
                outElements *= reduced[i] ? 1 : real(input->dims[i]);
        }
    }
    double bytes = input->bytes();
    if (outElements >= 0) {
        switch (args.out) {
        case RedOut::Values:
            bytes += outElements * out.bytes;
            break;
        case RedOut::ValuesIndices:
            bytes += outElements * (out.bytes + kInt64.bytes);
            break;
        case RedOut::Indices:
            bytes += outElements * kInt64.bytes;
            break;
        case RedOut::TwoValues:
            bytes += 2 * outElements * out.bytes;
            break;
        case RedOut::Bool:
            bytes += outElements * kBool.bytes;
            break;
        }
    }
    return figures(kReduce, args.flopsPerElement * input->numel(), bytes, input->dtype.precision);
}

// ---- Pooling ----

namespace {

// The output size of a window sliding over `in` (torch's pooling shape rule).
double poolOut(double in, double kernel, double stride, double pad, double dilation, bool ceil)
{
    const double span = in + 2 * pad - dilation * (kernel - 1) - 1 + (ceil ? stride - 1 : 0);
    double out = std::floor(span / stride) + 1;
    if (ceil && (out - 1) * stride >= in + pad)
        out -= 1;
    return out;
}

}  // namespace

OpWork poolWork(const PoolArgs& args, const Call& call)
{
    const size_t spatial = static_cast<size_t>(args.spatial);
    if (args.backward) {
        // (grad_output, self, ...): read grad_output (and max pooling's indices, the last
        // argument), write grad_input of self's size. One FLOP per grad_output element and
        // window element for average pooling, one per grad_output element for max pooling,
        // one per grad_input element for adaptive pooling.
        const auto grad = call.tensor(size_t{0});
        const auto self = call.tensor(size_t{1});
        if (!grad || !self)
            return notRecorded(kReduce, "the gradient's or input's shape or dtype is");
        double bytes = grad->bytes() + self->numel() * grad->dtype.bytes;
        double flops = grad->numel();
        if (args.pool == Pool::Max) {
            if (const auto indices = call.tensor(call.size() - 1); indices && call.size() > 2)
                bytes += indices->bytes();
        } else if (args.pool == Pool::Avg) {
            const auto kernel = spatialList(call, static_cast<int8_t>(args.kernel + 1), spatial);
            if (!kernel)
                return notRecorded(kReduce, "the kernel size is");
            double window = 1;
            for (const double k : *kernel)
                window *= k;
            flops *= window;
        } else {
            flops = self->numel();
        }
        return figures(kReduce, flops, bytes, grad->dtype.precision);
    }
    const auto input = call.tensor(size_t{0});
    if (!input)
        return notRecorded(kReduce, "the input's shape or dtype is");
    if (input->rank() != spatial + 1 && input->rank() != spatial + 2)
        return unmodelled(kReduce, "the input's rank does not match the pooling");
    const std::span<const int64_t> lead = input->dims.first(input->rank() - spatial);
    if (args.pool == Pool::Adaptive) {
        // Without output_size (older traces) only the read is counted, as for reductions.
        const auto size = spatialList(call, 1, spatial);
        if (size && !allAtLeast(*size, 0))
            return unmodelled(kReduce, "the output size is out of range");
        double outElements = size ? product(lead) : 0;
        for (const double s : size.value_or(std::vector<double>{}))
            outElements *= s;
        return figures(kReduce, input->numel(), input->bytes() + outElements * input->dtype.bytes,
                       input->dtype.precision);
    }
    const auto kernel = spatialList(call, args.kernel, spatial);
    auto stride = call.ints(args.stride);
    const auto padding = spatialList(call, args.padding, spatial);
    std::optional<std::vector<double>> dilation = std::vector<double>(spatial, 1.0);
    if (args.dilation >= 0)
        dilation = spatialList(call, args.dilation, spatial);
    const auto ceil = call.flag(args.ceilMode);
    if (!kernel || !stride || !padding || !dilation || !ceil)
        return notRecorded(kReduce, "the kernel, stride or padding (no Concrete Inputs) is");
    const auto strides = stride->empty() ? kernel : spatialList(call, args.stride, spatial);
    if (!strides || !allAtLeast(*kernel, 1) || !allAtLeast(*strides, 1) ||
        !allAtLeast(*padding, 0) || !allAtLeast(*dilation, 1))
        return unmodelled(kReduce, "the kernel, stride, padding or dilation is out of range");
    double outElements = product(lead), window = 1;
    const std::span<const int64_t> in = input->dims.last(spatial);
    for (size_t i = 0; i < spatial; ++i) {
        const double out =
            poolOut(real(in[i]), (*kernel)[i], (*strides)[i], (*padding)[i], (*dilation)[i], *ceil);
        if (out < 0)
            return unmodelled(kReduce, "the window is larger than the padded input");
        outElements *= out;
        window *= (*kernel)[i];
    }
    double bytes = input->bytes() + outElements * input->dtype.bytes;
    if (args.pool == Pool::Max)
        bytes += outElements * kInt64.bytes;  // the indices
    return figures(kReduce, outElements * window, bytes, input->dtype.precision);
}

}  // namespace kinetoscope::roofline::detail
