#include "core/analysis/gpu_metrics.h"

#include "core/analysis/tensor_cores.h"
#include "core/analysis/time_ranges.h"
#include "core/trace/name_cache.h"

#include <algorithm>

namespace kinetoscope::analysis {

using namespace kinetoscope::trace;

namespace {

struct DeviceKernels
{
    std::vector<TimeRange> ranges;
    std::vector<std::pair<TimeRange, double>> blocksPerSm;  // positive values only
    double occupancyWeighted = 0.0;
    int64_t occupancyTimeNs = 0;
    int64_t tensorCoreNs = 0;
    int64_t kernelCount = 0;
    int64_t kernelNs = 0;
};

// Time-weighted sum over [begin, end) of min(sum of the concurrent values, 1).
double sweepCapped(const std::vector<std::pair<TimeRange, double>>& items, int64_t begin,
                   int64_t end)
{
    std::vector<std::pair<int64_t, double>> edges;  // (time, +value / -value)
    edges.reserve(items.size() * 2);
    for (const auto& [r, v] : items) {
        const int64_t b = std::max(r.begin, begin), e = std::min(r.end, end);
        if (b < e) {
            edges.emplace_back(b, v);
            edges.emplace_back(e, -v);
        }
    }
    std::sort(edges.begin(), edges.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    double active = 0.0, weighted = 0.0;
    int64_t last = begin;
    for (const auto& [t, delta] : edges) {
        if (t > last && active > 1e-12)
            weighted += std::min(active, 1.0) * static_cast<double>(t - last);
        last = t;
        active += delta;
    }
    return weighted;
}

}  // namespace

std::map<int64_t, GpuMetrics> computeGpuMetrics(const TraceModel& model,
                                                const StepDetection& detection)
{
    std::map<int64_t, GpuMetrics> result;
    if (detection.steps.empty())
        return result;
    const int64_t begin = detection.steps.front().beginNs;
    const int64_t end = detection.steps.back().endNs;
    const double span = static_cast<double>(end - begin);

    std::map<int64_t, DeviceKernels> devices;
    auto tensorCore = perName<bool>(model, isTensorCoreKernel);
    for (const Track& track : model.tracks()) {
        if (track.kind != TrackKind::GpuStream)
            continue;
        const TrackId trackId{static_cast<uint32_t>(&track - model.tracks().data())};
        for (const Event& e : model.events(trackId)) {
            if (e.category != Category::Kernel)
                continue;
            DeviceKernels& d = devices[track.pid];
            d.ranges.push_back({e.startNs, e.endNs()});
            const int64_t clipped = std::min(e.endNs(), end) - std::max(e.startNs, begin);
            if (clipped > 0) {
                ++d.kernelCount;
                d.kernelNs += clipped;
                if (tensorCore(e.name))
                    d.tensorCoreNs += clipped;
            }
            if (const KernelInfo* info = model.kernelInfo(model.idOf(e))) {
                if (info->blocksPerSm > 0.0f && clipped > 0)  // none inside the span: not available
                    d.blocksPerSm.push_back({{e.startNs, e.endNs()}, info->blocksPerSm});
                if (info->occupancyPercent >= 0.0f && clipped > 0) {
                    d.occupancyWeighted += info->occupancyPercent * static_cast<double>(clipped);
                    d.occupancyTimeNs += clipped;
                }
            }
        }
    }
    for (auto& [device, d] : devices) {
        GpuMetrics m;
        m.device = device;
        m.kernelCount = d.kernelCount;
        m.kernelTimeNs = d.kernelNs;
        if (span > 0) {
            m.utilization =
                static_cast<double>(lengthWithin(unionOf(std::move(d.ranges)), begin, end)) / span;
            if (!d.blocksPerSm.empty())
                m.smEfficiency = sweepCapped(d.blocksPerSm, begin, end) / span;
        }
        if (d.occupancyTimeNs > 0)
            m.achievedOccupancy = d.occupancyWeighted / static_cast<double>(d.occupancyTimeNs);
        if (d.kernelNs > 0)
            m.tensorCoreShare =
                static_cast<double>(d.tensorCoreNs) / static_cast<double>(d.kernelNs);
        result[device] = m;
    }
    return result;
}

}  // namespace kinetoscope::analysis
