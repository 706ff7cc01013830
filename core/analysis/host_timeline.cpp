#include "core/analysis/host_timeline.h"

#include "core/analysis/breakdown.h"
#include "core/analysis/runtime_calls.h"

#include <algorithm>
#include <map>

namespace kinetoscope::analysis::detail {

using namespace kinetoscope::trace;

HostContext hostContext(const TraceModel& model, const StepDetection& steps)
{
    HostContext c;
    c.marker = steps.fromMarkers ? steps.marker : std::string();
    c.leadsToLaunch.assign(model.events().size(), false);
    c.nameFlags.resize(model.strings().size());
    for (size_t i = 0; i < c.nameFlags.size(); ++i) {
        const std::string_view name = model.text(StringId{static_cast<uint32_t>(i)});
        const CallKind kind = classifyRuntimeCall(name);
        c.nameFlags[i] = static_cast<uint8_t>(
            (isDataLoaderOp(name) ? kDataLoaderName : 0) |
            (isScalarReadOp(name) ? kScalarReadName : 0) |
            (!c.marker.empty() && name.starts_with(c.marker) ? kStepMarkerName : 0) |
            (name.starts_with("PyTorch Profiler") ? kProfilerSpanName : 0) |
            (mayBlockHost(kind) ? kMayBlockName : 0) |
            (kind == CallKind::Allocation ? kAllocationName : 0));
    }
    std::map<uint32_t, int64_t> launches, anchors;
    for (const Event& e : model.events()) {
        if (isLaunchCall(e.category)) {
            ++launches[e.track.value];
            for (EventId p = model.idOf(e); p.valid() && !c.leadsToLaunch[p.value];
                 p = model.event(p).parent)
                c.leadsToLaunch[p.value] = true;
        }
        if (c.flags(e.name) & (kStepMarkerName | kDataLoaderName))
            ++anchors[e.track.value];
        if (e.category == Category::Memcpy) {
            const CopyKind kind = classifyCopy(model.text(e.name));
            const CopyInfo* info = model.copyInfo(model.idOf(e));
            if (kind.direction == CopyDirection::HostToDevice &&
                kind.hostMemory == HostMemory::Pinned && info && info->bytes > (1 << 20) &&
                e.durationNs > 0)
                c.pinnedBandwidth =
                    std::max(c.pinnedBandwidth, double(info->bytes) / double(e.durationNs));
        }
    }
    if (c.pinnedBandwidth <= 0) {
        // No pinned upload to measure: the PCIe generation of the GPU's era (x16, what a
        // pinned copy reaches in practice), in bytes per ns (= GB/s).
        int major = 0;
        for (const DeviceInfo& d : model.metadata().devices)
            major = std::max(major, d.computeMajor);
        c.pinnedBandwidth = major >= 9 ? 40.0 : major >= 8 ? 20.0 : 10.0;
    }
    // What each kernel does, from its name and its op, computed once per pair.
    c.kernelRoles.assign(model.events().size(), KernelRole::Other);
    KernelRoles roles(model);
    for (const Event& e : model.events())
        if (e.category == Category::Kernel)
            c.kernelRoles[model.idOf(e).value] = roles.of(e);
    for (const auto& [track, count] : launches)
        c.threads.insert(track);
    const auto& pick = anchors.empty() ? launches : anchors;
    int64_t best = 0;
    for (const auto& [track, count] : pick)
        if (count > best) {
            best = count;
            c.mainThread = track;
        }
    if (c.mainThread != TrackId::kInvalid)
        c.threads.insert(c.mainThread);
    return c;
}

namespace {

int priority(HostState s)
{
    switch (s) {
    case HostState::Launching:
        return 5;
    case HostState::CpuCompute:
        return 4;
    case HostState::Blocked:
        return 3;
    case HostState::DataLoader:
        return 2;
    case HostState::Python:
        return 1;
    case HostState::Idle:
        break;
    }
    return 0;
}

// An event open on the sweep's stack, with what its ancestors say about it.
struct OpenEvent
{
    EventId id;
    int64_t endNs;
    HostState state;  // the host's state while this event is the innermost one
    EventId outerOp;  // the outermost CPU op of its chain of CPU ops
    bool inDataLoader;
};

OpenEvent open(const TraceModel& model, const HostContext& c, EventId id, const OpenEvent* parent)
{
    const Event& e = model.event(id);
    const uint8_t flags = c.flags(e.name);
    OpenEvent o{id, e.endNs(), HostState::Idle, EventId{}, parent && parent->inDataLoader};
    o.inDataLoader = o.inDataLoader || (flags & kDataLoaderName);
    if (e.category == Category::CpuOp)
        o.outerOp =
            parent && parent->outerOp.valid() && model.event(parent->id).category == Category::CpuOp
                ? parent->outerOp
                : id;
    // Time in no recorded event (or only in the step marker) is not attributed: without
    // Python frames (with_stack) the profiler cannot say what the host did.
    if (o.inDataLoader) {
        o.state = HostState::DataLoader;
        return o;
    }
    switch (e.category) {
    case Category::Runtime:
    case Category::Driver:
        o.state = (flags & kMayBlockName) && blocksHost(model, e) ? HostState::Blocked
                                                                  : HostState::Launching;
        break;
    case Category::CpuOp:
        o.state = (flags & kScalarReadName) || c.leadsToLaunch[o.outerOp.value]
                      ? HostState::Launching
                      : HostState::CpuCompute;
        break;
    case Category::PythonFunction:
        o.state = HostState::Python;
        break;
    case Category::UserAnnotation:
        if (!(flags & (kStepMarkerName | kProfilerSpanName)))
            o.state = HostState::Python;
        break;
    default:
        break;
    }
    return o;
}

// One thread's time inside [begin, end), by the innermost event at each instant: one
// sweep over the thread's events with a stack of the open ones.
std::vector<Segment> threadSegments(const TraceModel& model, const HostContext& c, TrackId track,
                                    int64_t begin, int64_t end)
{
    std::vector<OpenEvent> stack;
    std::vector<EventId> chain;  // the events open at `begin`, innermost first
    for (EventId p = model.innermostEventAt(track, begin); p.valid(); p = model.event(p).parent)
        chain.push_back(p);
    for (size_t i = chain.size(); i-- > 0;)  // outermost first
        stack.push_back(open(model, c, chain[i], stack.empty() ? nullptr : &stack.back()));
    std::vector<Segment> segments;
    int64_t now = begin;
    auto emit = [&](int64_t until) {
        if (until <= now)
            return;
        const HostState s = stack.empty() ? HostState::Idle : stack.back().state;
        if (!segments.empty() && segments.back().state == s && segments.back().end == now)
            segments.back().end = until;
        else
            segments.push_back({now, until, s});
        now = until;
    };
    auto closeUntil = [&](int64_t t) {
        while (!stack.empty() && stack.back().endNs <= t) {
            emit(std::min(stack.back().endNs, end));
            stack.pop_back();
        }
    };
    const auto events = model.events(track);
    auto it = std::upper_bound(events.begin(), events.end(), begin,
                               [](int64_t t, const Event& e) { return t < e.startNs; });
    for (; it != events.end() && it->startNs < end; ++it) {
        closeUntil(it->startNs);
        emit(it->startNs);
        stack.push_back(open(model, c, model.idOf(*it), stack.empty() ? nullptr : &stack.back()));
    }
    closeUntil(end);
    emit(end);
    return segments;
}

}  // namespace

std::vector<Segment> mergedHostTimeline(const TraceModel& model, const HostContext& c,
                                        int64_t begin, int64_t end)
{
    std::vector<std::vector<Segment>> perThread;
    std::vector<int64_t> cuts = {begin, end};
    for (uint32_t t : c.threads) {
        perThread.push_back(threadSegments(model, c, TrackId{t}, begin, end));
        for (const Segment& s : perThread.back())
            cuts.push_back(s.begin);
    }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    std::vector<size_t> cursor(perThread.size(), 0);
    std::vector<Segment> merged;
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
        HostState best = HostState::Idle;
        for (size_t t = 0; t < perThread.size(); ++t) {
            const auto& segs = perThread[t];
            while (cursor[t] < segs.size() && segs[cursor[t]].end <= cuts[i])
                ++cursor[t];
            if (cursor[t] < segs.size() && segs[cursor[t]].begin <= cuts[i] &&
                priority(segs[cursor[t]].state) > priority(best))
                best = segs[cursor[t]].state;
        }
        if (!merged.empty() && merged.back().state == best)
            merged.back().end = cuts[i + 1];
        else
            merged.push_back({cuts[i], cuts[i + 1], best});
    }
    // A short stretch of Python or of unrecorded time between ops is part of the work
    // around it (per-op overhead between launches, the loop between CPU ops): it takes its
    // neighbour's state.
    auto absorbs = [](HostState s) {
        return s == HostState::Launching || s == HostState::CpuCompute;
    };
    for (size_t i = 0; i < merged.size(); ++i) {
        Segment& s = merged[i];
        if ((s.state != HostState::Python && s.state != HostState::Idle) ||
            s.end - s.begin >= kPythonRunNs)
            continue;
        if (i > 0 && absorbs(merged[i - 1].state))
            s.state = merged[i - 1].state;
        else if (i + 1 < merged.size() && absorbs(merged[i + 1].state))
            s.state = merged[i + 1].state;
    }
    std::vector<Segment> joined;
    for (const Segment& s : merged) {
        if (!joined.empty() && joined.back().state == s.state && joined.back().end == s.begin)
            joined.back().end = s.end;
        else
            joined.push_back(s);
    }
    return joined;
}

}  // namespace kinetoscope::analysis::detail
