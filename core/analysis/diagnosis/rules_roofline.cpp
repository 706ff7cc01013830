// Rules from the roofline (roofline_gaps.h): below-roofline (GEMMs and convolutions far
// below what their roof allows for their shape) and attention-unfused (attention on the
// math path). Their gains are the causal model's: the step replayed with those kernels at
// the share of the roof well-tuned kernels reach.
#include "core/analysis/diagnosis/roof_findings.h"
#include "core/analysis/diagnosis/rule_helpers.h"
#include "core/analysis/diagnosis/rules.h"
#include "core/analysis/name_match.h"
#include "core/analysis/roofline_gaps.h"
#include "core/trace/format_description.h"

#include <algorithm>
#include <cctype>

namespace kinetoscope::analysis::rules {

namespace {

using roofline::OpRoofline;

// Attention on a fused backend, or PyTorch's reason why not.
constexpr const char* kFusedAttentionSnippet =
    "from torch.nn.attention import SDPBackend, sdpa_kernel\n"
    "with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION]):\n"
    "    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)\n";

// Input shapes without the trailing non-tensor arguments ("[[8, 16], [16, 4], [], []]" reads
// "[[8, 16], [16, 4]]"), for a sentence.
std::string tensorShapes(std::string shapes)
{
    while (shapes.size() > 4 && shapes.ends_with(", []]"))
        shapes.erase(shapes.size() - 5, 4);
    return shapes;
}

std::string rateText(double tflops)
{
    return format::flopRate(tflops * 1e12);
}

// "aten::mm [[4096, 1000], [1000, 512]] reaches 23.4 TFLOP/s, 9.8 % of its bf16 roof (312
// TFLOP/s at 85.3 FLOP/byte)"
std::string rowReading(const OpRoofline& row)
{
    const roofline::Rating& r = row.rating;
    std::string text = row.name + " " + format::clip(tensorShapes(row.inputShapes), 100) +
                       " reaches " + rateText(r.achievedTflops) + ", " +
                       format::percent(r.shareOfRoof) + " of what its roof allows (" +
                       rateText(r.attainableTflops) + " at " + format::number(r.intensity) +
                       " FLOP/byte, " + roofline::precisionName(row.precision) + ")";
    return text;
}

// A GEMM, convolution or attention group among a finding's ops: its name and input shapes.
std::string opWithShapes(const OpRoofline& row)
{
    return row.name + " " + tensorShapes(row.inputShapes);
}

}  // namespace

void belowRoofline(const DiagnosisInput& in, std::vector<Finding>& out)
{
    if (!judgeable(in))
        return;
    const std::vector<GapRow> rows = rowsWith(in, RoofGap::BelowRoof);
    const double gain = causal(in).gain(Cause::BelowRoof);
    const double step = stepMeanNs(in);
    if (rows.empty() || share(gain, step) < kMinRoofGainShare)
        return;
    double windowNs = 0;
    const double meanShareOfRoof = meanShare(rows, windowNs);
    double smallNs = 0, convNs = 0, attentionNs = 0, gemmNs = 0, transposeNs = 0;
    for (const GapRow& g : rows) {
        smallNs += g.verdict.fill < 0.5 ? double(g.row->windowDeviceNs) : 0;
        attentionNs +=
            g.row->kind == roofline::OpKind::Attention ? double(g.row->windowDeviceNs) : 0;
        gemmNs += g.row->kind == roofline::OpKind::Matmul ? double(g.row->windowDeviceNs) : 0;
        if (g.row->kind != roofline::OpKind::Convolution)
            continue;
        convNs += double(g.row->windowDeviceNs);
        // cuDNN's layout conversions around an NCHW convolution (its Tensor Core kernels work in
        // NHWC).
        for (const auto& [kernel, ns] : g.row->kernels)
            if (containsNoCase(kernel, "nchwtonhwc") || containsNoCase(kernel, "nhwctonchw"))
                transposeNs += double(ns) * double(g.row->windowDeviceNs) /
                               double(std::max<int64_t>(1, g.row->deviceNs));
    }
    Finding f;
    f.id = "below-roofline";
    f.basis = SeverityBasis::DeviceGain;
    // Named by what they are: "Convolutions", "GEMMs and attention", ...
    std::vector<std::string> kinds;
    for (const auto& [ns, kind] :
         {std::pair{gemmNs, "GEMMs"}, {convNs, "convolutions"}, {attentionNs, "attention"}})
        if (ns > 0)
            kinds.emplace_back(
                kinds.empty() ? std::string(1, char(std::toupper(kind[0]))) + (kind + 1) : kind);
    std::string what = kinds.front();
    for (size_t i = 1; i < kinds.size(); ++i)
        what += (i + 1 == kinds.size() ? " and " : ", ") + kinds[i];
    const bool one = kinds.size() == 1 && attentionNs > 0;
    f.title = what + (one ? " runs at " : " run at ") + format::percent(meanShareOfRoof) +
              " of what " + deviceName(in) + " allows for " +
              (one ? "its shapes (" : "their shapes (") +
              format::duration(windowNs / double(in.summary.steps.steps.size())) + " per step)";
    f.explanation = rowReading(*rows.front().row) + ". Well-tuned kernels reach about " +
                    format::percent(rows.front().verdict.targetShare) +
                    " of the roof on such a shape; at that share these ops would make the step " +
                    format::duration(gain) + " shorter.";
    if (smallNs > 0.5 * windowNs)
        f.explanation +=
            " Most of them are too small to fill the GPU: their outputs split into fewer tiles "
            "than it "
            "has SMs, so most SMs idle; the target is scaled down to the share they can fill, and "
            "more work per GEMM (a larger batch, one GEMM for Q, K and V, grouped GEMMs) is the "
            "fix.";
    const bool amd = trace::detectGpuVendor(in.model) == trace::GpuVendor::Amd;
    if (transposeNs > 0)
        f.explanation += " Around the convolutions cuDNN converts NCHW to NHWC and back (" +
                         format::duration(transposeNs / double(in.summary.steps.steps.size())) +
                         " per step in its layout kernels): its Tensor Core kernels work in NHWC.";
    if (causal(in).afterOthers(Cause::BelowRoof) > 2 * gain + 1e6)
        f.explanation += " The host sets the pace today: this saves " + format::duration(gain) +
                         " on its own, up to " +
                         format::duration(causal(in).afterOthers(Cause::BelowRoof)) +
                         " once the host-side findings are fixed.";
    addRoofEvidence(in, rows, Cause::BelowRoof, windowNs, meanShareOfRoof, f, opWithShapes);
    f.estimatedGainNs = gain;
    f.gainMethod =
        "the step replayed with these ops' kernels at the share of their roof well-tuned kernels "
        "reach "
        "for their shape (60 % of the compute roof; of the memory roof 70 % for a GEMM, 50 % for a "
        "convolution; scaled by the share of SMs a GEMM's output tiles fill; never under 3 µs a "
        "kernel)";
    if (attentionNs > 0.5 * windowNs) {
        f.fix = "Attention: run it on the FlashAttention or cuDNN backend (16-bit inputs, a causal "
                "flag rather than "
                "a dense mask, head dimensions a multiple of 8 up to 256); requiring those "
                "backends makes PyTorch "
                "say why one is refused.";
        f.snippet = kFusedAttentionSnippet;
    } else if (convNs > 0.5 * windowNs && amd) {
        f.fix = "Convolutions: let MIOpen search its kernels for these shapes "
                "(torch.backends.cudnn.benchmark also "
                "drives MIOpen's find; MIOPEN_FIND_MODE=NORMAL searches fully), and measure "
                "channels_last: MIOpen's "
                "NHWC kernels cover fewer cases than cuDNN's.";
        f.snippet = "torch.backends.cudnn.benchmark = True  # MIOpen's find on ROCm\n"
                    "# export MIOPEN_FIND_MODE=NORMAL before starting Python\n";
    } else if (convNs > 0.5 * windowNs) {
        f.fix = "Convolutions: use the channels_last memory format (cuDNN's Tensor Core kernels, "
                "TF32 and 16-bit, "
                "work in NHWC; NCHW costs transposes or slower kernels) and let cuDNN pick its "
                "fastest algorithm "
                "for these shapes (cudnn.benchmark).";
        f.snippet = "torch.backends.cudnn.benchmark = True\n"
                    "model = model.to(memory_format=torch.channels_last)\n"
                    "x = x.to(memory_format=torch.channels_last)\n";
    } else if (smallNs > 0.5 * windowNs) {
        f.fix = "Give each GEMM more work: a larger batch, fused projections (one Linear for Q, K "
                "and V), or "
                "grouped GEMMs for many small experts; torch.compile can also pick better kernels "
                "for these shapes.";
        f.snippet = "qkv = torch.nn.Linear(d_model, 3 * d_model)  # one GEMM instead of three\n"
                    "q, k, v = qkv(x).chunk(3, dim=-1)\n";
    } else {
        f.fix = "Make the operands contiguous where a transposed or strided input forces a slower "
                "kernel, and let "
                "torch.compile tune GEMM kernels for these shapes (mode=\"max-autotune\").";
        f.snippet = "model = torch.compile(model, mode=\"max-autotune\")  # autotunes GEMM kernels "
                    "per shape\n";
    }
    out.push_back(std::move(f));
}

void attentionUnfused(const DiagnosisInput& in, std::vector<Finding>& out)
{
    if (!judgeable(in))
        return;
    const std::vector<GapRow> rows = rowsWith(in, RoofGap::UnfusedAttention);
    const double gain = causal(in).gain(Cause::UnfusedAttention);
    const double step = stepMeanNs(in);
    if (rows.empty() || share(gain, step) < kMinRoofGainShare)
        return;
    double windowNs = 0;
    const double meanShareOfRoof = meanShare(rows, windowNs);
    const bool fp32 = std::any_of(rows.begin(), rows.end(), [](const GapRow& g) {
        return g.row->precision == roofline::Precision::Fp32;
    });
    Finding f;
    f.id = "attention-unfused";
    f.basis = SeverityBasis::DeviceGain;
    f.title = "Attention runs on separate GEMM and softmax kernels, at " +
              format::percent(meanShareOfRoof) + " of its roof (" +
              format::duration(windowNs / double(in.summary.steps.steps.size())) + " per step)";
    f.explanation = rowReading(*rows.front().row) +
                    ", on unfused kernels: the scores matrix goes to memory and back between them. "
                    "A fused kernel "
                    "(FlashAttention, cuDNN attention) keeps it on chip and reaches about " +
                    format::percent(kAttentionTargetShare) + " of the roof; the step would be " +
                    format::duration(gain) + " shorter.";
    if (fp32)
        f.explanation += " Its inputs are fp32, which no fused kernel takes: PyTorch falls back to "
                         "the math path.";
    addRoofEvidence(in, rows, Cause::UnfusedAttention, windowNs, meanShareOfRoof, f, opWithShapes);
    f.estimatedGainNs = gain;
    f.gainMethod = "the step replayed with these attention calls' kernels at " +
                   format::percent(kAttentionTargetShare) +
                   " of their roof (what FlashAttention-2 reaches); never under 3 µs a kernel";
    f.fix = std::string(fp32 ? "Run attention in bf16 or fp16 (autocast), " : "Give ") +
            "scaled_dot_product_attention inputs a fused kernel takes: a causal flag instead of a "
            "dense mask, "
            "head dimensions a multiple of 8 up to 256, contiguous q, k, v. Requiring the fused "
            "backends makes "
            "PyTorch say why one is refused.";
    f.snippet = kFusedAttentionSnippet;
    out.push_back(std::move(f));
}

}  // namespace kinetoscope::analysis::rules
