#include "core/analysis/steps.h"

#include <algorithm>
#include <limits>

namespace kinetoscope::analysis {

using namespace kinetoscope::trace;

namespace {

constexpr int64_t kNone = std::numeric_limits<int64_t>::max();

bool isCountedActivity(Category c)
{
    return c == Category::Kernel || c == Category::Memcpy || c == Category::Memset;
}

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
            if (!isCountedActivity(activity.category))
                continue;
            spans[s].begin = std::min(spans[s].begin, activity.startNs);
            spans[s].end = std::max(spans[s].end, activity.endNs());
            ++spans[s].count;
            matched[activityId.value] = true;
        }
    }
    return spans;
}

void extendToDeviceWork(const TraceModel& model, StepDetection& detection)
{
    std::vector<Step>& steps = detection.steps;
    std::vector<bool> matched(model.events().size(), false);
    const std::vector<DeviceSpan> spans = deviceSpans(model, steps, matched);
    for (size_t i = 0; i < steps.size(); ++i)
        steps[i].deviceActivities = spans[i].count;
    const bool anyDeviceWork = std::any_of(spans.begin(), spans.end(),
                                           [](const DeviceSpan& d) { return d.count > 0; });
    if (!anyDeviceWork)
        return;

    // The first step starts no earlier than the end of device work launched before it
    // (and still running when the step's own device work begins).
    int64_t previousEnd = steps.front().hostBeginNs;
    if (spans.front().begin != kNone) {
        for (const Event& e : model.events())
            if (isCountedActivity(e.category) && !matched[model.idOf(e).value] &&
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
    if (!detection.fromMarkers) {
        // One window over the host activity (the whole trace when there is none).
        int64_t begin = kNone, end = std::numeric_limits<int64_t>::min();
        for (const Event& e : model.events()) {
            if (e.category == Category::CpuOp || e.category == Category::PythonFunction) {
                begin = std::min(begin, e.startNs);
                end = std::max(end, e.endNs());
            }
        }
        if (begin == kNone) {
            begin = model.beginNs();
            end = model.endNs();
        }
        Step window;
        window.hostBeginNs = window.beginNs = begin;
        window.hostEndNs = window.endNs = end;
        detection.steps.push_back(window);
    }
    extendToDeviceWork(model, detection);
    return detection;
}

}  // namespace kinetoscope::analysis
