// The elementwise ops' work (op_work_internal.h): one FLOP per output element, the tensor
// inputs read, the broadcast output written at its promoted dtype; in place, out= and
// _foreach_ forms too, and _foreach_norm. docs/roofline.md, "Elementwise ops".
#include "core/roofline/op_work_internal.h"

namespace kinetoscope::roofline::detail {

namespace {

// The promoted dtype of tensor inputs (torch's rule, simplified): the highest category and
// width among the dimensioned tensors; a 0-dim tensor of a higher category wins.
DType promote(std::span<const Tensor> tensors)
{
    DType dimensioned, zeroDim;
    for (const Tensor& t : tensors) {
        DType& best = t.rank() > 0 ? dimensioned : zeroDim;
        if (best.bytes == 0 || rankOf(t.dtype) > rankOf(best))
            best = t.dtype;
    }
    if (dimensioned.bytes == 0)
        return zeroDim;
    if (zeroDim.bytes > 0 && isFloat(zeroDim.precision) && !isFloat(dimensioned.precision))
        return zeroDim;
    return dimensioned;
}

}  // namespace

OpWork elementwiseWork(const ElementwiseOp& op, Form form, const Call& call)
{
    const OpKind kind = op.kind;
    const bool inPlace = form == Form::InPlace || op.out == Out::Overwrite;
    std::vector<Tensor> tensors;  // the inputs, in argument order
    std::optional<Tensor> outArg;
    bool firstIsTensor = false;
    for (size_t i = 0; i < call.size(); ++i) {
        if (!call.at(i)->list.empty())
            return unmodelled(kind, "a TensorList argument in a non-list op");
        const auto t = call.tensor(i);
        if (!t) {
            if (!call.at(i)->dims.empty())
                return notRecorded(kind, "the dtype of a tensor argument is");
            continue;
        }
        if (i < 8 && (op.tensorArgs >> i & 1U)) {
            tensors.push_back(*t);
            firstIsTensor = firstIsTensor || i == 0;
        } else {
            outArg = t;
        }
    }
    if (tensors.empty())
        return notRecorded(kind, "a tensor argument's dtype is");
    if (inPlace && !firstIsTensor)
        return notRecorded(kind, "the written tensor's dtype is");
    if (op.out == Out::Where && tensors.size() < 2)
        return unmodelled(kind, "where(condition) alone (nonzero) is not modelled");

    std::vector<std::span<const int64_t>> shapes;
    shapes.reserve(tensors.size());
    for (const Tensor& t : tensors)
        shapes.push_back(t.dims);
    const auto outShape = broadcast(shapes);
    if (!outShape)
        return unmodelled(kind, "the tensor arguments do not broadcast");
    double outElements = product(*outShape);
    DType outType = promote(tensors);
    switch (op.out) {
    case Out::Bool:
        outType = kBool;
        break;
    case Out::First:
        outType = tensors.front().dtype;
        break;
    case Out::Where:
        outType = promote(std::span<const Tensor>(tensors).subspan(1));
        break;
    case Out::TrueDivide: {
        const std::string_view mode = call.concrete(2);
        if (!isFloat(outType.precision) && mode.find("trunc") == std::string_view::npos &&
            mode.find("floor") == std::string_view::npos)
            outType = kFloat32;
        break;
    }
    case Out::Promote:
    case Out::Overwrite:
    case Out::Dropout:
        break;
    }
    if (inPlace) {
        outElements = tensors.front().numel();
        outType = tensors.front().dtype;
    } else if (outArg) {
        outType = outArg->dtype;
    }
    double bytes = outElements * outType.bytes;
    if (op.out == Out::Dropout)
        bytes += outElements * kBool.bytes;
    for (size_t i = 0; i < tensors.size(); ++i) {
        if (i == 0 && op.out == Out::Overwrite)
            continue;
        bytes += tensors[i].bytes();
    }
    return figures(kind, outElements, bytes, call.widestPrecision());
}

// aten::_foreach_<op>(TensorList, TensorList | Tensor | Scalar | ScalarList, ...): the op
// applied to each tensor of the lists in turn. torch records a TensorList's sizes but not
// its dtype ("Input type" says "TensorList"), so a trace's foreach calls are unmodelled;
// a list whose type names a dtype is costed.
OpWork foreachWork(const ElementwiseOp& op, Form form, const Call& call)
{
    const OpKind kind = op.kind;
    const OpInput* self = call.at(0);
    if (!self || self->list.empty())
        return notRecorded(kind, "the TensorList's sizes are");
    std::vector<const OpInput*> lists;
    std::vector<Tensor> scalars;  // tensor (not list) arguments, each read once
    for (size_t i = 0; i < call.size(); ++i) {
        const OpInput* in = call.at(i);
        const bool isList = !in->list.empty() || trim(in->type) == "TensorList";
        if (isList) {
            if (in->list.size() != self->list.size())
                return unmodelled(kind, "the TensorLists differ in length");
            if (dtypeOf(in->type).bytes <= 0)
                return notRecorded(kind, "the TensorList's dtype (\"Input type\" says only "
                                         "TensorList) is");
            lists.push_back(in);
        } else if (const auto t = call.tensor(i)) {
            scalars.push_back(*t);
        }
    }
    const bool inPlace = form == Form::InPlace || op.out == Out::Overwrite;
    double flops = 0, bytes = 0;
    for (const Tensor& t : scalars)
        bytes += t.bytes();
    for (size_t j = 0; j < self->list.size(); ++j) {
        std::vector<Tensor> tensors;
        std::vector<std::span<const int64_t>> shapes;
        for (const OpInput* list : lists) {
            tensors.push_back(Tensor{list->list[j], dtypeOf(list->type)});
            shapes.emplace_back(list->list[j]);
        }
        for (const Tensor& t : scalars)
            shapes.push_back(t.dims);
        const auto outShape = broadcast(shapes);
        if (!outShape)
            return unmodelled(kind, "the tensors do not broadcast");
        const double outElements = inPlace ? tensors.front().numel() : product(*outShape);
        DType outType = inPlace ? tensors.front().dtype : promote(tensors);
        if (op.out == Out::Bool && !inPlace)
            outType = kBool;
        flops += outElements;
        bytes += outElements * outType.bytes;
        for (size_t i = 0; i < tensors.size(); ++i) {
            if (i == 0 && op.out == Out::Overwrite)
                continue;
            bytes += tensors[i].bytes();
        }
    }
    DType widest = dtypeOf(self->type);
    for (const OpInput* list : lists) {
        if (rankOf(dtypeOf(list->type)) > rankOf(widest))
            widest = dtypeOf(list->type);
    }
    return figures(kind, flops, bytes, widest.precision);
}

// aten::_foreach_norm(TensorList, ord, dtype?): one norm per tensor, 2 FLOPs per element.
OpWork foreachNormWork(const Call& call)
{
    const OpKind kind = OpKind::Reduction;
    const OpInput* self = call.at(0);
    if (!self || self->list.empty())
        return notRecorded(kind, "the TensorList's sizes are");
    const DType dtype = dtypeOf(self->type);
    if (dtype.bytes <= 0)
        return notRecorded(kind, "the TensorList's dtype (\"Input type\" says only TensorList) is");
    const DType out = call.dtypeArg(2).value_or(dtype);
    double elements = 0;
    for (const Dims& dims : self->list)
        elements += product(dims);
    const double norms = real(static_cast<int64_t>(self->list.size()));
    const double bytes = elements * dtype.bytes + norms * out.bytes;
    return figures(kind, 2 * elements, bytes, dtype.precision);
}

}  // namespace kinetoscope::roofline::detail
