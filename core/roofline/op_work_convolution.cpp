// The convolutions' work (op_work_internal.h): the forward convolutions (plain, transposed,
// and the cudnn / miopen / mkldnn entry points) from their stride, padding and dilation, and
// the backward ones from the grad_output's sizes. docs/roofline.md, "Convolutions".
#include "core/roofline/op_work_internal.h"

#include <algorithm>
#include <cmath>

namespace kinetoscope::roofline::detail {

namespace {

constexpr OpKind kConv = OpKind::Convolution;

// The input and weight of a convolution, with the batch and the spatial sizes.
struct ConvShapes
{
    Tensor input;
    Tensor weight;
    double batch = 1;                  // N (1 for an unbatched input)
    std::span<const int64_t> spatial;  // the input's spatial sizes
};

std::optional<ConvShapes> convShapes(const Tensor& input, const Tensor& weight)
{
    if (weight.rank() < 3)
        return std::nullopt;
    const size_t spatial = weight.rank() - 2;
    ConvShapes shapes{input, weight, 1, {}};
    if (input.rank() == weight.rank())
        shapes.batch = real(input.size(0));
    else if (input.rank() != weight.rank() - 1)
        return std::nullopt;
    shapes.spatial = input.dims.last(spatial);
    return shapes;
}

}  // namespace

OpWork convForwardWork(const ConvArgs& args, const Call& call)
{
    const auto input = call.tensor(size_t{0});
    const auto weight = call.tensor(size_t{1});
    if (!input || !weight)
        return notRecorded(kConv, "the input's or weight's shape or dtype is");
    const auto shapes = convShapes(*input, *weight);
    if (!shapes)
        return unmodelled(kConv, "the input and weight ranks do not match a convolution");
    const size_t spatial = weight->rank() - 2;

    bool transposed = args.fixedTransposed;
    if (args.transposed >= 0) {
        const auto flag = call.flag(args.transposed);
        if (!flag)
            return notRecorded(kConv, "the transposed flag is");
        transposed = *flag;
    }
    // conv1d/2d/3d accept padding="same" or "valid".
    std::string_view padText = args.padding >= 0 ? call.concrete(size_t(args.padding)) : "";
    if (padText.size() >= 2 && (padText.front() == '\'' || padText.front() == '"'))
        padText = padText.substr(1, padText.size() - 2);
    const bool same = padText == "same";
    std::optional<std::vector<double>> padding;
    if (same || padText == "valid")
        padding = std::vector<double>(spatial, 0.0);
    else
        padding = spatialList(call, args.padding, spatial);
    const auto stride = spatialList(call, args.stride, spatial);
    const auto dilation = spatialList(call, args.dilation, spatial);
    if (!stride || !padding || !dilation)
        return notRecorded(kConv, "stride, padding or dilation (no Concrete Inputs) is");
    if (!allAtLeast(*stride, 1) || !allAtLeast(*dilation, 1) || !allAtLeast(*padding, 0))
        return unmodelled(kConv, "stride, padding or dilation out of range");

    double outChannels = real(weight->size(0));
    std::vector<double> outputPadding(spatial, 0.0);
    if (transposed) {
        const auto groups = call.integer(args.groups);
        const auto extra = spatialList(call, args.outputPadding, spatial);
        if (!groups || !extra)
            return notRecorded(kConv, "groups or output_padding of the transposed convolution is");
        if (*groups < 1 || !allAtLeast(*extra, 0))
            return unmodelled(kConv, "groups or output_padding out of range");
        outChannels = real(weight->size(1)) * real(*groups);
        outputPadding = *extra;
    }
    double outSpatial = 1;
    for (size_t i = 0; i < spatial; ++i) {
        const double in = real(shapes->spatial[i]);
        const double kernel = real(weight->size(static_cast<ptrdiff_t>(i) + 2));
        const double reach = (*dilation)[i] * (kernel - 1);  // the kernel's extent - 1
        double out = in;
        if (transposed) {
            out = (in - 1) * (*stride)[i] - 2 * (*padding)[i] + reach + outputPadding[i] + 1;
        } else if (!same) {
            out = std::floor((in + 2 * (*padding)[i] - reach - 1) / (*stride)[i]) + 1;
        }
        if (!(out >= 0))
            return unmodelled(kConv, "the kernel is larger than the padded input");
        outSpatial *= out;
    }

    // A multiply-add per weight element per position the kernel visits: the output's
    // positions, or the input's for a transposed convolution.
    const double positions = transposed ? product(shapes->spatial) : outSpatial;
    const double flops = 2 * shapes->batch * weight->numel() * positions;
    const double outElements = shapes->batch * outChannels * outSpatial;
    double bytes = input->bytes() + weight->bytes() + outElements * input->dtype.bytes;
    if (const auto bias = call.tensor(args.bias))
        bytes += bias->bytes();
    return figures(kConv, flops, bytes, input->dtype.precision);
}

// Each computed gradient (input, weight) costs the forward's FLOPs; the grad_output's
// sizes are the forward's output sizes, so no stride is needed. A gradient needs the
// other operand read: grad_input the weight, grad_weight the input.
OpWork convBackwardWork(const ConvBackwardArgs& args, const Call& call)
{
    const auto gradOut = call.tensor(args.gradOutput);
    const auto input = call.tensor(args.input);
    const auto weight = call.tensor(args.weight);
    if (!gradOut || !input || !weight)
        return notRecorded(kConv, "the grad_output's, input's or weight's shape or dtype is");
    const auto shapes = convShapes(*input, *weight);
    if (!shapes || gradOut->rank() != input->rank() || input->rank() < 2)
        return unmodelled(kConv, "the shapes do not match a convolution");
    const size_t channel = input->rank() == weight->rank() ? 1 : 0;
    const std::span<const int64_t> gradSpatial = gradOut->dims.last(weight->rank() - 2);

    bool transposed = false;
    if (args.transposed >= 0) {
        if (const auto flag = call.flag(args.transposed)) {
            transposed = *flag;
        } else {
            // Not recorded: let the channel counts decide, or fail.
            const int64_t perGroup = weight->size(1);
            const bool plain = weight->size(0) == gradOut->dims[channel] && perGroup > 0 &&
                               input->dims[channel] % perGroup == 0;
            const bool trans = weight->size(0) == input->dims[channel] && perGroup > 0 &&
                               gradOut->dims[channel] % perGroup == 0;
            if (plain == trans && !(plain && product(gradSpatial) == product(shapes->spatial)))
                return notRecorded(kConv, "whether the convolution is transposed is");
            transposed = trans && !plain;
        }
    }
    // Not recorded, the mask is taken as grad_input and grad_weight (what autograd asks of
    // every layer but one whose input needs no gradient).
    std::vector<bool> mask{true, true, false};
    if (const auto recorded = call.flags(args.outputMask); recorded && recorded->size() >= 2)
        mask = *recorded;
    mask.resize(3, false);

    const double positions = transposed ? product(shapes->spatial) : product(gradSpatial);
    const double perGradient = 2 * shapes->batch * weight->numel() * positions;
    double flops = 0, bytes = gradOut->bytes();
    if (mask[0]) {
        flops += perGradient;
        bytes += weight->bytes() + input->bytes();  // read the weight, write grad_input
    }
    if (mask[1]) {
        flops += perGradient;
        bytes += input->bytes() + weight->bytes();  // read the input, write grad_weight
    }
    if (mask[2])
        bytes += real(gradOut->dims[channel]) * gradOut->dtype.bytes;
    return figures(kConv, flops, bytes, input->dtype.precision);
}

namespace {

// cudnn/miopen_convolution_backward_input(self_size, grad_output, weight, ...) and
// _backward_weight(weight_size, grad_output, self, ...): the missing operand's sizes are a
// list argument torch recorded only with Concrete Inputs.
OpWork convBackwardPartWork(const Call& call, bool weightGrad)
{
    const auto sizes = call.ints(0);
    const auto gradOut = call.tensor(size_t{1});
    const auto other = call.tensor(size_t{2});
    if (!gradOut || !other)
        return notRecorded(kConv, "the grad_output's or operand's shape or dtype is");
    if (!sizes)
        return notRecorded(kConv, weightGrad ? "the weight's size (weight_size) is"
                                             : "the input's size (self_size) is");
    if (std::any_of(sizes->begin(), sizes->end(), [](int64_t s) { return s < 0; }))
        return unmodelled(kConv, "negative size in the recorded arguments");
    const Dims weightDims = weightGrad ? *sizes : Dims(other->dims.begin(), other->dims.end());
    if (weightDims.size() < 3 || gradOut->rank() != weightDims.size())
        return unmodelled(kConv, "the shapes do not match a convolution");
    const double flops = 2 * real(gradOut->size(0)) * product(weightDims) *
                         product(gradOut->dims.last(weightDims.size() - 2));
    const double bytes = gradOut->bytes() + other->bytes() + product(*sizes) * gradOut->dtype.bytes;
    return figures(kConv, flops, bytes, gradOut->dtype.precision);
}

}  // namespace

OpWork cudnnBackwardInput(const Call& call)
{
    return convBackwardPartWork(call, false);
}
OpWork cudnnBackwardWeight(const Call& call)
{
    return convBackwardPartWork(call, true);
}

}  // namespace kinetoscope::roofline::detail
