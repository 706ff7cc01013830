#include "core/analysis/host_profile.h"

#include "core/analysis/breakdown.h"
#include "core/analysis/iterations.h"
#include "core/analysis/op_nesting.h"
#include "core/analysis/time_ranges.h"
#include "core/trace/name_cache.h"
#include "core/trace/python_frame.h"

#include <algorithm>
#include <map>

namespace kinetoscope::analysis {

using namespace kinetoscope::trace;

namespace {

// The thread that runs the loop: the one holding the step markers or the DataLoader's
// calls, else the one whose top-level calls take the most time.
TrackId loopThread(const TraceModel& model, const StepDetection& steps)
{
    std::map<uint32_t, int64_t> anchors;
    auto isAnchor = perName<bool>(model, [&](std::string_view n) {
        return (steps.fromMarkers && !steps.marker.empty() && n.starts_with(steps.marker)) ||
               isDataLoaderOp(n);
    });
    for (const Event& e : model.events())
        if ((e.category == Category::CpuOp || e.category == Category::UserAnnotation) &&
            isAnchor(e.name))
            ++anchors[e.track.value];
    TrackId best;
    int64_t most = 0;
    for (const auto& [track, count] : anchors)
        if (count > most && model.track(TrackId{track}).kind != TrackKind::GpuStream)
            most = count, best = TrackId{track};
    return best.valid() ? best : busiestHostThread(model);
}

enum Role : uint8_t
{
    kNone = 0,
    kMarker = 1,      // a step marker or the profiler's span: says nothing of the work
    kDataLoader = 2,  // a DataLoader __next__
    kRandom = 4,      // draws a random tensor
    kModule = 8,      // an nn.Module span (with_stack / with_modules)
};

// Python frames, properly nested, in start order: the frames open at a time, outermost
// first, advanced through time once (steps in time order).
class OpenFrames
{
public:
    explicit OpenFrames(std::vector<const Event*> frames) : m_frames(std::move(frames)) {}

    // The frames open at `t` (started before it, ending after it), and the index of the
    // first frame starting at or after `t`.
    std::pair<std::vector<const Event*>, size_t> at(int64_t t)
    {
        for (; m_next < m_frames.size() && m_frames[m_next]->startNs < t; ++m_next)
            push(m_stack, m_frames[m_next]);
        popEnded(m_stack, t);
        return {m_stack, m_next};
    }
    const std::vector<const Event*>& frames() const { return m_frames; }

    static void push(std::vector<const Event*>& stack, const Event* frame)
    {
        popEnded(stack, frame->startNs);
        stack.push_back(frame);
    }
    static void popEnded(std::vector<const Event*>& stack, int64_t t)
    {
        while (!stack.empty() && stack.back()->endNs() <= t)
            stack.pop_back();
    }

private:
    std::vector<const Event*> m_frames;
    std::vector<const Event*> m_stack;
    size_t m_next = 0;
};

// Credits each stretch of a step's time in no op (`idle`, sorted, disjoint, inside the
// step) to the innermost Python frame open over it, by frame name: (ns, frame calls that
// hold some). Every nanosecond goes to one frame at most.
void addIdleFrames(OpenFrames& open, const RangeSet& idle,
                   std::map<uint32_t, std::pair<double, double>>& frames)
{
    if (idle.empty())
        return;
    auto [stack, next] = open.at(idle.front().begin);
    const std::vector<const Event*>& all = open.frames();
    std::vector<const Event*> credited;
    for (const TimeRange& range : idle) {
        int64_t t = range.begin;
        while (t < range.end) {
            for (; next < all.size() && all[next]->startNs <= t; ++next)
                OpenFrames::push(stack, all[next]);
            OpenFrames::popEnded(stack, t);
            int64_t until = range.end;  // the innermost frame holds until here
            if (!stack.empty())
                until = std::min(until, stack.back()->endNs());
            if (next < all.size())
                until = std::min(until, all[next]->startNs);
            if (!stack.empty()) {
                const Event* frame = stack.back();
                frames[frame->name.value].first += double(until - t);
                if (std::find(credited.begin(), credited.end(), frame) == credited.end()) {
                    credited.push_back(frame);
                    frames[frame->name.value].second += 1;
                }
            }
            t = until;
        }
    }
}

}  // namespace

bool isRandomDataOp(std::string_view name)
{
    static constexpr std::string_view kOps[] = {
        "aten::randn",       "aten::rand",         "aten::randint",   "aten::randn_like",
        "aten::rand_like",   "aten::randint_like", "aten::randperm",  "aten::normal",
        "aten::normal_",     "aten::uniform_",     "aten::bernoulli", "aten::bernoulli_",
        "aten::multinomial", "aten::exponential_", "aten::random_",   "aten::poisson",
    };
    return std::find(std::begin(kOps), std::end(kOps), name) != std::end(kOps);
}

HostProfile profileHost(const TraceModel& model, const StepDetection& steady)
{
    HostProfile p;
    if (steady.steps.empty())
        return p;
    p.thread = loopThread(model, steady);
    if (!p.thread.valid())
        return p;
    auto role = perName<uint8_t>(model, [&](std::string_view n) -> uint8_t {
        const bool marker = (!steady.marker.empty() && n.starts_with(steady.marker)) ||
                            n.starts_with("PyTorch Profiler");
        return static_cast<uint8_t>((marker ? kMarker : 0) | (isDataLoaderOp(n) ? kDataLoader : 0) |
                                    (isRandomDataOp(n) ? kRandom : 0) |
                                    (n.starts_with("nn.Module:") ? kModule : 0));
    });
    // A random op drawn by the loop itself: no op, module or DataLoader above it (the step
    // marker may be an op: older exports file ProfilerStep#N as an Operator).
    auto drawnByTheLoop = [&](const Event& e) {
        for (EventId a = e.parent; a.valid(); a = model.event(a).parent) {
            const Event& up = model.event(a);
            const uint8_t r = role(up.name);
            if ((up.category == Category::CpuOp && !(r & kMarker)) || (r & (kModule | kDataLoader)))
                return false;
        }
        return true;
    };
    // Work on the other host threads: while the loop's thread waits outside its own ops,
    // the backward may run on the autograd engine's thread, or a collective on gloo's.
    // That wait is theirs, not Python's.
    std::vector<TimeRange> elsewhere;
    for (const Event& e : model.events()) {
        if (e.track == p.thread || model.track(e.track).kind == TrackKind::GpuStream ||
            (role(e.name) & kMarker))
            continue;
        if (e.category == Category::CpuOp || isLaunchCall(e.category) ||
            (e.category == Category::UserAnnotation && isCommunicationOp(model.text(e.name))))
            elsewhere.push_back({e.startNs, e.endNs()});
    }
    const RangeSet otherThreads = unionOf(std::move(elsewhere));
    std::map<uint32_t, std::pair<double, double>> self;  // name -> (self ns, calls)
    // An op's self time here is its own work: the ops it ran are out of it, through the
    // Python frames and record_function ranges between (which are not entries of their own).
    EnclosingEvent enclosing(model, {Category::PythonFunction, Category::UserAnnotation});
    std::map<uint32_t, double> random;
    std::map<uint32_t, std::pair<double, double>> frames;  // name -> (idle ns, calls)
    const auto events = model.events(p.thread);
    std::vector<const Event*> pythonFrames;  // the loop thread's, in start order
    for (const Event& e : events)
        if (e.category == Category::PythonFunction)
            pythonFrames.push_back(&e);
    OpenFrames python(std::move(pythonFrames));
    std::vector<Step> inTimeOrder(steady.steps.begin(), steady.steps.end());
    std::sort(inTimeOrder.begin(), inTimeOrder.end(),
              [](const Step& a, const Step& b) { return a.hostBeginNs < b.hostBeginNs; });
    for (const Step& step : inTimeOrder) {
        const int64_t begin = step.hostBeginNs;
        const int64_t end = step.hostEndNs > step.hostBeginNs ? step.hostEndNs : step.endNs;
        if (end <= begin)
            continue;
        ++p.steps;
        p.stepNs += double(end - begin);
        std::vector<TimeRange> loader, ops, drawn;
        auto it = std::lower_bound(events.begin(), events.end(), begin,
                                   [](const Event& e, int64_t t) { return e.startNs < t; });
        for (; it != events.end() && it->startNs < end; ++it) {
            const Event& e = *it;
            const TimeRange clipped{e.startNs, std::min(e.endNs(), end)};
            const uint8_t r = role(e.name);
            if (r & kMarker)
                continue;
            if (r & kDataLoader) {
                loader.push_back(clipped);
                continue;
            }
            if (e.category == Category::CpuOp || isLaunchCall(e.category))
                ops.push_back(clipped);
            if (e.category != Category::CpuOp)
                continue;
            auto& [selfNs, calls] = self[e.name.value];
            selfNs += double(e.durationNs);
            calls += 1;
            if (const EventId owner = enclosing.of(e);
                owner.valid() && model.event(owner).category == Category::CpuOp)
                self[model.event(owner).name.value].first -= double(e.durationNs);
            if ((r & kRandom) && drawnByTheLoop(e)) {
                drawn.push_back(clipped);
                random[e.name.value] += double(clipped.length());
            }
        }
        const RangeSet loaderSet = unionOf(std::move(loader));
        p.dataLoaderNs += double(totalLength(loaderSet));
        p.randomDataNs += double(totalLength(subtract(unionOf(std::move(drawn)), loaderSet)));
        std::vector<TimeRange> all(ops);
        all.insert(all.end(), loaderSet.begin(), loaderSet.end());
        // The other threads' work in this step only (the set is sorted and disjoint).
        for (auto r = std::upper_bound(otherThreads.begin(), otherThreads.end(), begin,
                                       [](int64_t t, const TimeRange&x) { return t < x.end; });
             r != otherThreads.end() && r->begin < end; ++r)
            all.push_back(*r);
        const RangeSet busy = unionOf(std::move(all));
        p.outsideOpsNs += double(end - begin - lengthWithin(busy, begin, end));
        if (!python.frames().empty())
            addIdleFrames(python, subtract(RangeSet{{begin, end}}, busy), frames);
    }
    if (p.steps == 0)
        return p;
    const double n = double(p.steps);
    for (double* v : {&p.stepNs, &p.dataLoaderNs, &p.randomDataNs, &p.outsideOpsNs})
        *v /= n;
    for (const auto& [name, value] : self)
        p.bySelfTime.push_back({std::string(model.text(StringId{name})),
                                std::max(0.0, value.first) / n, value.second / n});
    std::sort(p.bySelfTime.begin(), p.bySelfTime.end(),
              [](const HostOpTime& a, const HostOpTime& b) { return a.selfNs > b.selfNs; });
    if (p.bySelfTime.size() > 8)
        p.bySelfTime.resize(8);
    std::vector<std::pair<double, std::string>> byTime;
    byTime.reserve(random.size());
    for (const auto& [name, ns] : random)
        byTime.emplace_back(ns, std::string(model.text(StringId{name})));
    std::sort(byTime.rbegin(), byTime.rend());
    for (const auto& [ns, name] : byTime)
        p.randomOps.push_back(name);
    std::map<std::string, std::pair<double, double>> byFrame;  // built-ins at any address as one
    for (const auto& [name, value] : frames) {
        auto& [selfNs, calls] = byFrame[pythonCallName(model.text(StringId{name}))];
        selfNs += value.first;
        calls += value.second;
    }
    for (const auto& [name, value] : byFrame)
        if (value.first > 0)
            p.outsideOpsFrames.push_back({name, value.first / n, value.second / n});
    std::sort(p.outsideOpsFrames.begin(), p.outsideOpsFrames.end(),
              [](const HostOpTime& a, const HostOpTime& b) { return a.selfNs > b.selfNs; });
    if (p.outsideOpsFrames.size() > 3)
        p.outsideOpsFrames.resize(3);
    return p;
}

}  // namespace kinetoscope::analysis
