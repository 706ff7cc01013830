// Scaled dot-product attention's work (op_work_internal.h), forward and backward, for the
// SDPA, flash and memory-efficient entry points: QK^T and PV over the score pairs a causal
// mask keeps. docs/roofline.md, "Attention".
#include "core/roofline/op_work_internal.h"

namespace kinetoscope::roofline::detail {

namespace {

constexpr OpKind kAttention = OpKind::Attention;

// The fraction of the L x S score matrix a causal mask keeps, by area (the diagonal's
// own entries ignored). Top-left: query i sees keys 0..i; bottom-right: keys 0..i+S-L.
double causalFraction(double l, double s, Align align)
{
    if (l <= 0 || s <= 0)
        return 0;
    if (align == Align::TopLeft)
        return l <= s ? l / (2 * s) : 1 - s / (2 * l);
    return l <= s ? 1 - l / (2 * s) : s / (2 * l);
}

}  // namespace

OpWork attentionWork(const AttentionArgs& args, const Call& call)
{
    const size_t first = args.backward ? 1 : 0;
    const auto q = call.tensor(first);
    const auto k = call.tensor(first + 1);
    const auto v = call.tensor(first + 2);
    if (!q || !k || !v)
        return notRecorded(kAttention, "the query's, key's or value's shape or dtype is");
    if (const auto packed = call.tensor(args.varlen); packed && packed->rank() >= 1)
        return unmodelled(kAttention,
                          "packed variable-length batch: the sequence lengths are not recorded");
    for (const int8_t window : {args.windowLeft, args.windowRight}) {
        if (const auto size = call.integer(window); size && *size >= 0)
            return unmodelled(kAttention, "sliding-window attention is not modelled");
    }
    double lead = 0, l = 0, s = 0, e = 0, ev = 0;
    if (args.layout == Layout::BHLE) {
        if (q->rank() < 2 || k->rank() < 2 || v->rank() < 2)
            return unmodelled(kAttention, "query, key and value need at least two dimensions");
        lead = product(q->dims.first(q->rank() - 2));
        l = real(q->size(-2));
        e = real(q->size(-1));
        s = real(k->size(-2));
        if (k->size(-1) != q->size(-1) || v->size(-2) != k->size(-2))
            return unmodelled(kAttention, "the query, key and value shapes disagree");
        ev = real(v->size(-1));
    } else {
        if (q->rank() != 4 || k->rank() != 4 || v->rank() != 4)
            return unmodelled(kAttention, "query, key and value are not [B, L, H, E]");
        lead = real(q->size(0)) * real(q->size(2));
        l = real(q->size(1));
        e = real(q->size(3));
        s = real(k->size(1));
        if (k->size(3) != q->size(3) || v->size(1) != k->size(1))
            return unmodelled(kAttention, "the query, key and value shapes disagree");
        ev = real(v->size(3));
    }
    double fraction = 1;
    if (args.causalArg == CausalArg::Flag) {
        if (call.flag(args.causal).value_or(false))
            fraction = causalFraction(l, s, args.align);
    } else if (const auto type = call.integer(args.causal); type && (*type == 1 || *type == 2)) {
        fraction = causalFraction(l, s, *type == 1 ? Align::TopLeft : Align::BottomRight);
    }
    // Score pairs computed; per pair a multiply-add per head dimension of each product.
    const double pairs = lead * l * s * fraction;
    double flops = 0, bytes = call.readAllTensors();
    if (args.backward) {
        // QK^T recomputed (E), dP = dO V^T (Ev), dV = P^T dO (Ev), dQ = dS K (E),
        // dK = dS^T Q (E): 2.5x the forward when E == Ev.
        flops = 2 * pairs * (3 * e + 2 * ev);
        bytes += q->bytes() + k->bytes() + v->bytes();  // dq, dk, dv written
    } else {
        flops = 2 * pairs * (e + ev);             // QK^T and PV
        bytes += lead * l * ev * q->dtype.bytes;  // the output written
    }
    return figures(kAttention, flops, bytes, q->dtype.precision);
}

}  // namespace kinetoscope::roofline::detail
