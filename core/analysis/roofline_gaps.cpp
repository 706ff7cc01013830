#include "core/analysis/roofline_gaps.h"

#include "core/analysis/name_match.h"
#include "core/analysis/tensor_cores.h"
#include "core/compiled/kernel_name.h"
#include "core/trace/trace_model.h"

#include <algorithm>
#include <cmath>
#include <vector>

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

// The GEMM a convolution runs as (implicit GEMM): M output positions by N output channels.
// Forward: N and the reduction K from the weight, M from the FLOPs; backward: both from the
// output gradient. False when the shapes do not say.
bool convolutionGemm(const OpRoofline& row, const std::vector<OpInput>& inputs, double& m,
                     double& n)
{
    if (row.name.find("backward") != std::string::npos) {
        if (inputs.empty() || inputs[0].dims.size() < 3)
            return false;
        const std::vector<int64_t>& gradOutput = inputs[0].dims;
        m = double(gradOutput[0]) * double(product(gradOutput, 2, gradOutput.size()));
        n = double(gradOutput[1]);
        return m > 0 && n > 0;
    }
    if (inputs.size() < 2 || inputs[1].dims.size() < 3)
        return false;
    const std::vector<int64_t>& weight = inputs[1].dims;
    n = double(weight[0]);
    const double k = double(product(weight, 1, weight.size()));
    m = n > 0 && k > 0 ? row.flopsPerCall / (2 * n * k) : 0;
    return m > 0 && n > 0;
}

// The M x N output a GEMM op (or a convolution, as its implicit GEMM) computes, per batch;
// false when the shapes do not say.
bool gemmOutput(const OpRoofline& row, double& m, double& n, double& batch)
{
    std::vector<OpInput> inputs = opInputsFromDims(row.inputShapes);
    batch = 1;
    if (row.kind == OpKind::Convolution)
        return convolutionGemm(row, inputs, m, n);
    std::vector<const std::vector<int64_t>*> matrices;
    for (const OpInput& in : inputs)
        if (in.dims.size() >= 2)
            matrices.push_back(&in.dims);
    const bool withBias =
        row.name == "aten::addmm" || row.name == "aten::baddbmm" || row.name == "aten::addbmm";
    if (withBias && inputs.size() >= 3 && inputs[0].dims.size() >= 2 && !matrices.empty())
        matrices.erase(matrices.begin());  // a 2-D bias [M, N] comes first
    if (matrices.size() < 2)
        return false;
    const std::vector<int64_t>& a = *matrices[0];
    const std::vector<int64_t>& b = *matrices[1];
    if (row.name == "aten::linear") {
        m = double(product(a, 0, a.size() - 1));
        n = double(b.front());
    } else {
        m = double(a[a.size() - 2]);
        n = double(b.back());
        batch = double(product(a, 0, a.size() - 2));
    }
    return m > 0 && n > 0;
}

// The share of the GPU a GEMM's output can keep busy: its kGemmTile-square tiles against
// the SMs (fewer tiles than SMs leave SMs idle, whichever roof bounds it), and for a
// compute-bound one also the share of each tile its edges fill (a 64-wide output fills
// half of each). 1 when the shapes do not say.
double gemmFill(const OpRoofline& row, int numSms)
{
    double m = 0, n = 0, batch = 1;
    if (numSms <= 0 || !gemmOutput(row, m, n, batch))
        return 1;
    const double tiles = batch * std::ceil(m / kGemmTile) * std::ceil(n / kGemmTile);
    double fill = std::min(1.0, tiles / double(numSms));
    if (row.rating.bound == Bound::Compute)
        fill *= batch * m * n / (tiles * kGemmTile * kGemmTile);
    return fill;
}

// The verdict's factor and gap once its target share is set: judged below under half the
// target, each call shortened to the target (never under kShortestKernelNs), and no gap where
// that would save under a tenth of its time.
RoofVerdict shortenedToTarget(RoofVerdict v, const OpRoofline& row, bool below, RoofGap gap)
{
    const Rating& r = row.rating;
    if (!below)
        return v;
    const double meanNs = double(row.deviceNs) / double(row.calls);
    const double targetNs =
        std::max(meanNs * r.shareOfRoof / v.targetShare, std::min(meanNs, kShortestKernelNs));
    v.factor = targetNs / meanNs;
    if (v.factor <= 0.9)
        v.gap = gap;
    return v;
}

// A generated pointwise or reduction kernel: rated on the bytes its arguments hold, so
// memory-bound, against kStreamingTargetShare of the bandwidth.
RoofVerdict judgeGenerated(const OpRoofline& row)
{
    RoofVerdict v;
    const Rating& r = row.rating;
    if (!row.modelled() || r.bound != Bound::Memory || r.roofs.gbps <= 0 || r.abovePeak ||
        row.calls <= 0 || row.deviceNs <= 0)
        return v;
    v.targetShare = kStreamingTargetShare;
    return shortenedToTarget(v, row, r.shareOfRoof < 0.5 * v.targetShare, RoofGap::BelowBandwidth);
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

bool isGeneratedStreamingKernel(const OpRoofline& row)
{
    if (row.fusedOps.empty() && !row.name.starts_with("triton_"))
        return false;
    const auto kernel = compiled::parseCompiledKernelName(row.name);
    return kernel && kernel->backend == "triton" &&
           (kernel->kind == compiled::KernelKind::Pointwise ||
            kernel->kind == compiled::KernelKind::Reduction ||
            kernel->kind == compiled::KernelKind::PersistentReduction);
}

RoofVerdict judgeRoof(const OpRoofline& row, const Roofline& roofline, int numSms)
{
    if (isGeneratedStreamingKernel(row))
        return judgeGenerated(row);
    RoofVerdict v;
    const Rating& r = row.rating;
    if (!row.modelled() || !isMatrixKind(row.kind) || r.attainableTflops <= 0 || r.abovePeak ||
        row.calls <= 0 || row.deviceNs <= 0)
        return v;
    const bool matrixUnits =
        roofline.peaks && (roofline.peaks->fp16Tflops > 0 || roofline.peaks->tf32Tflops > 0);
    if (matrixUnits && row.precision == Precision::Fp32 && 2 * row.matrixUnitNs < row.deviceNs)
        return v;  // fp32 off the matrix units: no-tensor-cores
    const bool sixteenBit = row.precision == Precision::Fp16 || row.precision == Precision::Bf16 ||
                            row.precision == Precision::Fp8;
    if (sixteenBit && row.kind != OpKind::Attention &&
        misalignedForTensorCores(row.name, row.inputShapes))
        return v;  // tensor-core-misaligned
    const bool attention = row.kind == OpKind::Attention;
    const bool fused = std::any_of(row.kernels.begin(), row.kernels.end(),
                                   [](const auto& k) { return isFusedAttentionKernel(k.first); });
    if (attention)
        v.targetShare = kAttentionTargetShare;
    else if (r.bound == Bound::Memory)
        v.targetShare =
            row.kind == OpKind::Convolution ? kMemoryConvolutionTargetShare : kMemoryTargetShare;
    else
        v.targetShare = kComputeTargetShare;
    if (row.kind == OpKind::Matmul || row.kind == OpKind::Convolution)
        v.fill = gemmFill(row, numSms);
    v.targetShare *= v.fill;
    const bool unfused = attention && !fused && !row.kernels.empty();
    return shortenedToTarget(
        v, row, unfused ? r.shareOfRoof < v.targetShare : r.shareOfRoof < 0.5 * v.targetShare,
        unfused ? RoofGap::UnfusedAttention : RoofGap::BelowRoof);
}

RoofGaps roofGaps(const Roofline& roofline, const trace::TraceModel& model)
{
    RoofGaps gaps;
    const int sms = smCount(roofline, model);
    for (const OpRoofline& row : roofline.ops)
        if (const RoofVerdict v = judgeRoof(row, roofline, sms); v.gap != RoofGap::None)
            gaps[{row.name, row.inputShapes}] = v;
    return gaps;
}

RoofTargets roofTargets(const trace::TraceModel& model, const Roofline& roofline,
                        const RoofGaps& gaps)
{
    RoofTargets targets;
    if (roofline.empty())
        return targets;
    // Each op group's row, and each call's kernels.
    std::map<std::pair<std::string, std::string>, const OpRoofline*> rows;
    for (const OpRoofline& row : roofline.ops)
        rows[{row.name, row.inputShapes}] = &row;
    const double gbps = roofline.peaks ? roofline.peaks->memoryGBps : 0;
    CatalogueOwners owners(model);
    struct Call
    {
        const OpRoofline* row = nullptr;
        const RoofVerdict* gap = nullptr;
        std::vector<uint32_t> kernels;
    };
    std::unordered_map<uint32_t, Call> calls;
    const auto events = model.events();
    for (size_t i = 0; i < events.size(); ++i) {
        const trace::Event& e = events[i];
        if (e.category != trace::Category::Kernel || !e.op.valid())
            continue;
        const trace::EventId owner = owners.ownerOfOp(e.op);
        if (!owner.valid())
            continue;
        auto [it, fresh] = calls.try_emplace(owner.value);
        if (fresh) {
            const trace::StringId shapes = model.inputShapes(owner);
            const std::pair<std::string, std::string> key{
                std::string(model.text(model.event(owner).name)),
                shapes.valid() ? std::string(model.text(shapes)) : std::string()};
            const auto row = rows.find(key);
            it->second.row = row == rows.end() ? nullptr : row->second;
            const auto gap = gaps.find(key);
            it->second.gap = gap == gaps.end() ? nullptr : &gap->second;
        }
        it->second.kernels.push_back(static_cast<uint32_t>(i));
    }
    for (const auto& [owner, call] : calls) {
        if (call.gap) {
            for (uint32_t k : call.kernels)
                targets.gaps[k] = {call.gap->gap, static_cast<float>(call.gap->factor)};
            continue;
        }
        const OpRoofline* row = call.row;
        if (!row || !row->modelled() || isMatrixKind(row->kind) || call.kernels.size() != 1 ||
            gbps <= 0 || row->rating.abovePeak)
            continue;
        const double atBandwidthNs =
            std::max(kShortestKernelNs, row->bytesPerCall / (kStreamingTargetShare * gbps));
        const int64_t measured = events[call.kernels.front()].durationNs;
        if (atBandwidthNs < double(measured))
            targets.streamingNs[call.kernels.front()] = static_cast<int64_t>(atBandwidthNs);
    }
    return targets;
}

}  // namespace kinetoscope::analysis
