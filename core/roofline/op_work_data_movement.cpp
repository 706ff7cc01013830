// The data movement ops' work (op_work_internal.h): concatenation, gathers (index_select,
// embedding, gather) and the embedding backward; kind Copy, one FLOP per element moved.
// docs/roofline.md, "Data movement".
#include "core/roofline/op_work_internal.h"

#include <algorithm>

namespace kinetoscope::roofline::detail {

namespace {

constexpr OpKind kCopy = OpKind::Copy;

// A gather: the index read, the gathered rows read from the source, the output written.
OpWork gatherFigures(const Tensor& source, const Tensor& index, double outElements)
{
    const double bytes = index.bytes() + 2 * outElements * source.dtype.bytes;
    return figures(kCopy, outElements, bytes, source.dtype.precision);
}

}  // namespace

// aten::cat(TensorList, dim): every tensor read, their sum written.
OpWork catWork(const Call& call)
{
    const OpInput* list = call.at(0);
    if (!list || list->list.empty())
        return notRecorded(kCopy, "the TensorList's sizes are");
    const DType dtype = dtypeOf(list->type);
    if (dtype.bytes <= 0)
        return notRecorded(kCopy,
                           "the TensorList's dtype (\"Input type\" says only TensorList) is");
    double elements = 0;
    for (const Dims& dims : list->list)
        elements += product(dims);
    return figures(kCopy, elements, 2 * elements * dtype.bytes, dtype.precision);
}

// aten::index_select(self, dim, index).
OpWork indexSelectWork(const Call& call)
{
    const auto self = call.tensor(size_t{0});
    const auto index = call.tensor(size_t{2});
    if (!self || !index)
        return notRecorded(kCopy, "the source's or index's shape or dtype is");
    int64_t dim = 0;
    if (const auto recorded = call.integer(1))
        dim = *recorded;
    else if (self->rank() > 1)
        return notRecorded(kCopy, "the selected dimension is");
    const int64_t rank = static_cast<int64_t>(std::max<size_t>(self->rank(), 1));
    if (dim < -rank || dim >= rank)
        return unmodelled(kCopy, "the selected dimension is out of range");
    double rest = 1;
    for (size_t i = 0; i < self->rank(); ++i) {
        if (static_cast<int64_t>(i) != (dim < 0 ? dim + rank : dim))
            rest *= real(self->dims[i]);
    }
    return gatherFigures(*self, *index, rest * index->numel());
}

// aten::embedding(weight [V, D], indices): one row per index.
OpWork embeddingWork(const Call& call)
{
    const auto weight = call.tensor(size_t{0});
    const auto indices = call.tensor(size_t{1});
    if (!weight || !indices)
        return notRecorded(kCopy, "the weight's or indices' shape or dtype is");
    if (weight->rank() != 2)
        return unmodelled(kCopy, "the embedding weight is not 2-D");
    return gatherFigures(*weight, *indices, indices->numel() * real(weight->size(1)));
}

// aten::gather(self, dim, index): the output has the index's shape.
OpWork gatherWork(const Call& call)
{
    const auto self = call.tensor(size_t{0});
    const auto index = call.tensor(size_t{2});
    if (!self || !index)
        return notRecorded(kCopy, "the source's or index's shape or dtype is");
    return gatherFigures(*self, *index, index->numel());
}

// aten::embedding_dense_backward / embedding_backward(grad [..., D], indices, num_weights,
// ...): the gradient rows added into a [num_weights, D] gradient, which is written whole.
OpWork embeddingBackwardWork(const Call& call)
{
    const auto grad = call.tensor(size_t{0});
    const auto indices = call.tensor(size_t{1});
    if (!grad || !indices)
        return notRecorded(kCopy, "the gradient's or indices' shape or dtype is");
    const auto rows = call.integer(2);
    if (!rows)
        return notRecorded(kCopy, "num_weights is");
    if (*rows < 0 || grad->rank() == 0)
        return unmodelled(kCopy, "num_weights or the gradient's shape is out of range");
    const double written = real(*rows) * real(grad->size(-1));
    const double bytes = grad->bytes() + indices->bytes() + written * grad->dtype.bytes;
    return figures(kCopy, grad->numel(), bytes, grad->dtype.precision);
}

}  // namespace kinetoscope::roofline::detail
