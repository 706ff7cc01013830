#include "core/analysis/step_replay.h"

#include "core/analysis/breakdown.h"
#include "core/analysis/kernel_role.h"
#include "core/analysis/runtime_calls.h"
#include "core/analysis/tensor_cores.h"

#include <algorithm>
#include <limits>

namespace kinetoscope::analysis::detail {

using namespace kinetoscope::trace;

namespace {

// An activity that started this long after both its launch and its stream allowed, and
// within the slack of the end of an activity on another stream, waited for that one.
constexpr int64_t kDependencyWaitNs = 20'000;   // 20 us
constexpr int64_t kDependencySlackNs = 10'000;  // 10 us
// What a blocking call still costs when it no longer waits.
constexpr int64_t kCallFloorNs = 5'000;  // 5 us
// Fp32 SIMT GEMM/conv time over the same work on 16-bit Tensor Cores (conservative).
constexpr double kTensorCoreSpeedup = 2.0;

// Host time taken out of the step: a sorted set of ranges with prefix sums, so that the
// removed time before any instant is a binary search.
class RemovedTime
{
public:
    explicit RemovedTime(RangeSet ranges) : m_ranges(std::move(ranges))
    {
        m_prefix.push_back(0);
        for (const TimeRange& r : m_ranges)
            m_prefix.push_back(m_prefix.back() + r.length());
    }
    int64_t before(int64_t t) const
    {
        const auto it =
            std::upper_bound(m_ranges.begin(), m_ranges.end(), t,
                             [](int64_t time, const TimeRange& r) { return time < r.begin; });
        const size_t i = static_cast<size_t>(it - m_ranges.begin());
        if (i == 0)
            return 0;
        const TimeRange& last = m_ranges[i - 1];
        return m_prefix[i - 1] + std::min(t, last.end) - last.begin;
    }

private:
    RangeSet m_ranges;
    std::vector<int64_t> m_prefix;
};

// A GEMM or convolution kernel that does not use Tensor Cores: a SIMT GEMM by its name,
// or a kernel of unknown family launched by a GEMM/convolution op.
bool isFp32Matmul(const TraceModel& model, const Event& kernel, std::string_view name)
{
    const MatrixUnit unit = matrixUnitOf(name);
    if (unit != MatrixUnit::Unknown)
        return unit == MatrixUnit::Simt;
    EventId op = kernel.op;
    for (int depth = 0; op.valid() && depth < 4; ++depth, op = model.event(op).parent)
        if (isTensorCoreEligibleOp(model.text(model.event(op).name)))
            return true;
    return false;
}

// The roofline's gap for a kernel and its target over measured duration, or null.
const std::pair<RoofGap, float>* roofGapOf(const HostContext& c, EventId kernel)
{
    if (!c.roof)
        return nullptr;
    const auto it = c.roof->gaps.find(kernel.value);
    return it == c.roof->gaps.end() ? nullptr : &it->second;
}

// The cause that shortens a kernel with this roofline gap to its target.
Cause causeOfGap(RoofGap gap)
{
    switch (gap) {
    case RoofGap::UnfusedAttention:
        return Cause::UnfusedAttention;
    case RoofGap::BelowBandwidth:
        return Cause::CompiledBelowBandwidth;
    case RoofGap::None:
    case RoofGap::BelowRoof:
        break;
    }
    return Cause::BelowRoof;
}

// Chains of consecutive memory-bound kernels on one stream (from `first` on, in stream
// order) fuse into one kernel that costs about what the costliest of them costs: the
// others are the Fusion cause's. The copies, casts and concatenations inside a chain
// (fusibleChains) are fused with it: they leave copy-heavy's cause for the chain's. Any
// other activity (a GEMM, a collective, a copy engine transfer) ends it.
void markFusibleChains(const TraceModel& model, const HostContext& c,
                       const std::vector<const Event*>& sources, std::vector<Activity>& activities,
                       size_t first)
{
    std::vector<KernelRole> roles;
    roles.reserve(activities.size() - first);
    for (size_t i = first; i < activities.size(); ++i) {
        const Event& e = *sources[i];
        roles.push_back(e.category == Category::Kernel ? c.kernelRoles[model.idOf(e).value]
                                                       : KernelRole::Other);
    }
    for (const auto& [begin, end] : fusibleChains(roles)) {
        size_t kept = first + begin;
        for (size_t i = first + begin; i < first + end; ++i) {
            activities[i].causes &= ~causeBit(Cause::DeviceCopies);
            if (activities[i].durationNs > activities[kept].durationNs)
                kept = i;
        }
        for (size_t i = first + begin; i < first + end; ++i)
            if (i != kept)
                activities[i].causes |= causeBit(Cause::Fusion);
        // The fused kernel moves about what the costliest member moves: at a realistic
        // share of the bandwidth where the roofline knows its bytes.
        if (c.roof)
            if (const auto t = c.roof->streamingNs.find(model.idOf(*sources[kept]).value);
                t != c.roof->streamingNs.end())
                activities[kept].fusedNs = t->second;
    }
}

}  // namespace

int64_t hostFrom(const Step& step)
{
    return std::min(step.hostBeginNs, step.beginNs);
}

StepInputs stepInputs(const TraceModel& model, const HostContext& c, const Step& step,
                      const std::vector<Segment>& host, std::array<int64_t, kCauseCount>& deviceNs)
{
    StepInputs in;
    in.beginNs = step.beginNs;
    in.hostEndNs = std::min(step.endNs, std::max(step.hostEndNs, step.beginNs));
    in.hostBeginNs = std::min(step.hostBeginNs, in.hostEndNs);
    in.hostExcessNs = std::max<int64_t>(0, (in.hostEndNs - in.hostBeginNs) - step.durationNs());
    for (const Segment& s : host)
        if (s.state == HostState::Blocked)
            in.hostBlockedNs += std::max<int64_t>(0, std::min(s.end, in.hostEndNs) -
                                                         std::max(s.begin, in.hostBeginNs));
    // Host removals by state.
    std::array<std::vector<TimeRange>, kCauseCount> removed;
    for (const Segment& s : host) {
        if (s.state == HostState::DataLoader)
            removed[size_t(Cause::DataLoader)].push_back({s.begin, s.end});
        else if (s.state == HostState::Python)
            removed[size_t(Cause::Python)].push_back({s.begin, s.end});
        else if (s.state == HostState::Launching)
            removed[size_t(Cause::LaunchOverhead)].push_back({s.begin, s.end});
        else if (s.state == HostState::CpuCompute && s.end - s.begin >= kPythonRunNs)
            removed[size_t(Cause::CpuCompute)].push_back({s.begin, s.end});
    }
    // The optimizer's launch overhead.
    std::vector<TimeRange> optimizer;
    for (uint32_t t : c.threads) {
        const auto events = model.events(TrackId{t});
        auto it = std::lower_bound(events.begin(), events.end(), hostFrom(step),
                                   [](const Event& e, int64_t time) { return e.startNs < time; });
        for (; it != events.end() && it->startNs < step.endNs; ++it) {
            if (model.text(it->name).starts_with("Optimizer.step#"))
                optimizer.push_back({it->startNs, it->endNs()});
            // The allocator going to the driver: gone when it keeps its blocks.
            if (isLaunchCall(it->category) && (c.flags(it->name) & kAllocationName))
                removed[size_t(Cause::Allocation)].push_back({it->startNs, it->endNs()});
            if (isLaunchCall(it->category) && blocksHost(model, *it)) {
                BlockingCall call{model.idOf(*it), it->startNs,    it->endNs(), 0,
                                  false,           Cause::HostSync};
                call.removable = !isSynchronousLaunch(model, *it);
                for (EventId a : model.activitiesLaunchedBy(model.idOf(*it)))
                    if (isBulkPageableCopy(model, model.event(a)))
                        call.cause = Cause::PageableCopy;
                in.calls.push_back(call);
                // From pinned memory the upload's call returns at once: its staging time goes.
                if (call.cause == Cause::PageableCopy)
                    removed[size_t(Cause::PageableCopy)].push_back({call.beginNs, call.endNs});
                // Reading a value back (.item(), .cpu(), .to("cpu")) is removed whole by the
                // fix, its op dispatch with its wait.
                if (call.cause == Cause::HostSync && call.removable) {
                    EventId outer;
                    for (EventId p = it->parent;
                         p.valid() && model.event(p).category == Category::CpuOp &&
                         (isScalarReadOp(model.text(model.event(p).name)) ||
                          isCopyOp(model.text(model.event(p).name)));
                         p = model.event(p).parent)
                        outer = p;
                    if (outer.valid())
                        removed[size_t(Cause::HostSync)].push_back(
                            {model.event(outer).startNs, model.event(outer).endNs()});
                }
            }
        }
    }
    removed[size_t(Cause::GraphBreak)] = intersect(c.graphBreaks, {{hostFrom(step), step.endNs}});
    removed[size_t(Cause::OptimizerHost)] =
        intersect(unionOf(removed[size_t(Cause::LaunchOverhead)]), unionOf(optimizer));
    for (size_t i = 0; i < kCauseCount; ++i)
        in.removedHost[i] = unionOf(std::move(removed[i]));
    std::sort(in.calls.begin(), in.calls.end(),
              [](const BlockingCall& a, const BlockingCall& b) { return a.beginNs < b.beginNs; });

    std::map<uint32_t, uint32_t> callIndex;  // blocking call event -> index in calls
    for (size_t k = 0; k < in.calls.size(); ++k)
        callIndex[in.calls[k].call.value] = static_cast<uint32_t>(k);
    // Device activities starting in the step, with what each removal does to them.
    std::map<uint32_t, std::vector<const Event*>> byStream;
    for (const Track& track : model.tracks()) {
        if (track.kind != TrackKind::GpuStream)
            continue;
        const TrackId id{static_cast<uint32_t>(&track - model.tracks().data())};
        const auto events = model.events(id);
        auto it = std::lower_bound(events.begin(), events.end(), step.beginNs,
                                   [](const Event& e, int64_t time) { return e.startNs < time; });
        // The stream is busy until the work queued before the step ends: the replay
        // cannot start this step's work earlier than that.
        int64_t busyUntil = std::numeric_limits<int64_t>::min();
        for (auto back = it; back != events.begin();) {
            --back;
            if (isDeviceWork(back->category)) {
                busyUntil = back->endNs();
                break;
            }
        }
        in.streamFree[id.value] = busyUntil;
        for (; it != events.end() && it->startNs < step.endNs; ++it)
            if (isDeviceWork(it->category))
                byStream[id.value].push_back(&*it);
    }
    std::vector<TimeRange> copyOps;
    std::vector<const Event*> sources;  // per activity: its event
    for (const auto& [stream, events] : byStream) {
        const size_t firstOfStream = in.activities.size();
        int64_t previousEnd = in.streamFree[stream];
        int64_t previousStart = std::numeric_limits<int64_t>::min();
        for (const Event* e : events) {
            Activity a;
            a.startNs = e->startNs;
            a.durationNs = e->durationNs;
            a.stream = stream;
            a.launchNs = e->correlated.valid() ? model.event(e->correlated).endNs() : e->startNs;
            if (const auto call = callIndex.find(e->correlated.value); call != callIndex.end()) {
                a.syncItem = call->second;
                a.launchNs = in.calls[call->second].beginNs;
            }
            a.latencyNs = e->startNs - std::max(a.launchNs, previousEnd);
            if (e->startNs < previousEnd && previousStart != std::numeric_limits<int64_t>::min())
                a.overlapNs = e->startNs - previousStart;
            previousStart = e->startNs;
            previousEnd = std::max(previousEnd, e->endNs());
            const std::string_view name = model.text(e->name);
            const std::string_view opName =
                e->op.valid() ? model.text(model.event(e->op).name) : std::string_view();
            if (e->category == Category::Kernel) {
                if (isCommunicationKernel(name) || isCommunicationOp(opName))
                    a.causes |= causeBit(Cause::Communication);
                else if (isFp32Matmul(model, *e, name))
                    a.causes |= causeBit(Cause::Fp32Matmul);
                else if (isCopyOp(opName))
                    a.causes |= causeBit(Cause::DeviceCopies);
                else if (const auto* gap = roofGapOf(c, model.idOf(*e))) {
                    a.causes |= causeBit(causeOfGap(gap->first));
                    a.roofFactor = gap->second;
                }
            } else if (e->category == Category::Memcpy) {
                const CopyKind kind = classifyCopy(name);
                if (kind.direction == CopyDirection::DeviceToDevice && isCopyOp(opName))
                    a.causes |= causeBit(Cause::DeviceCopies);
                const CopyInfo* info = model.copyInfo(model.idOf(*e));
                if (isBulkPageableCopy(model, *e) && info && info->bytes > 0 &&
                    c.pinnedBandwidth > 0)
                    a.pinnedNs =
                        std::min<int64_t>(e->durationNs, static_cast<int64_t>(double(info->bytes) /
                                                                              c.pinnedBandwidth));
            }
            in.activities.push_back(a);
            sources.push_back(e);
        }
        markFusibleChains(model, c, sources, in.activities, firstOfStream);
    }
    for (size_t i = 0; i < in.activities.size(); ++i) {
        const Activity& a = in.activities[i];
        for (size_t k = 0; k < kCauseCount; ++k)
            if (a.causes & causeBit(Cause(k)))
                deviceNs[k] += a.durationNs;
        if (a.fusedNs >= 0)  // a chain's kept kernel, shorter fused
            deviceNs[size_t(Cause::Fusion)] += a.durationNs - std::min(a.durationNs, a.fusedNs);
        // A conversion the model no longer makes costs no host time either: the copy op
        // goes with its device work.
        if (a.causes & causeBit(Cause::DeviceCopies)) {
            EventId outer = sources[i]->op;
            while (model.event(outer).parent.valid() &&
                   isCopyOp(model.text(model.event(model.event(outer).parent).name)))
                outer = model.event(outer).parent;
            copyOps.push_back({model.event(outer).startNs, model.event(outer).endNs()});
        }
    }
    in.removedHost[size_t(Cause::DeviceCopies)] = unionOf(std::move(copyOps));
    std::vector<TimeRange> busy;
    busy.reserve(in.activities.size());
    for (const Activity& a : in.activities)
        busy.push_back({a.startNs, a.startNs + a.durationNs});
    in.deviceBusyNs = lengthWithin(unionOf(std::move(busy)), step.beginNs, step.endNs);
    std::sort(in.activities.begin(), in.activities.end(), [](const Activity& a, const Activity& b) {
        return a.launchNs != b.launchNs ? a.launchNs < b.launchNs : a.startNs < b.startNs;
    });
    // An activity that started long after its launch and its stream allowed, right when
    // an activity on another stream ended, waited for it (an event wait between streams).
    std::vector<std::pair<int64_t, uint32_t>> ends;  // (end, index), by end
    ends.reserve(in.activities.size());
    for (size_t i = 0; i < in.activities.size(); ++i)
        ends.emplace_back(in.activities[i].startNs + in.activities[i].durationNs,
                          static_cast<uint32_t>(i));
    std::sort(ends.begin(), ends.end());
    for (Activity& a : in.activities) {
        if (a.latencyNs <= kDependencyWaitNs)
            continue;
        auto it = std::upper_bound(ends.begin(), ends.end(), std::make_pair(a.startNs, UINT32_MAX));
        while (it != ends.begin()) {
            --it;
            if (a.startNs - it->first > kDependencySlackNs)
                break;
            if (in.activities[it->second].stream != a.stream) {
                a.dependsOn = it->second;
                break;
            }
        }
    }
    in.own.resize(in.calls.size());
    for (size_t i = 0; i < in.activities.size(); ++i)
        if (in.activities[i].syncItem != UINT32_MAX)
            in.own[in.activities[i].syncItem].push_back(i);
    // What each blocking call waited for: the device work launched before it, and its own.
    int64_t completed = std::numeric_limits<int64_t>::min();
    size_t next = 0, last = SIZE_MAX;
    for (size_t k = 0; k < in.calls.size(); ++k) {
        BlockingCall& call = in.calls[k];
        while (next < in.activities.size() && in.activities[next].launchNs <= call.beginNs) {
            const int64_t end = in.activities[next].startNs + in.activities[next].durationNs;
            if (end > completed) {
                completed = end;
                last = next;
            }
            ++next;
        }
        if (last != SIZE_MAX && (in.activities[last].causes & causeBit(Cause::Communication)))
            call.awaitedCollective = static_cast<uint32_t>(last);
        int64_t awaited = completed;
        for (size_t i : in.own[k])
            awaited = std::max(awaited, in.activities[i].startNs + in.activities[i].durationNs);
        call.waits = awaited > call.beginNs && awaited <= call.endNs;
        call.residualNs = call.waits ? call.endNs - awaited : call.endNs - call.beginNs;
    }
    return in;
}

int64_t replay(const StepInputs& in, uint16_t removedMask)
{
    std::vector<TimeRange> ranges;
    for (size_t k = 0; k < kCauseCount; ++k)
        if (removedMask & causeBit(Cause(k)))
            ranges.insert(ranges.end(), in.removedHost[k].begin(), in.removedHost[k].end());
    const RemovedTime removed(unionOf(std::move(ranges)));
    int64_t saved = 0;  // time the blocking calls returned earlier than measured
    auto warp = [&](int64_t t) { return t - removed.before(t) - saved; };
    std::map<uint32_t, int64_t> streamFree = in.streamFree;
    std::map<uint32_t, int64_t> streamLastStart;
    int64_t deviceEnd = std::numeric_limits<int64_t>::min(),
            completed = std::numeric_limits<int64_t>::min();
    constexpr int64_t kUnset = std::numeric_limits<int64_t>::min();
    std::vector<int64_t> replayedEnd(in.activities.size(), kUnset);
    int64_t shortened = 0;  // device time the removed causes took out
    int64_t afterCollective = std::numeric_limits<int64_t>::min();  // see BlockingCall
    auto run = [&](const Activity& a, int64_t launch) {
        int64_t duration = a.durationNs;
        const uint16_t roofBits = causeBit(Cause::BelowRoof) | causeBit(Cause::UnfusedAttention) |
                                  causeBit(Cause::CompiledBelowBandwidth);
        if (a.causes & removedMask & causeBit(Cause::Fp32Matmul))
            duration = static_cast<int64_t>(static_cast<double>(duration) / kTensorCoreSpeedup);
        else if (a.causes & removedMask & roofBits)
            duration = static_cast<int64_t>(static_cast<double>(duration) * double(a.roofFactor));
        else if (a.causes & removedMask)
            duration = 0;
        if (a.pinnedNs >= 0 && (removedMask & causeBit(Cause::PageableCopy)))
            duration = a.pinnedNs;
        if (a.fusedNs >= 0 && (removedMask & causeBit(Cause::Fusion)))
            duration = std::min(duration, a.fusedNs);
        shortened += a.durationNs - duration;
        auto [it, fresh] = streamFree.try_emplace(a.stream, std::numeric_limits<int64_t>::min());
        int64_t& lastStart =
            streamLastStart.try_emplace(a.stream, std::numeric_limits<int64_t>::min())
                .first->second;
        const int64_t streamAllows = a.overlapNs >= 0 ? lastStart + a.overlapNs : it->second;
        int64_t start = std::max(launch + a.latencyNs, streamAllows);
        start = std::max(start, afterCollective);
        if (a.dependsOn != UINT32_MAX) {
            // It still waits for the activity on the other stream: as replayed, or as
            // measured if that one is launched later (not replayed yet).
            const int64_t awaitedEnd =
                replayedEnd[a.dependsOn] != kUnset
                    ? replayedEnd[a.dependsOn]
                    : in.activities[a.dependsOn].startNs + in.activities[a.dependsOn].durationNs;
            start = std::max(start, awaitedEnd);
        }
        it->second = std::max(it->second, start + duration);
        lastStart = start;
        replayedEnd[static_cast<size_t>(&a - in.activities.data())] = start + duration;
        deviceEnd = std::max(deviceEnd, it->second);
        return start + duration;
    };
    size_t next = 0;
    for (size_t k = 0; k <= in.calls.size(); ++k) {
        const int64_t until =
            k < in.calls.size() ? in.calls[k].beginNs : std::numeric_limits<int64_t>::max();
        for (; next < in.activities.size() && in.activities[next].launchNs <= until; ++next) {
            const Activity& a = in.activities[next];
            if (a.syncItem == UINT32_MAX)
                completed = std::max(completed, run(a, warp(a.launchNs)));
        }
        if (k == in.calls.size())
            break;
        const BlockingCall& call = in.calls[k];
        const int64_t arrive = warp(call.beginNs);
        int64_t awaited = completed;
        for (size_t i : in.own[k])
            awaited = std::max(awaited, run(in.activities[i], arrive));
        completed = std::max(completed, awaited);
        if (!call.waits)
            continue;  // a fixed host cost: it shifts with the host like any other
        const bool freed = call.removable && (removedMask & causeBit(call.cause));
        if (freed && call.awaitedCollective != UINT32_MAX &&
            replayedEnd[call.awaitedCollective] != kUnset)
            afterCollective = std::max(afterCollective, replayedEnd[call.awaitedCollective]);
        const int64_t leave = freed ? arrive + std::min(call.residualNs, kCallFloorNs)
                                    : std::max(arrive, awaited) + call.residualNs;
        saved += std::max<int64_t>(0, warp(call.endNs) - leave);
    }
    // Streams overlap no more than they did: without device work removed, the step is no
    // shorter than the time the device was busy in it.
    // The loop runs no faster than its host: a step is no shorter than the host's own work
    // in its span (what is left of it; its waits for the device are the device's pace).
    const int64_t hostPeriod =
        warp(in.hostEndNs) - warp(in.hostBeginNs) - in.hostExcessNs - in.hostBlockedNs;
    return std::max({std::max(warp(in.hostEndNs), deviceEnd) - in.beginNs,
                     in.deviceBusyNs - shortened, hostPeriod});
}

}  // namespace kinetoscope::analysis::detail
