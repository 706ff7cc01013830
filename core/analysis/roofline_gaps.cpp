#include "core/analysis/roofline_gaps.h"

#include "core/analysis/name_match.h"
#include "core/analysis/tensor_cores.h"

#include <algorithm>
#include <cmath>

namespace kinetoscope::analysis {

using namespace kinetoscope::roofline;

namespace {

int64_t product(const std::vector<int64_t>& dims, size_t from, size_t to)
{
    int64_t p = 1;
    for (size_t i = from; i < to && i < dims.size(); ++i)
        p = dims[i] > 0 && p < (int64_t(1) << 40) ? p * dims[i] : p;
    return p;
}

// Output tiles of kGemmTile x kGemmTile a GEMM op's result splits into; 0 when the shapes
// do not say (a convolution, an op without recorded matrices).
double gemmTiles(const OpRoofline& row)
{
    std::vector<OpInput> inputs = opInputsFromDims(row.inputShapes);
    std::vector<const std::vector<int64_t>*> matrices;
    for (const OpInput& in : inputs)
        if (in.dims.size() >= 2)
            matrices.push_back(&in.dims);
    const bool withBias = row.name == "aten::addmm" || row.name == "aten::baddbmm" || row.name == "aten::addbmm";
    if (withBias && inputs.size() >= 3 && inputs[0].dims.size() >= 2 && !matrices.empty())
        matrices.erase(matrices.begin());  // a 2-D bias [M, N] comes first
    if (matrices.size() < 2)
        return 0;
    const std::vector<int64_t>& a = *matrices[0];
    const std::vector<int64_t>& b = *matrices[1];
    int64_t m = 0, n = 0, batch = 1;
    if (row.name == "aten::linear") {
        m = product(a, 0, a.size() - 1);
        n = b.front();
    } else {
        if (a.size() < 2)
            return 0;
        m = a[a.size() - 2];
        n = b.back();
        batch = product(a, 0, a.size() - 2);
    }
    if (m <= 0 || n <= 0)
        return 0;
    return double(batch) * std::ceil(double(m) / kGemmTile) * std::ceil(double(n) / kGemmTile);
}

int smCount(const Roofline& roofline, const trace::TraceModel& model)
{
    const auto& devices = model.metadata().devices;
    for (const trace::DeviceInfo& d : devices)
        if (d.id == roofline.deviceIndex)
            return d.numSms;
    return devices.size() == 1 ? devices.front().numSms : -1;
}

}  // namespace

bool isFusedAttentionKernel(std::string_view kernelName)
{
    for (std::string_view word : {"flash", "fmha", "attention", "attn", "mha_"})
        if (containsNoCase(kernelName, word))
            return true;
    return false;
}

RoofVerdict judgeRoof(const OpRoofline& row, const Roofline& roofline, int numSms)
{
    RoofVerdict v;
    const Rating& r = row.rating;
    if (!row.modelled() || !isMatrixKind(row.kind) || r.attainableTflops <= 0 || r.abovePeak || row.calls <= 0 ||
        row.deviceNs <= 0)
        return v;
    const bool matrixUnits = roofline.peaks && (roofline.peaks->fp16Tflops > 0 || roofline.peaks->tf32Tflops > 0);
    if (matrixUnits && row.precision == Precision::Fp32 && 2 * row.matrixUnitNs < row.deviceNs)
        return v;  // fp32 off the matrix units: no-tensor-cores
    const bool sixteenBit = row.precision == Precision::Fp16 || row.precision == Precision::Bf16 ||
                            row.precision == Precision::Fp8;
    if (sixteenBit && row.kind != OpKind::Attention && misalignedForTensorCores(row.name, row.inputShapes))
        return v;  // tensor-core-misaligned
    const bool attention = row.kind == OpKind::Attention;
    const bool fused = std::any_of(row.kernels.begin(), row.kernels.end(),
                                   [](const auto& k) { return isFusedAttentionKernel(k.first); });
    if (attention)
        v.targetShare = kAttentionTargetShare;
    else if (r.bound == Bound::Memory)
        v.targetShare = row.kind == OpKind::Convolution ? kMemoryConvolutionTargetShare : kMemoryTargetShare;
    else
        v.targetShare = kComputeTargetShare;
    // An output of fewer tiles than SMs leaves SMs idle, whichever roof bounds it (a few
    // SMs cannot stream at the device's bandwidth either).
    if (row.kind == OpKind::Matmul && numSms > 0)
        if (const double tiles = gemmTiles(row); tiles > 0)
            v.fill = std::min(1.0, tiles / double(numSms));
    v.targetShare *= v.fill;
    const bool unfused = attention && !fused && !row.kernels.empty();
    if (unfused ? r.shareOfRoof >= v.targetShare : r.shareOfRoof >= 0.5 * v.targetShare)
        return v;
    const double meanNs = double(row.deviceNs) / double(row.calls);
    const double targetNs = std::max(meanNs * r.shareOfRoof / v.targetShare, std::min(meanNs, kShortestKernelNs));
    v.factor = targetNs / meanNs;
    if (v.factor > 0.9)
        return v;
    v.gap = unfused ? RoofGap::UnfusedAttention : RoofGap::BelowRoof;
    return v;
}

std::map<std::pair<std::string, std::string>, RoofVerdict> roofGaps(const Roofline& roofline,
                                                                    const trace::TraceModel& model)
{
    std::map<std::pair<std::string, std::string>, RoofVerdict> gaps;
    const int sms = smCount(roofline, model);
    for (const OpRoofline& row : roofline.ops)
        if (const RoofVerdict v = judgeRoof(row, roofline, sms); v.gap != RoofGap::None)
            gaps[{row.name, row.inputShapes}] = v;
    return gaps;
}

}  // namespace kinetoscope::analysis
