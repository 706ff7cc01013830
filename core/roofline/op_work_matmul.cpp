// The matrix multiplications' work (op_work_internal.h): mm, addmm, the batched and grouped
// products, matmul, linear, mv and the fp8 and int8 GEMMs. 2·M·K·N FLOPs per product; the
// operands read once, the output written once. docs/roofline.md, "Matrix multiplications".
#include "core/roofline/op_work_internal.h"

#include <initializer_list>

namespace kinetoscope::roofline::detail {

namespace {

constexpr OpKind kMatmul = OpKind::Matmul;

// 2·M·K·N per matrix product; reads: the listed tensor arguments; writes: outElements.
OpWork gemm(const Call& call, double products, std::initializer_list<size_t> reads,
            double outElements, DType outType, Precision precision)
{
    double bytes = outElements * outType.bytes;
    for (const size_t i : reads) {
        if (const auto t = call.tensor(i))
            bytes += t->bytes();
    }
    return figures(kMatmul, 2 * products, bytes, precision);
}

}  // namespace

namespace {

// Two 2-D matrices at arguments `first` and `first` + 1: 2·M·K·N. `reads`: the tensor
// arguments read (a bias, scales); the output is written at `out`, or at the first matrix's
// dtype when `out` is no dtype (0 bytes).
OpWork matrixProduct(const Call& call, size_t first, std::initializer_list<size_t> reads,
                     DType out = {})
{
    const auto a = call.tensor(first);
    const auto b = call.tensor(first + 1);
    if (!a || !b)
        return notRecorded(kMatmul, "the matrices' shapes or dtypes are");
    if (a->rank() != 2 || b->rank() != 2 || a->size(1) != b->size(0))
        return unmodelled(kMatmul, "the matrices' shapes do not multiply");
    const int64_t m = a->size(0), k = a->size(1), n = b->size(1);
    return gemm(call, real(m) * real(k) * real(n), reads, real(m) * real(n),
                out.bytes > 0 ? out : a->dtype, a->dtype.precision);
}

}  // namespace

OpWork mmWork(const Call& call)
{
    return matrixProduct(call, 0, {0, 1});
}

// aten::addmm(bias, mat1, mat2): the bias is read at its own size; its add is not counted.
OpWork addmmWork(const Call& call)
{
    return matrixProduct(call, 1, {0, 1, 2});
}

namespace {

// bmm(a, b) with first = 0; baddbmm / addbmm(bias, a, b) with first = 1. addbmm sums the
// batch into one [M, N] output.
OpWork batchedWork(const Call& call, size_t first, bool sumBatch)
{
    const auto a = call.tensor(first);
    const auto b = call.tensor(first + 1);
    if (!a || !b)
        return notRecorded(kMatmul, "the batches' shapes or dtypes are");
    if (a->rank() != 3 || b->rank() != 3 || a->size(0) != b->size(0) || a->size(2) != b->size(1))
        return unmodelled(kMatmul, "the batches' shapes do not multiply");
    const double batch = real(a->size(0)), m = real(a->size(1)), k = real(a->size(2)),
                 n = real(b->size(2));
    const double out = (sumBatch ? 1 : batch) * m * n;
    if (first == 0)
        return gemm(call, batch * m * k * n, {0, 1}, out, a->dtype, a->dtype.precision);
    return gemm(call, batch * m * k * n, {0, 1, 2}, out, a->dtype, a->dtype.precision);
}

}  // namespace

OpWork bmmWork(const Call& call)
{
    return batchedWork(call, 0, false);
}
OpWork baddbmmWork(const Call& call)
{
    return batchedWork(call, 1, false);
}
OpWork addbmmWork(const Call& call)
{
    return batchedWork(call, 1, true);
}

// torch.matmul: 1-D operands are promoted to a row (left) or a column (right) and the
// added dimension dropped from the result; batch dimensions broadcast.
OpWork matmulWork(const Call& call)
{
    const auto a = call.tensor(size_t{0});
    const auto b = call.tensor(size_t{1});
    if (!a || !b)
        return notRecorded(kMatmul, "the operands' shapes or dtypes are");
    if (a->rank() == 0 || b->rank() == 0)
        return unmodelled(kMatmul, "matmul of a 0-dim tensor");
    const std::span<const int64_t> aBatch = a->dims.first(a->rank() >= 2 ? a->rank() - 2 : 0);
    const std::span<const int64_t> bBatch = b->dims.first(b->rank() >= 2 ? b->rank() - 2 : 0);
    const int64_t m = a->rank() == 1 ? 1 : a->size(-2);
    const int64_t k = a->size(-1);
    const int64_t k2 = b->rank() == 1 ? b->size(0) : b->size(-2);
    const int64_t n = b->rank() == 1 ? 1 : b->size(-1);
    if (k != k2)
        return unmodelled(kMatmul, "the operands' shapes do not multiply");
    const auto batch = broadcast2(aBatch, bBatch);
    if (!batch)
        return unmodelled(kMatmul, "the operands' batch dimensions do not broadcast");
    const double batchSize = product(*batch);
    const double products = batchSize * real(m) * real(k) * real(n);
    return gemm(call, products, {0, 1}, batchSize * real(m) * real(n), a->dtype,
                a->dtype.precision);
}

// aten::linear(input [..., K], weight [N, K], bias [N]?).
OpWork linearWork(const Call& call)
{
    const auto x = call.tensor(size_t{0});
    const auto w = call.tensor(size_t{1});
    if (!x || !w)
        return notRecorded(kMatmul, "the input's or weight's shape or dtype is");
    if (x->rank() == 0 || w->rank() == 0 || w->rank() > 2 || x->size(-1) != w->size(-1))
        return unmodelled(kMatmul, "the input and weight shapes do not multiply");
    const double rows = product(x->dims.first(x->rank() - 1));
    const double k = real(x->size(-1));
    const double n = w->rank() == 2 ? real(w->size(0)) : 1;
    return gemm(call, rows * k * n, {0, 1, 2}, rows * n, x->dtype, x->dtype.precision);
}

namespace {

// mv(mat [M, K], vec [K]) with first = 0; addmv(bias, mat, vec) with first = 1.
OpWork mvWork(const Call& call, size_t first)
{
    const auto a = call.tensor(first);
    const auto v = call.tensor(first + 1);
    if (!a || !v)
        return notRecorded(kMatmul, "the matrix's or vector's shape or dtype is");
    if (a->rank() != 2 || v->rank() != 1 || a->size(1) != v->size(0))
        return unmodelled(kMatmul, "the matrix and vector shapes do not multiply");
    const double m = real(a->size(0)), k = real(a->size(1));
    if (first == 0)
        return gemm(call, m * k, {0, 1}, m, a->dtype, a->dtype.precision);
    return gemm(call, m * k, {0, 1, 2}, m, a->dtype, a->dtype.precision);
}

}  // namespace

OpWork mvPlain(const Call& call)
{
    return mvWork(call, 0);
}
OpWork addmvWork(const Call& call)
{
    return mvWork(call, 1);
}

// aten::_scaled_mm(a fp8, b fp8, scale_a, scale_b, bias?, scale_result?, out_dtype?, ...):
// the output dtype is out_dtype when recorded; recorded as None it is a's dtype (torch's
// default); not recorded at all (no Concrete Inputs) it is taken as bf16.
OpWork scaledMmWork(const Call& call)
{
    DType out = kBFloat16;
    if (const auto recorded = call.dtypeArg(6))
        out = *recorded;
    else if (call.concreteRecorded() && call.recorded(6) == Recorded::None)
        out = DType{};  // the first matrix's
    return matrixProduct(call, 0, {0, 1, 2, 3, 4, 5}, out);
}

// aten::_int_mm(a int8, b int8) -> int32.
OpWork intMmWork(const Call& call)
{
    return matrixProduct(call, 0, {0, 1}, DType{Precision::Int, 4});
}

namespace {

// aten::_grouped_mm(a, b, offs?, bias?, out_dtype?) and
// aten::_scaled_grouped_mm(a, b, scale_a, scale_b, offs?, bias?, scale_result?, out_dtype?):
// the groups' products add up to a product of the recorded (padded) shapes, whatever the
// offsets: 2-D x 3-D [Mt, K] x [G, K, N] -> Mt·K·N; 3-D x 3-D [G, M, K] x [G, K, N] ->
// G·M·K·N; 3-D x 2-D [G, M, K] x [K, Nt] -> M·K·Nt; 2-D x 2-D [M, Kt] x [Kt, N] with G
// offsets -> M·Kt·N into a [G, M, N] output.
OpWork groupedMmWork(const Call& call, int8_t offs, int8_t outDtype, DType defaultOut,
                     bool useOperandDtype)
{
    const auto a = call.tensor(size_t{0});
    const auto b = call.tensor(size_t{1});
    if (!a || !b)
        return notRecorded(kMatmul, "the operands' shapes or dtypes are");
    DType out = useOperandDtype ? a->dtype : defaultOut;
    if (const auto recorded = call.dtypeArg(outDtype))
        out = *recorded;
    double products = 0, outElements = 0;
    if (a->rank() == 2 && b->rank() == 3 && a->size(1) == b->size(1)) {
        products = real(a->size(0)) * real(a->size(1)) * real(b->size(2));
        outElements = real(a->size(0)) * real(b->size(2));
    } else if (a->rank() == 3 && b->rank() == 3 && a->size(0) == b->size(0) &&
               a->size(2) == b->size(1)) {
        products = real(a->size(0)) * real(a->size(1)) * real(a->size(2)) * real(b->size(2));
        outElements = real(a->size(0)) * real(a->size(1)) * real(b->size(2));
    } else if (a->rank() == 3 && b->rank() == 2 && a->size(2) == b->size(0)) {
        products = real(a->size(1)) * real(a->size(2)) * real(b->size(1));
        outElements = real(a->size(1)) * real(b->size(1));
    } else if (a->rank() == 2 && b->rank() == 2 && a->size(1) == b->size(0)) {
        const auto offsets = call.tensor(offs);
        if (!offsets || offsets->rank() != 1)
            return notRecorded(kMatmul, "the group offsets (the output's group count) are");
        products = real(a->size(0)) * real(a->size(1)) * real(b->size(1));
        outElements = real(offsets->size(0)) * real(a->size(0)) * real(b->size(1));
    } else {
        return unmodelled(kMatmul, "the operands' shapes do not form a grouped product");
    }
    double bytes = outElements * out.bytes + call.readAllTensors();
    return figures(kMatmul, 2 * products, bytes, a->dtype.precision);
}

}  // namespace

OpWork groupedMmPlain(const Call& call)
{
    return groupedMmWork(call, 2, 4, {}, true);
}
OpWork scaledGroupedMmWork(const Call& call)
{
    return groupedMmWork(call, 4, 7, kBFloat16, false);
}

}  // namespace kinetoscope::roofline::detail
