#include "core/analysis/step_model.h"

#include "core/analysis/breakdown.h"
#include "core/analysis/runtime_calls.h"
#include "core/analysis/tensor_cores.h"
#include "core/analysis/time_ranges.h"

#include <algorithm>
#include <limits>
#include <iterator>
#include <set>

namespace kinetoscope::analysis {

using namespace kinetoscope::trace;

namespace {

constexpr size_t kMaxModelledSteps = 32;
// Python stretches shorter than this between ops are per-op overhead (what a graph or
// compile removes with the launches), longer ones are host work of their own.
constexpr int64_t kPythonRunNs = 500'000;  // 500 us
// An activity that started this long after both its launch and its stream allowed, and
// within the slack of the end of an activity on another stream, waited for that one.
constexpr int64_t kDependencyWaitNs = 20'000;  // 20 us
constexpr int64_t kDependencySlackNs = 10'000;  // 10 us
// What a blocking call still costs when it no longer waits.
constexpr int64_t kCallFloorNs = 5'000;  // 5 us
// Fp32 SIMT GEMM/conv time over the same work on 16-bit Tensor Cores (conservative).
constexpr double kTensorCoreSpeedup = 2.0;
// The order in which causes are removed one after another: the specific before the
// general on the host (a sync, a pageable copy, the DataLoader, the optimizer's loop, the
// model's own conversions are fixes of their own; then Python and CPU-only ops; then the
// launch overhead every fix above also shrinks), and the device's own work last, judged
// once the host keeps up.
constexpr Cause kCreditOrder[] = {Cause::HostSync,   Cause::PageableCopy,   Cause::DataLoader,
                                  Cause::OptimizerHost, Cause::DeviceCopies, Cause::Python,
                                  Cause::CpuCompute, Cause::LaunchOverhead, Cause::Communication,
                                  Cause::Fp32Matmul};
static_assert(std::size(kCreditOrder) == kCauseCount);

bool isDeviceWork(Category c)
{
    return c == Category::Kernel || c == Category::Memcpy || c == Category::Memset;
}

bool isScalarRead(std::string_view name)
{
    return name == "aten::item" || name == "aten::_local_scalar_dense";
}

bool isCopyOp(std::string_view n)
{
    return n == "aten::copy_" || n == "aten::to" || n == "aten::_to_copy";
}

int priority(HostState s)
{
    switch (s) {
    case HostState::Launching: return 5;
    case HostState::CpuCompute: return 4;
    case HostState::Blocked: return 3;
    case HostState::DataLoader: return 2;
    case HostState::Python: return 1;
    case HostState::Idle: break;
    }
    return 0;
}

struct Segment
{
    int64_t begin;
    int64_t end;
    HostState state;
};

// Which host threads matter, and which of their ops lead to device work: computed once.
enum NameFlag : uint8_t {
    kDataLoaderName = 1,  // a DataLoader __next__
    kScalarReadName = 2,  // aten::item, aten::_local_scalar_dense
    kQuietName = 4,       // a step marker or the profiler's span: says nothing of the host
    kMayBlockName = 8,    // a synchronising or copy call: blocksHost() decides
};

struct HostContext
{
    std::set<uint32_t> threads;       // tracks that launch device work
    uint32_t mainThread = TrackId::kInvalid;
    std::vector<bool> leadsToLaunch;  // per event: the event or a descendant is a launch call
    std::vector<uint8_t> nameFlags;   // per interned name: kDataLoaderName | ...
    std::string marker;
    double pinnedBandwidth = 0;       // bytes per ns of the fastest pinned host-to-device copy
};

HostContext hostContext(const TraceModel& model, const StepDetection& steps)
{
    HostContext c;
    c.marker = steps.fromMarkers ? steps.marker : std::string();
    c.leadsToLaunch.assign(model.events().size(), false);
    c.nameFlags.resize(model.strings().size());
    for (size_t i = 0; i < c.nameFlags.size(); ++i) {
        const std::string_view name = model.text(StringId{static_cast<uint32_t>(i)});
        const CallKind kind = classifyRuntimeCall(name);
        c.nameFlags[i] = static_cast<uint8_t>((isDataLoaderOp(name) ? kDataLoaderName : 0) |
                                              (isScalarRead(name) ? kScalarReadName : 0) |
                                              ((c.marker.size() && name.starts_with(c.marker)) ||
                                                       name.starts_with("PyTorch Profiler")
                                                   ? kQuietName
                                                   : 0) |
                                              (mayBlockHost(kind) ? kMayBlockName : 0));
    }
    std::map<uint32_t, int64_t> launches, anchors;
    for (const Event& e : model.events()) {
        if (isLaunchCall(e.category)) {
            ++launches[e.track.value];
            for (EventId p = model.idOf(e); p.valid() && !c.leadsToLaunch[p.value]; p = model.event(p).parent)
                c.leadsToLaunch[p.value] = true;
        }
        if ((c.nameFlags[e.name.value] & (kQuietName | kDataLoaderName)) && !model.text(e.name).starts_with("PyTorch"))
            ++anchors[e.track.value];
        if (e.category == Category::Memcpy) {
            const CopyKind kind = classifyCopy(model.text(e.name));
            const CopyInfo* info = model.copyInfo(model.idOf(e));
            if (kind.direction == CopyDirection::HostToDevice && kind.hostMemory == HostMemory::Pinned && info &&
                info->bytes > (1 << 20) && e.durationNs > 0)
                c.pinnedBandwidth = std::max(c.pinnedBandwidth, double(info->bytes) / double(e.durationNs));
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
    const uint8_t flags = c.nameFlags[e.name.value];
    OpenEvent o{id, e.endNs(), HostState::Idle, EventId{}, parent && parent->inDataLoader};
    o.inDataLoader = o.inDataLoader || (flags & kDataLoaderName);
    if (e.category == Category::CpuOp)
        o.outerOp = parent && parent->outerOp.valid() && model.event(parent->id).category == Category::CpuOp
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
        o.state = (flags & kMayBlockName) && blocksHost(model, e) ? HostState::Blocked : HostState::Launching;
        break;
    case Category::CpuOp:
        o.state = (flags & kScalarReadName) || c.leadsToLaunch[o.outerOp.value] ? HostState::Launching
                                                                                : HostState::CpuCompute;
        break;
    case Category::PythonFunction:
        o.state = HostState::Python;
        break;
    case Category::UserAnnotation:
        if (!(flags & kQuietName))
            o.state = HostState::Python;
        break;
    default:
        break;
    }
    return o;
}

// One thread's time inside [begin, end), by the innermost event at each instant: one
// sweep over the thread's events with a stack of the open ones.
std::vector<Segment> threadSegments(const TraceModel& model, const HostContext& c, TrackId track, int64_t begin,
                                    int64_t end)
{
    std::vector<OpenEvent> stack;
    std::vector<EventId> chain;  // the events open at `begin`, innermost first
    for (EventId p = model.innermostEventAt(track, begin); p.valid(); p = model.event(p).parent)
        chain.push_back(p);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it)
        stack.push_back(open(model, c, *it, stack.empty() ? nullptr : &stack.back()));
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

// Every thread's segments merged into one timeline, the busiest state winning; short
// Python stretches become launch overhead.
std::vector<Segment> mergedHostTimeline(const TraceModel& model, const HostContext& c, int64_t begin, int64_t end)
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
            if (cursor[t] < segs.size() && segs[cursor[t]].begin <= cuts[i] && priority(segs[cursor[t]].state) > priority(best))
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
    auto absorbs = [](HostState s) { return s == HostState::Launching || s == HostState::CpuCompute; };
    for (size_t i = 0; i < merged.size(); ++i) {
        Segment& s = merged[i];
        if ((s.state != HostState::Python && s.state != HostState::Idle) || s.end - s.begin >= kPythonRunNs)
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
        const auto it = std::upper_bound(m_ranges.begin(), m_ranges.end(), t,
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

struct Activity
{
    int64_t launchNs;  // end of the launch call (a blocking call's own copy: the call's
                       // begin); the start when the call is unknown
    int64_t startNs;
    int64_t durationNs;
    int64_t latencyNs;  // start - max(launch, previous end on the stream): may be < 0 (skew)
    uint32_t stream;
    uint32_t syncItem = UINT32_MAX;  // launched by this blocking call (its own copy)
    uint32_t dependsOn = UINT32_MAX; // the activity on another stream it waited for
    int64_t overlapNs = -1;  // >= 0: it started this long after the previous activity on its
                             // stream started, before that one ended (kernels of one graph
                             // may run concurrently): the replay keeps that offset
    uint16_t causes = 0;   // bit per Cause whose removal shortens it
    int64_t pinnedNs = -1; // duration from pinned memory, for pageable host-to-device copies
};

struct BlockingCall
{
    EventId call;
    int64_t beginNs;
    int64_t endNs;
    int64_t residualNs;    // the call's own cost after the awaited work finished
    bool waits;            // false: it awaited nothing in the step; a fixed host cost
    Cause cause;           // HostSync or PageableCopy
    uint32_t awaitedCollective = UINT32_MAX;  // the collective it waited for, if it did: what
                                              // follows a read after a collective uses its result
};

struct StepInputs
{
    int64_t beginNs = 0;
    int64_t hostBeginNs = 0;   // the step's host span (its marker), which sets the period of
    int64_t hostEndNs = 0;     // the loop when the host is the slower side
    int64_t hostExcessNs = 0;  // how much longer the host span is than the measured step
    int64_t hostBlockedNs = 0; // time in the host span spent waiting for the device
    std::vector<Activity> activities;  // by launch time
    std::vector<BlockingCall> calls;   // by begin
    std::vector<std::vector<size_t>> own;  // per call: the activities it launched itself
    std::map<uint32_t, int64_t> streamFree;  // per stream: end of the work queued before the step
    int64_t deviceBusyNs = 0;                // union of the step's device work, as measured
    std::array<RangeSet, kCauseCount> removedHost;
};

// The host work behind a step starts with its marker, which may be well before the step
// itself begins (when the device lags, the step begins where the last one's work ended).
int64_t hostFrom(const Step& step)
{
    return std::min(step.hostBeginNs, step.beginNs);
}

uint16_t bit(Cause c)
{
    return static_cast<uint16_t>(1u << static_cast<unsigned>(c));
}

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

StepInputs stepInputs(const TraceModel& model, const HostContext& c, const Step& step,
                      const std::vector<Segment>& host, std::array<double, kCauseCount>& deviceNs)
{
    StepInputs in;
    in.beginNs = step.beginNs;
    in.hostEndNs = std::min(step.endNs, std::max(step.hostEndNs, step.beginNs));
    in.hostBeginNs = std::min(step.hostBeginNs, in.hostEndNs);
    in.hostExcessNs = std::max<int64_t>(0, (in.hostEndNs - in.hostBeginNs) - step.durationNs());
    for (const Segment& s : host)
        if (s.state == HostState::Blocked)
            in.hostBlockedNs += std::max<int64_t>(0, std::min(s.end, in.hostEndNs) - std::max(s.begin, in.hostBeginNs));
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
            if (isLaunchCall(it->category) && blocksHost(model, *it)) {
                BlockingCall call{model.idOf(*it), it->startNs, it->endNs(), 0, false, Cause::HostSync};
                for (EventId a : model.activitiesLaunchedBy(model.idOf(*it)))
                    if (isBulkPageableCopy(model, model.event(a)))
                        call.cause = Cause::PageableCopy;
                in.calls.push_back(call);
                // From pinned memory the upload's call returns at once: its staging time goes.
                if (call.cause == Cause::PageableCopy)
                    removed[size_t(Cause::PageableCopy)].push_back({call.beginNs, call.endNs});
                // Reading a value back (.item(), .cpu(), .to("cpu")) is removed whole by the
                // fix, its op dispatch with its wait.
                if (call.cause == Cause::HostSync) {
                    EventId outer;
                    for (EventId p = it->parent; p.valid() && model.event(p).category == Category::CpuOp &&
                                                 (isScalarRead(model.text(model.event(p).name)) ||
                                                  isCopyOp(model.text(model.event(p).name)));
                         p = model.event(p).parent)
                        outer = p;
                    if (outer.valid())
                        removed[size_t(Cause::HostSync)].push_back({model.event(outer).startNs, model.event(outer).endNs()});
                }
            }
        }
    }
    removed[size_t(Cause::OptimizerHost)] = intersect(unionOf(removed[size_t(Cause::LaunchOverhead)]), unionOf(optimizer));
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
    for (const auto& [stream, events] : byStream) {
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
            const std::string_view opName = e->op.valid() ? model.text(model.event(e->op).name) : std::string_view();
            if (e->category == Category::Kernel) {
                if (isCommunicationKernel(name) || isCommunicationOp(opName))
                    a.causes |= bit(Cause::Communication);
                else if (isFp32Matmul(model, *e, name))
                    a.causes |= bit(Cause::Fp32Matmul);
                else if (isCopyOp(opName))
                    a.causes |= bit(Cause::DeviceCopies);
            } else if (e->category == Category::Memcpy) {
                const CopyKind kind = classifyCopy(name);
                if (kind.direction == CopyDirection::DeviceToDevice && isCopyOp(opName))
                    a.causes |= bit(Cause::DeviceCopies);
                const CopyInfo* info = model.copyInfo(model.idOf(*e));
                if (isBulkPageableCopy(model, *e) && info && info->bytes > 0 && c.pinnedBandwidth > 0)
                    a.pinnedNs = std::min<int64_t>(e->durationNs, static_cast<int64_t>(double(info->bytes) / c.pinnedBandwidth));
            }
            for (size_t k = 0; k < kCauseCount; ++k)
                if (a.causes & bit(Cause(k)))
                    deviceNs[k] += static_cast<double>(a.durationNs);
            // A conversion the model no longer makes costs no host time either: the copy
            // op goes with its device work.
            if (a.causes & bit(Cause::DeviceCopies)) {
                EventId outer = e->op;
                while (model.event(outer).parent.valid() && isCopyOp(model.text(model.event(model.event(outer).parent).name)))
                    outer = model.event(outer).parent;
                copyOps.push_back({model.event(outer).startNs, model.event(outer).endNs()});
            }
            in.activities.push_back(a);
        }
    }
    in.removedHost[size_t(Cause::DeviceCopies)] = unionOf(std::move(copyOps));
    std::vector<TimeRange> busy;
    for (const Activity& a : in.activities)
        busy.push_back({a.startNs, a.startNs + a.durationNs});
    in.deviceBusyNs = lengthWithin(unionOf(std::move(busy)), step.beginNs, step.endNs);
    std::sort(in.activities.begin(), in.activities.end(), [](const Activity& a, const Activity& b) {
        return a.launchNs != b.launchNs ? a.launchNs < b.launchNs : a.startNs < b.startNs;
    });
    // An activity that started long after its launch and its stream allowed, right when
    // an activity on another stream ended, waited for it (an event wait between streams).
    std::vector<std::pair<int64_t, uint32_t>> ends;  // (end, index), by end
    for (size_t i = 0; i < in.activities.size(); ++i)
        ends.emplace_back(in.activities[i].startNs + in.activities[i].durationNs, static_cast<uint32_t>(i));
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
        if (last != SIZE_MAX && (in.activities[last].causes & bit(Cause::Communication)))
            call.awaitedCollective = static_cast<uint32_t>(last);
        int64_t awaited = completed;
        for (size_t i : in.own[k])
            awaited = std::max(awaited, in.activities[i].startNs + in.activities[i].durationNs);
        call.waits = awaited > call.beginNs && awaited <= call.endNs;
        call.residualNs = call.waits ? call.endNs - awaited : call.endNs - call.beginNs;
    }
    return in;
}

// The step's length replayed with the causes in `removedMask` taken away.
int64_t replay(const StepInputs& in, uint16_t removedMask)
{
    std::vector<TimeRange> ranges;
    for (size_t k = 0; k < kCauseCount; ++k)
        if (removedMask & bit(Cause(k)))
            ranges.insert(ranges.end(), in.removedHost[k].begin(), in.removedHost[k].end());
    const RemovedTime removed(unionOf(std::move(ranges)));
    int64_t saved = 0;  // time the blocking calls returned earlier than measured
    auto warp = [&](int64_t t) { return t - removed.before(t) - saved; };
    std::map<uint32_t, int64_t> streamFree = in.streamFree;
    std::map<uint32_t, int64_t> streamLastStart;
    int64_t deviceEnd = std::numeric_limits<int64_t>::min(), completed = std::numeric_limits<int64_t>::min();
    constexpr int64_t kUnset = std::numeric_limits<int64_t>::min();
    std::vector<int64_t> replayedEnd(in.activities.size(), kUnset);
    int64_t shortened = 0;  // device time the removed causes took out
    int64_t afterCollective = std::numeric_limits<int64_t>::min();  // see BlockingCall
    auto run = [&](const Activity& a, int64_t launch) {
        int64_t duration = a.durationNs;
        if (a.causes & removedMask & bit(Cause::Fp32Matmul))
            duration = static_cast<int64_t>(static_cast<double>(duration) / kTensorCoreSpeedup);
        else if (a.causes & removedMask)
            duration = 0;
        if (a.pinnedNs >= 0 && (removedMask & bit(Cause::PageableCopy)))
            duration = a.pinnedNs;
        shortened += a.durationNs - duration;
        auto [it, fresh] = streamFree.try_emplace(a.stream, std::numeric_limits<int64_t>::min());
        int64_t& lastStart = streamLastStart.try_emplace(a.stream, std::numeric_limits<int64_t>::min()).first->second;
        const int64_t streamAllows = a.overlapNs >= 0 ? lastStart + a.overlapNs : it->second;
        int64_t start = std::max(launch + a.latencyNs, streamAllows);
        start = std::max(start, afterCollective);
        if (a.dependsOn != UINT32_MAX) {
            // It still waits for the activity on the other stream: as replayed, or as
            // measured if that one is launched later (not replayed yet).
            const int64_t awaitedEnd = replayedEnd[a.dependsOn] != kUnset
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
        const int64_t until = k < in.calls.size() ? in.calls[k].beginNs : std::numeric_limits<int64_t>::max();
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
        const bool freed = removedMask & bit(call.cause);
        if (freed && call.awaitedCollective != UINT32_MAX && replayedEnd[call.awaitedCollective] != kUnset)
            afterCollective = std::max(afterCollective, replayedEnd[call.awaitedCollective]);
        const int64_t leave = freed ? arrive + std::min(call.residualNs, kCallFloorNs)
                                    : std::max(arrive, awaited) + call.residualNs;
        saved += std::max<int64_t>(0, warp(call.endNs) - leave);
    }
    // Streams overlap no more than they did: without device work removed, the step is no
    // shorter than the time the device was busy in it.
    // The loop runs no faster than its host: a step is no shorter than the host's own work
    // in its span (what is left of it; its waits for the device are the device's pace).
    const int64_t hostPeriod = warp(in.hostEndNs) - warp(in.hostBeginNs) - in.hostExcessNs - in.hostBlockedNs;
    return std::max({std::max(warp(in.hostEndNs), deviceEnd) - in.beginNs, in.deviceBusyNs - shortened, hostPeriod});
}

}  // namespace

const char* hostStateName(HostState state)
{
    static constexpr const char* names[] = {"idle", "python", "dataloader", "blocked", "cpu_compute", "launching"};
    return names[static_cast<size_t>(state)];
}

const char* causeName(Cause cause)
{
    static constexpr const char* names[] = {"dataloader",    "python",       "launch_overhead",
                                            "host_sync",     "pageable_copy", "device_copies",
                                            "fp32_matmul",   "communication", "optimizer_host",
                                            "cpu_compute"};
    return names[static_cast<size_t>(cause)];
}

CausalModel buildCausalModel(const TraceModel& model, const StepDetection& steady)
{
    CausalModel result;
    const std::vector<Step>& all = steady.steps;
    if (all.empty())
        return result;
    const HostContext context = hostContext(model, steady);
    // An even sample of the steps keeps the cost bounded on traces of thousands of steps.
    std::vector<size_t> picked;
    const size_t count = std::min(all.size(), kMaxModelledSteps);
    for (size_t i = 0; i < count; ++i)
        picked.push_back(i * all.size() / count);

    for (size_t index : picked) {
        const Step& step = all[index];
        const std::vector<Segment> host = mergedHostTimeline(model, context, hostFrom(step), step.endNs);
        StepInputs in = stepInputs(model, context, step, host, result.deviceNs);
        result.blockingCalls += static_cast<int64_t>(in.calls.size());

        // Device busy and idle, the idle attributed to the host's state.
        std::vector<TimeRange> busy;
        for (const Activity& a : in.activities)
            busy.push_back({a.startNs, a.startNs + a.durationNs});
        const RangeSet busySet = intersect(unionOf(std::move(busy)), {{step.beginNs, step.endNs}});
        const RangeSet idle = subtract({{step.beginNs, step.endNs}}, busySet);
        result.deviceBusyNs += static_cast<double>(totalLength(busySet));
        result.deviceIdleNs += static_cast<double>(totalLength(idle));
        for (const Segment& s : host) {
            const int64_t b = std::max(s.begin, step.beginNs), e = std::min(s.end, step.endNs);
            if (b >= e)
                continue;
            result.hostByState[size_t(s.state)] += static_cast<double>(e - b);
            result.idleByHostState[size_t(s.state)] += static_cast<double>(lengthWithin(idle, b, e));
        }

        // Gains: each cause alone, then credited one after another in a fixed order.
        const int64_t base = replay(in, 0);
        result.stepNs += static_cast<double>(step.durationNs());
        result.replayedStepNs += static_cast<double>(base);
        std::array<int64_t, kCauseCount> solo{};
        for (size_t k = 0; k < kCauseCount; ++k) {
            solo[k] = std::max<int64_t>(0, base - replay(in, bit(Cause(k))));
            result.soloGainNs[k] += static_cast<double>(solo[k]);
        }
        uint16_t mask = 0;
        int64_t previous = base;
        // Credited gains are scaled to the measured step when the replay overshoots it.
        const double scale = base > step.durationNs() && base > 0 ? double(step.durationNs()) / double(base) : 1.0;
        for (Cause cause : kCreditOrder) {
            const size_t k = static_cast<size_t>(cause);
            mask |= bit(cause);
            const int64_t now = replay(in, mask);
            const int64_t added = std::max<int64_t>(0, previous - now);
            // Credited: what the removal adds at its turn, but never more than the cause
            // saves on its own: the gain of two fixes together beyond the sum of each
            // alone is nobody's (it is in afterOthersNs).
            result.afterOthersNs[k] += scale * static_cast<double>(added);
            result.gainNs[k] += scale * static_cast<double>(std::min(added, solo[k]));
            previous = std::min(previous, now);
        }
    }
    const double n = static_cast<double>(picked.size());
    result.stepsModelled = picked.size();
    for (double* v : {&result.stepNs, &result.replayedStepNs, &result.deviceBusyNs, &result.deviceIdleNs})
        *v /= n;
    for (auto* array : {&result.idleByHostState, &result.hostByState})
        for (double& v : *array)
            v /= n;
    for (auto* array : {&result.soloGainNs, &result.gainNs, &result.afterOthersNs, &result.deviceNs})
        for (double& v : *array)
            v /= n;
    return result;
}

}  // namespace kinetoscope::analysis
