#include "core/analysis/steps.h"

#include "core/analysis/breakdown.h"
#include "core/analysis/iterations.h"
#include "core/trace/printable.h"

#include <algorithm>
#include <limits>
#include <map>

namespace kinetoscope::analysis {

using namespace kinetoscope::trace;

namespace {

constexpr int64_t kNone = std::numeric_limits<int64_t>::max();

struct DeviceSpan
{
    int64_t begin = kNone;
    int64_t end = std::numeric_limits<int64_t>::min();
    uint32_t count = 0;
};

// For each step, the device work launched by launch calls that lie wholly inside the
// step's host span (a call straddling a boundary belongs to neither, as in the plugin).
std::vector<DeviceSpan> deviceSpans(const TraceModel& model, const std::vector<Step>& steps,
                                    std::vector<bool>& matched)
{
    std::vector<EventId> launches;
    for (const Event& e : model.events())
        if (isLaunchCall(e.category))
            launches.push_back(model.idOf(e));
    std::sort(launches.begin(), launches.end(), [&](EventId a, EventId b) {
        return model.event(a).startNs < model.event(b).startNs;
    });
    std::vector<DeviceSpan> spans(steps.size());
    size_t s = 0;
    for (EventId id : launches) {
        const Event& call = model.event(id);
        while (s < steps.size() && call.startNs >= steps[s].hostEndNs)
            ++s;
        if (s == steps.size())
            break;
        if (call.startNs < steps[s].hostBeginNs || call.endNs() > steps[s].hostEndNs)
            continue;
        for (EventId activityId : model.activitiesLaunchedBy(id)) {
            const Event& activity = model.event(activityId);
            if (!isDeviceWork(activity.category))
                continue;
            spans[s].begin = std::min(spans[s].begin, activity.startNs);
            spans[s].end = std::max(spans[s].end, activity.endNs());
            ++spans[s].count;
            matched[activityId.value] = true;
        }
    }
    return spans;
}

// Without device work, a last step the profiler stopped inside shows on the host: it ran
// far fewer CPU ops than the steps before it (its forward, without the backward and the
// optimizer's step). It is dropped below 80 % of their median, as a last step short of
// device work is (the median: a step before it that compiled or recompiled runs many
// more). Three steps at the least, and the lower median of an even count: of two steps
// before the last, the smaller (the first may hold one-off work: Adam's state created).
void dropUnfinishedHostStep(const TraceModel& model, StepDetection& detection)
{
    std::vector<Step>& steps = detection.steps;
    if (steps.size() < 3)
        return;
    std::vector<size_t> ops(steps.size(), 0);
    for (const Event& e : model.events()) {
        if (e.category != Category::CpuOp)
            continue;
        // The step it starts in (steps are time-ordered and do not overlap).
        const auto after =
            std::upper_bound(steps.begin(), steps.end(), e.startNs,
                             [](int64_t t, const Step& s) { return t < s.hostBeginNs; });
        if (after != steps.begin() && e.startNs < std::prev(after)->hostEndNs)
            ++ops[size_t(std::prev(after) - steps.begin())];
    }
    std::vector<size_t> before(ops.begin(), ops.end() - 1);
    const size_t middle = (before.size() - 1) / 2;
    std::nth_element(before.begin(), before.begin() + long(middle), before.end());
    if (static_cast<double>(ops.back()) < 0.8 * static_cast<double>(before[middle])) {
        steps.pop_back();
        detection.droppedIncompleteSteps = 1;
    }
}

void extendToDeviceWork(const TraceModel& model, StepDetection& detection)
{
    std::vector<Step>& steps = detection.steps;
    std::vector<bool> matched(model.events().size(), false);
    const std::vector<DeviceSpan> spans = deviceSpans(model, steps, matched);
    for (size_t i = 0; i < steps.size(); ++i)
        steps[i].deviceActivities = spans[i].count;
    const bool anyDeviceWork =
        std::any_of(spans.begin(), spans.end(), [](const DeviceSpan& d) { return d.count > 0; });
    if (!anyDeviceWork) {
        dropUnfinishedHostStep(model, detection);
        return;
    }

    // The first step starts no earlier than the end of device work launched before it
    // (and still running when the step's own device work begins).
    int64_t previousEnd = steps.front().hostBeginNs;
    if (spans.front().begin != kNone) {
        for (const Event& e : model.events())
            if (isDeviceWork(e.category) && !matched[model.idOf(e).value] &&
                e.endNs() < spans.front().begin)
                previousEnd = std::max(previousEnd, e.endNs());
    }
    for (size_t i = 0; i < steps.size(); ++i) {
        Step& step = steps[i];
        step.beginNs = std::max(previousEnd, step.hostBeginNs);
        step.endNs = step.hostEndNs;
        if (spans[i].begin == kNone)
            step.endNs = std::max(step.endNs, step.beginNs);
        else
            step.endNs = std::max({step.endNs, spans[i].end, step.beginNs});
        previousEnd = step.endNs;
    }

    // Trailing steps whose kernels were not all captured (the profiler stopped first)
    // would distort the averages: drop steps without device work at the end, and the
    // last one if it launched under 80 % of what the one before it did.
    if (steps.size() > 1) {
        size_t last = steps.size();
        while (last > 0 && spans[last - 1].count == 0)
            --last;
        if (last > 0) {
            size_t keep = last;
            if (last > 1 && spans[last - 2].count * 0.8 > spans[last - 1].count)
                keep = last - 1;
            detection.droppedIncompleteSteps = static_cast<int>(steps.size() - keep);
            steps.resize(keep);
        }
    }
}

}  // namespace

const char* stepSourceName(StepSource source)
{
    switch (source) {
    case StepSource::Markers:
        return "markers";
    case StepSource::DataLoaderCalls:
        return "dataloader";
    case StepSource::OptimizerSteps:
        return "optimizer";
    case StepSource::RepeatedCalls:
        return "repeated-calls";
    case StepSource::Window:
        break;
    }
    return "window";
}

namespace {

bool isHostWork(Category c)
{
    return c == Category::CpuOp || c == Category::UserAnnotation || c == Category::PythonFunction ||
           isLaunchCall(c);
}

// The profiler's own span ("PyTorch Profiler (0)") and the step markers say nothing about
// where the work is.
bool isProfilerSpan(const TraceModel& model, const Event& e)
{
    return e.category == Category::ProfilerSpan ||
           model.text(e.name).starts_with("PyTorch Profiler");
}

// Host activity [begin, end) of the trace, the profiler's span left out; the whole trace
// when there is none.
std::pair<int64_t, int64_t> hostExtent(const TraceModel& model)
{
    int64_t begin = kNone, end = std::numeric_limits<int64_t>::min();
    for (const Event& e : model.events()) {
        if (isHostWork(e.category) && !isProfilerSpan(model, e)) {
            begin = std::min(begin, e.startNs);
            end = std::max(end, e.endNs());
        }
    }
    if (begin == kNone)
        return {model.beginNs(), model.endNs()};
    return {begin, end};
}

// The outermost spans named by `match` on the thread that has most of them, in time
// order (nested repeats, e.g. a DataLoader inside a DataLoader, count once).
template <typename Match>
std::vector<const Event*> repeatedSpans(const TraceModel& model, Match match)
{
    std::map<uint32_t, std::vector<const Event*>> byTrack;
    for (const Event& e : model.events()) {
        if ((e.category != Category::CpuOp && e.category != Category::UserAnnotation) ||
            !match(model.text(e.name)))
            continue;
        bool nested = false;
        for (EventId p = e.parent; p.valid() && !nested; p = model.event(p).parent)
            nested = match(model.text(model.event(p).name));
        if (!nested)
            byTrack[e.track.value].push_back(&e);
    }
    std::vector<const Event*> best;
    for (auto& [track, spans] : byTrack)
        if (spans.size() > best.size())
            best = std::move(spans);
    std::sort(best.begin(), best.end(),
              [](const Event* a, const Event* b) { return a->startNs < b->startNs; });
    return best;
}

Step iteration(int64_t begin, int64_t end, size_t index)
{
    Step step;
    step.name = "Iteration#" + std::to_string(index);
    step.hostBeginNs = step.beginNs = begin;
    step.hostEndNs = step.endNs = end;
    return step;
}

// Iterations of a loop without step markers: each starts at a DataLoader __next__ (the
// last ends with the host activity), or else each ends with an Optimizer.step, or else
// they are found from the calls the loop repeats (iterations.h).
std::vector<Step> inferIterations(const TraceModel& model, StepSource& source, std::string& foundBy)
{
    const auto [hostBegin, hostEnd] = hostExtent(model);
    std::vector<Step> steps;
    const auto loads = repeatedSpans(model, [](std::string_view n) { return isDataLoaderOp(n); });
    if (loads.size() >= 2) {
        source = StepSource::DataLoaderCalls;
        for (size_t i = 0; i < loads.size(); ++i) {
            const int64_t end = i + 1 < loads.size() ? loads[i + 1]->startNs : hostEnd;
            if (end > loads[i]->startNs)
                steps.push_back(iteration(loads[i]->startNs, end, steps.size()));
        }
        return steps;
    }
    const auto updates =
        repeatedSpans(model, [](std::string_view n) { return n.starts_with("Optimizer.step#"); });
    if (updates.size() >= 2) {
        source = StepSource::OptimizerSteps;
        int64_t begin = hostBegin;
        for (const Event* update : updates) {
            if (update->endNs() > begin)
                steps.push_back(iteration(begin, update->endNs(), steps.size()));
            begin = update->endNs();
        }
        return steps;
    }
    if (const std::optional<RepeatedIterations> repeated = findRepeatedIterations(model)) {
        source = StepSource::RepeatedCalls;
        foundBy = "each starts at " + std::string(utf8Prefix(repeated->anchor, 60));
        // Known by neither training nor a model call: say what showed them to be iterations.
        if (repeated->mark == RepeatedIterations::Mark::TakesData)
            foundBy += " and draws or loads new data";
        if (!repeated->inside.empty())
            foundBy += ", inside " + std::string(utf8Prefix(repeated->inside.back(), 60)) +
                       (repeated->inside.size() > 1
                            ? " (" + std::to_string(repeated->inside.size()) + " levels down)"
                            : "");
        return repeated->steps;
    }
    return steps;
}

}  // namespace

StepDetection detectSteps(const TraceModel& model, const StepOptions& options)
{
    StepDetection detection;
    detection.marker = options.marker;
    if (!options.marker.empty()) {
        for (const Event& e : model.events()) {
            if (e.category != Category::CpuOp && e.category != Category::UserAnnotation)
                continue;
            const std::string_view name = model.text(e.name);
            if (!name.starts_with(options.marker))
                continue;
            Step step;
            step.name = std::string(name);
            step.hostBeginNs = step.beginNs = e.startNs;
            step.hostEndNs = step.endNs = e.endNs();
            detection.steps.push_back(std::move(step));
        }
    }
    std::sort(detection.steps.begin(), detection.steps.end(),
              [](const Step& a, const Step& b) { return a.hostBeginNs < b.hostBeginNs; });
    detection.fromMarkers = !detection.steps.empty();
    if (detection.fromMarkers)
        detection.source = StepSource::Markers;
    else
        detection.steps = inferIterations(model, detection.source, detection.foundBy);
    if (detection.steps.empty()) {
        detection.source = StepSource::Window;
        const auto [begin, end] = hostExtent(model);
        Step window;
        window.hostBeginNs = window.beginNs = begin;
        window.hostEndNs = window.endNs = end;
        detection.steps.push_back(window);
    }
    extendToDeviceWork(model, detection);
    return detection;
}

}  // namespace kinetoscope::analysis
