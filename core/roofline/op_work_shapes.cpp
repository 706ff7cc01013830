// What every op model uses (op_work_internal.h): a call's recorded arguments read through
// bounds-checked accessors, tensor sizes multiplied in double (no integer overflow), dtype
// promotion's order, numpy broadcasting, and the figures themselves, refused with a reason
// when they come out beyond any real GPU's reach.
#include "core/roofline/op_work_internal.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace kinetoscope::roofline::detail {

namespace {

// Beyond this many FLOPs or bytes in one call the recorded sizes cannot be real: 1e24 bytes
// is a yottabyte, and a whole day of the fastest GPU is under 1e21 FLOPs.
constexpr double kAbsurd = 1e24;

}  // namespace

// Elements of a tensor of these sizes (1 for a 0-dim tensor). Sizes are non-negative here.
double product(std::span<const int64_t> dims)
{
    double elements = 1;
    for (const int64_t size : dims)
        elements *= real(size);
    return elements;
}

bool isFloat(Precision precision)
{
    return precision == Precision::Fp64 || precision == Precision::Fp32 ||
           precision == Precision::Fp16 || precision == Precision::Bf16 ||
           precision == Precision::Fp8;
}

// Orders dtypes as torch's type promotion does, roughly: floating beats integer, then
// the wider wins.
int rankOf(DType dtype)
{
    return (isFloat(dtype.precision) ? 100 : 0) + dtype.bytes;
}

// ---- Call ----

Call::Call(std::span<const OpInput> inputs) : inputs_(inputs)
{
    concreteRecorded_ = std::any_of(inputs.begin(), inputs.end(),
                                    [](const OpInput& in) { return !in.concrete.empty(); });
}

std::optional<Tensor> Call::tensor(size_t i) const
{
    const OpInput* in = at(i);
    if (!in || !in->list.empty())
        return std::nullopt;
    const DType dtype = dtypeOf(in->type);
    if (dtype.bytes <= 0)
        return std::nullopt;
    return Tensor{in->dims, dtype};
}

std::optional<Tensor> Call::tensor(int8_t i) const
{
    if (i < 0)
        return std::nullopt;
    return tensor(static_cast<size_t>(i));
}

std::string_view Call::concrete(size_t i) const
{
    const OpInput* in = at(i);
    return in ? trim(in->concrete) : std::string_view{};
}

Recorded Call::recorded(int8_t i) const
{
    if (i < 0 || static_cast<size_t>(i) >= inputs_.size())
        return Recorded::Missing;
    const OpInput& in = inputs_[static_cast<size_t>(i)];
    if (!trim(in.concrete).empty())
        return Recorded::Value;
    const bool none = trim(in.type).empty() && in.dims.empty() && in.list.empty();
    return none && concreteRecorded_ ? Recorded::None : Recorded::Missing;
}

std::optional<std::vector<int64_t>> Call::ints(int8_t i) const
{
    if (i < 0)
        return std::nullopt;
    return parseIntList(concrete(static_cast<size_t>(i)));
}

std::optional<int64_t> Call::integer(int8_t i) const
{
    if (i < 0)
        return std::nullopt;
    return parseInt(concrete(static_cast<size_t>(i)));
}

std::optional<bool> Call::flag(int8_t i) const
{
    if (i < 0)
        return std::nullopt;
    return parseBool(concrete(static_cast<size_t>(i)));
}

std::optional<std::vector<bool>> Call::flags(int8_t i) const
{
    if (i < 0)
        return std::nullopt;
    return parseBoolList(concrete(static_cast<size_t>(i)));
}

std::optional<DType> Call::dtypeArg(int8_t i) const
{
    const auto code = integer(i);
    return code ? dtypeOfCode(*code) : std::nullopt;
}

double Call::readAllTensors() const
{
    double bytes = 0;
    for (size_t i = 0; i < inputs_.size(); ++i) {
        if (const auto t = tensor(i))
            bytes += t->bytes();
    }
    return bytes;
}

Precision Call::widestPrecision() const
{
    DType widest;
    for (size_t i = 0; i < inputs_.size(); ++i) {
        const auto t = tensor(i);
        if (t && (widest.bytes == 0 || rankOf(t->dtype) > rankOf(widest)))
            widest = t->dtype;
    }
    return widest.precision;
}

// ---- Figures ----

OpWork unmodelled(OpKind kind, std::string reason)
{
    OpWork work;
    work.kind = kind;
    work.unmodelled = std::move(reason);
    return work;
}

OpWork figures(OpKind kind, double flops, double bytes, Precision precision)
{
    if (!std::isfinite(flops) || !std::isfinite(bytes) || flops > kAbsurd || bytes > kAbsurd ||
        flops < 0 || bytes < 0)
        return unmodelled(kind, "the recorded sizes are too large to be real");
    OpWork work;
    work.kind = kind;
    work.flops = flops;
    work.bytes = bytes;
    work.precision = precision;
    return work;
}

OpWork notRecorded(OpKind kind, std::string_view what)
{
    return unmodelled(kind, std::string(what) + " not recorded");
}

// The broadcast of several shapes (numpy rules), or nullopt when they do not broadcast.
std::optional<Dims> broadcast(std::span<const std::span<const int64_t>> shapes)
{
    size_t rank = 0;
    for (const auto& shape : shapes)
        rank = std::max(rank, shape.size());
    Dims out(rank, 1);
    for (const auto& shape : shapes) {
        const size_t offset = rank - shape.size();
        for (size_t i = 0; i < shape.size(); ++i) {
            int64_t& target = out[offset + i];
            const int64_t size = shape[i];
            if (size == target || size == 1)
                continue;
            if (target != 1)
                return std::nullopt;
            target = size;
        }
    }
    return out;
}

std::optional<Dims> broadcast2(std::span<const int64_t> a, std::span<const int64_t> b)
{
    const std::span<const int64_t> shapes[] = {a, b};
    return broadcast(shapes);
}

// ---- Argument lists ----

// A per-spatial-dimension list ("[2, 2]", or one value for all dimensions).
std::optional<std::vector<double>> spatialList(const Call& call, int8_t index, size_t spatial)
{
    const auto values = call.ints(index);
    if (!values || (values->size() != 1 && values->size() != spatial))
        return std::nullopt;
    std::vector<double> out(spatial);
    for (size_t i = 0; i < spatial; ++i)
        out[i] = real(values->size() == 1 ? values->front() : (*values)[i]);
    return out;
}

bool allAtLeast(const std::vector<double>& values, double least)
{
    return std::all_of(values.begin(), values.end(), [least](double v) { return v >= least; });
}

}  // namespace kinetoscope::roofline::detail
