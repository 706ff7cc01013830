#include "core/analysis/device_activity.h"

#include "core/analysis/breakdown.h"
#include "core/analysis/runtime_calls.h"
#include "core/analysis/time_ranges.h"
#include "core/trace/name_cache.h"

#include <algorithm>

namespace kinetoscope::analysis {

using namespace kinetoscope::trace;

const char* gapKindKey(GapKind kind)
{
    switch (kind) {
    case GapKind::HostWait:
        return "host_wait";
    case GapKind::Short:
        return "short";
    case GapKind::Other:
        break;
    }
    return "other";
}

namespace {

// The step whose span contains `t`, or steps.size().
size_t stepAt(const std::vector<Step>& steps, int64_t t)
{
    const auto it = std::upper_bound(steps.begin(), steps.end(), t,
                                     [](int64_t time, const Step& s) { return time < s.beginNs; });
    if (it == steps.begin())
        return steps.size();
    const size_t index = static_cast<size_t>(it - steps.begin()) - 1;
    return t < steps[index].endNs ? index : steps.size();
}

void addGap(GapTotals& totals, GapKind kind, int64_t ns)
{
    (kind == GapKind::HostWait ? totals.hostWaitNs
     : kind == GapKind::Short  ? totals.shortNs
                               : totals.otherNs) += ns;
}

}  // namespace

IdleGaps computeIdleGaps(const TraceModel& model, const StepDetection& detection)
{
    const std::vector<Step>& steps = detection.steps;
    IdleGaps result;
    result.perStep.resize(steps.size());
    std::vector<IdleGap> all;
    std::vector<TimeRange> hostWaits, busy;
    for (const Track& track : model.tracks()) {
        if (track.kind != TrackKind::GpuStream)
            continue;
        const Event* previous = nullptr;
        for (const Event& e :
             model.events(TrackId{static_cast<uint32_t>(&track - model.tracks().data())})) {
            if (!isDeviceWork(e.category))
                continue;
            busy.push_back({e.startNs, e.endNs()});
            if (previous && e.startNs > previous->endNs()) {
                IdleGap gap{track.pid, track.tid, previous->endNs(), e.startNs, GapKind::Other};
                const bool launchedLate =
                    e.correlated.valid() && model.event(e.correlated).endNs() >= previous->endNs();
                if (launchedLate) {
                    gap.kind = GapKind::HostWait;
                    hostWaits.push_back({gap.beginNs, gap.endNs});
                } else if (gap.lengthNs() <= kShortGapNs)
                    gap.kind = GapKind::Short;
                // Count the part of the gap inside each step it overlaps (steps are
                // time-ordered and disjoint: start from the first that ends after it).
                auto first =
                    std::upper_bound(steps.begin(), steps.end(), gap.beginNs,
                                     [](int64_t t, const Step& st) { return t < st.endNs; });
                for (size_t s = static_cast<size_t>(first - steps.begin());
                     s < steps.size() && steps[s].beginNs < gap.endNs; ++s) {
                    const int64_t b = std::max(gap.beginNs, steps[s].beginNs);
                    const int64_t t = std::min(gap.endNs, steps[s].endNs);
                    if (b < t) {
                        addGap(result.perStep[s], gap.kind, t - b);
                        addGap(result.total, gap.kind, t - b);
                        addGap(result.perStream[{track.pid, track.tid}], gap.kind, t - b);
                    }
                }
                if (stepAt(steps, gap.beginNs) < steps.size() ||
                    stepAt(steps, gap.endNs - 1) < steps.size())
                    all.push_back(gap);
            }
            if (!previous || e.endNs() > previous->endNs())
                previous = &e;
        }
    }
    const RangeSet hostIdle = subtract(unionOf(std::move(hostWaits)), unionOf(std::move(busy)));
    for (const Step& step : steps)
        result.hostWaitIdleNsPerStep.push_back(lengthWithin(hostIdle, step.beginNs, step.endNs));

    constexpr size_t kLargest = 10;
    std::partial_sort(
        all.begin(), all.begin() + std::min(kLargest, all.size()), all.end(),
        [](const IdleGap& a, const IdleGap& b) { return a.lengthNs() > b.lengthNs(); });
    all.resize(std::min(kLargest, all.size()));
    result.largest = std::move(all);
    return result;
}

LaunchStats computeLaunchStats(const TraceModel& model, const StepDetection& detection)
{
    const std::vector<Step>& steps = detection.steps;
    LaunchStats stats;
    stats.kernelsPerStep.assign(steps.size(), 0);
    std::vector<int64_t> delays, callDurations;
    int64_t kernels = 0, shortKernels = 0;
    for (const Event& e : model.events()) {
        if (e.category != Category::Kernel)
            continue;
        ++kernels;
        shortKernels += e.durationNs < 10'000;
        if (const size_t s = stepAt(steps, e.startNs); s < steps.size())
            ++stats.kernelsPerStep[s];
        if (e.correlated.valid()) {
            const Event& call = model.event(e.correlated);
            if (e.startNs < call.startNs)
                ++stats.clockSkewed;
            else
                delays.push_back(std::max<int64_t>(0, e.startNs - call.endNs()));
            if (call.correlated == model.idOf(e))  // count each call once
                callDurations.push_back(call.durationNs);
        }
    }
    if (kernels > 0)
        stats.shortKernelShare = static_cast<double>(shortKernels) / static_cast<double>(kernels);
    stats.launchDelay = distributionOf(std::move(delays));
    stats.launchCallDuration = distributionOf(std::move(callDurations));
    return stats;
}

SyncStats computeSyncStats(const TraceModel& model, const StepDetection& detection)
{
    const std::vector<Step>& steps = detection.steps;
    SyncStats stats;
    stats.syncCallNsPerStep.assign(steps.size(), 0);
    stats.syncCallsPerStep.assign(steps.size(), 0);
    stats.scalarReadNsPerStep.assign(steps.size(), 0);
    stats.scalarReadsPerStep.assign(steps.size(), 0);
    auto mayBlock = perName<bool>(
        model, [](std::string_view n) { return mayBlockHost(classifyRuntimeCall(n)); });
    for (const Event& e : model.events()) {
        const bool call = isLaunchCall(e.category);
        if (!call && e.category != Category::CpuOp)
            continue;
        const std::string_view name = model.text(e.name);
        const size_t s = stepAt(steps, e.startNs);
        if (s == steps.size())
            continue;
        if (call && mayBlock(e.name) && blocksHost(model, e)) {
            stats.syncCallNsPerStep[s] += e.durationNs;
            ++stats.syncCallsPerStep[s];
        } else if (!call && isScalarReadOp(name)) {
            // aten::item calls _local_scalar_dense: count the outer one only.
            if (name == "aten::_local_scalar_dense" && e.parent.valid() &&
                model.text(model.event(e.parent).name) == "aten::item")
                continue;
            stats.scalarReadNsPerStep[s] += e.durationNs;
            ++stats.scalarReadsPerStep[s];
        }
    }
    return stats;
}

namespace {
bool isStepMarker(const TraceModel& model, const Event& e)
{
    return model.text(e.name).starts_with("ProfilerStep#");
}
}  // namespace

UtilizationSeries computeUtilizationSeries(const TraceModel& model, int buckets)
{
    UtilizationSeries series;
    const int64_t span = model.endNs() - model.beginNs();
    if (span <= 0 || buckets <= 0)
        return series;
    series.beginNs = model.beginNs();
    series.bucketNs = std::max<int64_t>(1, (span + buckets - 1) / buckets);
    const auto bucketCount = static_cast<size_t>((span + series.bucketNs - 1) / series.bucketNs);

    auto fill = [&](const RangeSet& busy, std::vector<float>& out) {
        out.assign(bucketCount, 0.0f);
        for (const TimeRange& r : busy) {
            for (int64_t t = r.begin; t < r.end;) {
                const auto b = static_cast<size_t>((t - series.beginNs) / series.bucketNs);
                const int64_t bucketEnd =
                    series.beginNs + static_cast<int64_t>(b + 1) * series.bucketNs;
                const int64_t until = std::min(r.end, bucketEnd);
                if (b < bucketCount)
                    out[b] += static_cast<float>(static_cast<double>(until - t) /
                                                 static_cast<double>(series.bucketNs));
                t = until;
            }
        }
    };
    std::map<int64_t, std::vector<TimeRange>> kernels;
    std::vector<TimeRange> cpu;
    for (const Track& track : model.tracks()) {
        const TrackId id{static_cast<uint32_t>(&track - model.tracks().data())};
        for (const Event& e : model.events(id)) {
            if (e.category == Category::Kernel) {
                kernels[track.pid].push_back({e.startNs, e.endNs()});
                continue;
            }
            // CPU activity: the outermost CPU ops, looking through annotations and the
            // ProfilerStep markers (which cover the whole step whatever the CPU does).
            if (e.category != Category::CpuOp || isStepMarker(model, e))
                continue;
            EventId p = e.parent;
            while (p.valid() && (model.event(p).category != Category::CpuOp ||
                                 isStepMarker(model, model.event(p))))
                p = model.event(p).parent;
            if (!p.valid())
                cpu.push_back({e.startNs, e.endNs()});
        }
    }
    for (auto& [device, ranges] : kernels)
        fill(unionOf(std::move(ranges)), series.gpuBusy[device]);
    fill(unionOf(std::move(cpu)), series.cpuBusy);
    return series;
}

}  // namespace kinetoscope::analysis
