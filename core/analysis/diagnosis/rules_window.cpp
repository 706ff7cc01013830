// Rules about the window itself, read before any per-step rule: warm-up in the window,
// a graph-capture window, no device activity recorded, a counters-only trace, a window
// too short to judge, and the trace's quality problems. They save no time per step;
// they say what the other findings (or their absence) mean.
#include "core/analysis/diagnosis/rule_helpers.h"
#include "core/analysis/diagnosis/rules.h"

#include <algorithm>

namespace kinetoscope::analysis::rules {

namespace {

Finding windowFinding(const char* id, Severity severity)
{
    Finding f;
    f.id = id;
    f.severity = severity;
    f.aboutWindow = true;
    f.gainMethod = "not a per-step cost: it says what the window is";
    return f;
}

const char* kProfileAfterWarmUp =
    "prof = torch.profiler.profile(\n"
    "    activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA],\n"
    "    schedule=torch.profiler.schedule(wait=1, warmup=2, active=3),\n"
    "    on_trace_ready=torch.profiler.tensorboard_trace_handler(\"./log\"))\n"
    "with prof:\n"
    "    for step, batch in enumerate(loader):\n"
    "        train_step(batch)\n"
    "        prof.step()  # marks ProfilerStep#N\n";

}  // namespace

void warmUpInWindow(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const WindowClass& w = in.summary.window;
    // torch.compile compiling a frame again mid-run is no warm-up: recompilation's.
    const std::vector<compiled::Compilation>& compilations = in.summary.compiled.compilations;
    auto isRecompile = [&](const OneOffCost& o) {
        return std::any_of(
            compilations.begin(), compilations.end(),
            [&](const compiled::Compilation& k) { return k.recompile && k.beginNs == o.beginNs; });
    };
    auto holdsRecompile = [&](const Step& s) {
        return std::any_of(compilations.begin(), compilations.end(),
                           [&](const compiled::Compilation& k) {
                               return k.recompile && k.beginNs >= s.beginNs && k.beginNs < s.endNs;
                           });
    };
    // Steps left out of the steady state (none when no step is steady: all are judged), and
    // how long they took against a steady step.
    size_t excluded = 0;
    int64_t leftOutNs = 0, slowestLeftOutNs = 0;
    std::vector<int64_t> steadyNs;
    for (size_t i = 0; i < w.roles.size(); ++i) {
        if (w.roles[i] == StepRole::Steady) {
            steadyNs.push_back(w.allSteps[i].durationNs());
        } else if (w.steadyCount() > 0 && w.roles[i] != StepRole::ExtraPass &&
                   !holdsRecompile(w.allSteps[i])) {
            ++excluded;
            leftOutNs += w.allSteps[i].durationNs();
            slowestLeftOutNs = std::max(slowestLeftOutNs, w.allSteps[i].durationNs());
        }
    }
    std::sort(steadyNs.begin(), steadyNs.end());
    const int64_t steadyMedianNs = steadyNs.empty() ? 0 : steadyNs[steadyNs.size() / 2];
    std::vector<const OneOffCost*> warmUp;
    std::vector<TimeRange> warmUpRanges;
    for (const OneOffCost& o : w.oneOffs)
        if (!o.beforeWindow && !isRecompile(o)) {
            warmUp.push_back(&o);
            warmUpRanges.push_back({o.beginNs, o.endNs});
        }
    if (warmUp.empty() && excluded == 0)
        return;
    const int64_t warmUpNs = totalLength(unionOf(std::move(warmUpRanges)));
    const double windowShare =
        share(static_cast<double>(warmUpNs), static_cast<double>(w.windowNs));
    Finding f =
        windowFinding("warmup-in-window", w.warmUpDominated || windowShare >= 0.25 ? Severity::High
                                          : excluded > 0 || windowShare >= 0.05 ? Severity::Medium
                                                                                : Severity::Low);
    if (!warmUp.empty())
        f.title = "Warm-up is in the profiled window: one-off costs take " +
                  format::duration(static_cast<double>(warmUpNs)) + " (" +
                  format::percent(windowShare) + " of it)";
    else
        f.title = "Warm-up is in the profiled window: " + format::count(excluded) +
                  " slow first step" + (excluded == 1 ? "" : "s") + " left out (" +
                  format::duration(static_cast<double>(leftOutNs)) +
                  (steadyMedianNs > 0 ? ", the slowest " +
                                            format::ratio(static_cast<double>(slowestLeftOutNs) /
                                                          static_cast<double>(steadyMedianNs)) +
                                            " a steady step"
                                      : std::string()) +
                  ")";
    f.explanation =
        "Costs paid once per process — loading kernel modules on first launch, creating the "
        "context, "
        "cuDNN/cuBLAS initialisation, the caching allocator growing — are not per-step costs, and "
        "a window that holds them misleads every average. ";
    if (w.warmUpDominated)
        f.explanation += "Here they are most of the window: what is left is too little to judge "
                         "the steady state.";
    else
        f.explanation += "They are left out of the figures below (" +
                         format::count(w.steadyCount()) + " steady step" +
                         (w.steadyCount() == 1 ? "" : "s") + " judged).";
    // The one-off costs where some were found; the steps left out where some were (a slow
    // first step with no one-off call to show for it reads "0 ns of one-off costs" else).
    if (!warmUp.empty())
        f.evidence.figures = {
            {"one_off_time_us", static_cast<double>(warmUpNs) / 1e3, Unit::Microseconds},
            {"one_off_share_of_window", windowShare, Unit::Fraction}};
    f.evidence.figures.push_back(
        {"warmup_or_outlier_steps", static_cast<double>(excluded), Unit::Count});
    if (excluded > 0) {
        f.evidence.figures.push_back(
            {"left_out_steps_time_us", static_cast<double>(leftOutNs) / 1e3, Unit::Microseconds});
        if (steadyMedianNs > 0)
            f.evidence.figures.push_back(
                {"slowest_left_out_vs_steady_median",
                 static_cast<double>(slowestLeftOutNs) / static_cast<double>(steadyMedianNs),
                 Unit::Ratio});
    }
    f.evidence.figures.push_back(
        {"steady_steps", static_cast<double>(w.steadyCount()), Unit::Count});
    for (size_t i = 0; i < std::min<size_t>(5, warmUp.size()); ++i) {
        f.evidence.ops.emplace_back(warmUp[i]->what + " (" +
                                    format::duration(static_cast<double>(warmUp[i]->lengthNs())) +
                                    ")");
        f.evidence.ranges.push_back({warmUp[i]->beginNs, warmUp[i]->endNs});
    }
    for (size_t i = 0; i < w.roles.size(); ++i)
        if (w.roles[i] != StepRole::Steady && w.roles[i] != StepRole::ExtraPass &&
            !holdsRecompile(w.allSteps[i]) && f.evidence.steps.size() < 3)
            f.evidence.steps.push_back(w.allSteps[i].name.empty() ? "window" : w.allSteps[i].name);
    if (in.lab && in.lab->script) {
        // kinetoscope profile placed the window: its own option moves it, no code to write.
        f.fix = "Profile again with the window later: kinetoscope profile --skip N (the steps "
                "before the window; " +
                (in.lab->windowSkip ? std::to_string(*in.lab->windowSkip) + " this time"
                                    : std::string("5 by default")) +
                "), so the trace shows the steady state.";
    } else {
        f.fix = "Profile after warm-up: let a few iterations run before the active window (the "
                "profiler schedule's wait and warmup), so the trace shows the steady state.";
        f.snippet = kProfileAfterWarmUp;
    }
    out.push_back(std::move(f));
}

void extraPassInWindow(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const WindowClass& w = in.summary.window;
    if (w.extraPasses.empty() || w.steadyCount() == 0)
        return;
    std::vector<int64_t> steadyNs;
    for (size_t i = 0; i < w.roles.size(); ++i)
        if (w.roles[i] == StepRole::Steady)
            steadyNs.push_back(w.allSteps[i].durationNs());
    std::nth_element(steadyNs.begin(), steadyNs.begin() + std::ptrdiff_t(steadyNs.size() / 2),
                     steadyNs.end());
    const double steadyMedianNs = static_cast<double>(steadyNs[steadyNs.size() / 2]);
    const ExtraPass& first = w.extraPasses.front();
    const Step& step = w.allSteps[first.step];
    const std::string name = step.name.empty() ? "A step" : step.name;
    const double stepNs = static_cast<double>(step.durationNs());
    const int64_t extraBatches = first.batches - first.steadyBatches;
    // Low: the evaluation is the run's own work, left out here so that it does not read as
    // the training step's; what it costs the run is for a measurement over many steps.
    Finding f = windowFinding("evaluation-in-window", Severity::Low);
    f.title = name + " also ran a pass over " + format::count(extraBatches) +
              " other DataLoader batches (an evaluation?): " + format::duration(stepNs) + ", " +
              format::ratio(stepNs / steadyMedianNs) + " a steady step; left out of the figures";
    f.explanation =
        name + " fetched " + format::count(first.batches) +
        " batches where a steady step fetches " + format::count(first.steadyBatches) +
        ", and took far longer: work besides the training step ran inside it, most often an "
        "evaluation over a validation DataLoader (a Trainer's eval_steps, Lightning's "
        "val_check_interval), else a second loader's pass. Its time is not the training "
        "step's: " +
        (w.extraPasses.size() == 1
             ? std::string("it is")
             : "the " + format::count(w.extraPasses.size()) + " such steps are") +
        " left out of the figures below (" +
        format::counted(uint64_t(w.steadyCount()), "steady step", "steady steps") +
        " judged). What the pass costs the run depends on how often it runs: " +
        format::duration(std::max(0.0, stepNs - steadyMedianNs)) +
        " more than a steady step, "
        "once in every so many steps.";
    f.evidence.figures = {
        {"extra_batches", static_cast<double>(extraBatches), Unit::Count},
        {"step_time_us", stepNs / 1e3, Unit::Microseconds},
        {"steady_step_median_us", steadyMedianNs / 1e3, Unit::Microseconds},
        {"steps_with_extra_pass", static_cast<double>(w.extraPasses.size()), Unit::Count}};
    for (const ExtraPass& p : w.extraPasses) {
        const Step& s = w.allSteps[p.step];
        if (f.evidence.steps.size() < 3)
            f.evidence.steps.push_back(s.name.empty() ? "window" : s.name);
        f.evidence.ranges.push_back({s.beginNs, s.endNs});
    }
    f.fix = "To read the training step alone, place the profiler window between two evaluations"
            " (its schedule's wait";
    f.fix += in.lab && in.lab->script ? ", or kinetoscope profile --skip N)" : ")";
    f.fix += "; to read the evaluation itself, profile a window that holds only it.";
    out.push_back(std::move(f));
}

void windowUnlikeRun(const DiagnosisInput& in, std::vector<Finding>& out)
{
    // The trace's findings stand for the run only if its steps are the run's: a session's
    // measured steps (after the window) say what the run's step is.
    if (!in.lab || !in.lab->script || !in.lab->measuredStepMedianNs ||
        in.summary.steps.steps.empty())
        return;
    std::vector<double> window;
    window.reserve(in.summary.steps.steps.size());
    for (const Step& s : in.summary.steps.steps)
        window.push_back(static_cast<double>(s.durationNs()));
    std::nth_element(window.begin(), window.begin() + std::ptrdiff_t(window.size() / 2),
                     window.end());
    const double windowNs = window[window.size() / 2];
    const double runNs = *in.lab->measuredStepMedianNs;
    if (!(windowNs > 0 && runNs > 0))
        return;
    const double ratio = windowNs / runNs;
    const double apart = std::max(ratio, 1.0 / ratio);
    if (apart < kWindowUnlikeRun)
        return;
    Finding f = windowFinding("window-unlike-run",
                              apart >= kWindowFarFromRun ? Severity::High : Severity::Medium);
    f.gainMethod = "not a per-step cost: it says how far the trace's findings hold for the run";
    const std::string measured =
        format::counted(uint64_t(in.lab->keptSteps), "measured step", "measured steps");
    f.title = "The profiled window's steps took " + format::duration(windowNs) + ", " +
              format::ratio(ratio) + " the " + format::duration(runNs) + " of the run's " +
              measured + ": the trace is not typical of the run";
    f.explanation =
        "The trace's findings read its steps (the median of " +
        format::counted(uint64_t(window.size()), "step", "steps") + "), which are " +
        (ratio > 1 ? "slower" : "faster") + " than the run's own (the median of the " + measured +
        " outside the window). " +
        (ratio > 1 ? std::string("The profiler's own cost is one cause (it records every op and "
                                 "kernel: a short step of many ops slows the most); others are ")
                   : std::string("Causes are ")) +
        "other processes on the machine during the window, a checkpoint or an evaluation inside "
        "it, a compilation, a data pipeline draining or refilling. Shares of the step read from "
        "the trace hold for the window; the run's phases, measured on its own steps, are on the "
        "Lab page (kinetoscope summary SESSION).";
    if (!in.lab->sharedRuns.empty())
        f.explanation += " Other processes did use the CPU during this run.";
    f.evidence.figures = {{"window_step_median_us", windowNs / 1e3, Unit::Microseconds},
                          {"run_step_median_us", runNs / 1e3, Unit::Microseconds},
                          {"window_over_run", ratio, Unit::Ratio},
                          {"run_steps_measured", double(in.lab->keptSteps), Unit::Count}};
    f.fix = "Profile again with the window elsewhere (kinetoscope profile --skip N: the steps "
            "before it) or on an idle machine, and read the run's phases from its measured "
            "steps.";
    out.push_back(std::move(f));
}

void startsInsideEarlierWork(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const WindowClass& w = in.summary.window;
    const auto first = std::find_if(w.oneOffs.begin(), w.oneOffs.end(),
                                    [](const OneOffCost& o) { return o.beforeWindow; });
    if (first == w.oneOffs.end())
        return;
    const double windowShare =
        share(static_cast<double>(first->lengthNs()), static_cast<double>(w.windowNs));
    Finding f = windowFinding("window-starts-mid-work",
                              windowShare >= 0.5 ? Severity::High : Severity::Medium);
    f.title = "The window starts inside earlier work: " + first->call + " waits " +
              format::duration(static_cast<double>(first->lengthNs())) +
              " for device work that is not in the trace";
    f.explanation = "A blocking call waits while the recorded device activity is almost nil: the "
                    "device was busy "
                    "with work launched before the profiler started. That wait is not idle time "
                    "and says nothing "
                    "about this window; it is left out of the figures below.";
    f.evidence.figures = {
        {"wait_us", static_cast<double>(first->lengthNs()) / 1e3, Unit::Microseconds},
        {"share_of_window", windowShare, Unit::Fraction}};
    f.evidence.ranges.push_back({first->beginNs, first->endNs});
    f.evidence.ops.emplace_back(first->what);
    f.fix = "Start the profiler's active window on a step boundary (the schedule's wait/warmup), "
            "so that it "
            "holds whole steps.";
    f.snippet = kProfileAfterWarmUp;
    out.push_back(std::move(f));
}

void captureWindow(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const WindowClass& w = in.summary.window;
    if (!w.captureWindow)
        return;
    Finding f = windowFinding("capture-window", Severity::High);
    f.title = "This window captures a CUDA/HIP graph: " + format::count(w.launchesWithoutActivity) +
              " launches are recorded, nothing runs on the device";
    f.explanation =
        "During stream capture kernels are recorded into a graph, not executed, so the device is "
        "idle "
        "by design and host times include the capture's bookkeeping. Utilisation, idle gaps and "
        "launch costs here say nothing about the run; the graph's replays do.";
    f.evidence.figures = {
        {"launches_without_kernels", static_cast<double>(w.launchesWithoutActivity), Unit::Count},
        {"graph_capture_calls", static_cast<double>(w.graphCaptureCalls), Unit::Count}};
    f.fix = "Profile the steps that replay the graph (after capture and warm-up), not the capture "
            "itself.";
    f.snippet = kProfileAfterWarmUp;
    out.push_back(std::move(f));
}

void missingDeviceActivity(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const WindowClass& w = in.summary.window;
    if (w.countersOnly) {
        Finding f = windowFinding("not-a-timing-trace", Severity::High);
        f.title = "Not a timing trace: CUPTI range-profiler records, no device activity";
        f.explanation = "Counter collection replays each kernel, so host times are inflated and no "
                        "kernel timeline "
                        "exists: no bottleneck can be diagnosed from this trace.";
        f.evidence.figures = {{"device_activities", 0.0, Unit::Count}};
        f.fix = "Profile again with activity tracing (ProfilerActivity.CUDA) and without counter "
                "collection.";
        f.snippet = kProfileAfterWarmUp;
        out.push_back(std::move(f));
        return;
    }
    // In a file read only in part the device activity may lie beyond the cut: the
    // trace-quality finding says so instead of blaming the profiler's settings.
    if (!w.deviceActivityMissing || w.partlyRead())
        return;
    Finding f = windowFinding("no-device-activity", Severity::High);
    f.title = w.kernelLaunchCalls + w.graphLaunches > 0
                  ? "No device activity recorded: " +
                        format::count(w.kernelLaunchCalls + w.graphLaunches) +
                        " launches, 0 kernels"
                  : "No device activity recorded: NCCL collectives ran, but no kernel or launch is "
                    "in the trace";
    f.explanation =
        "The host launched device work but the trace holds no kernel, copy or memset: CUDA "
        "activity "
        "was not collected (CUPTI unavailable or busy, or ProfilerActivity.CUDA missing). Only the "
        "host side can be read; no GPU bottleneck can be diagnosed.";
    f.evidence.figures = {
        {"launch_calls", static_cast<double>(w.kernelLaunchCalls + w.graphLaunches), Unit::Count},
        {"device_activities", 0.0, Unit::Count}};
    f.fix = "Profile with ProfilerActivity.CUDA, check that no other tool holds CUPTI (Nsight, "
            "DCGM profiling), "
            "and that the CUPTI library matches the driver.";
    f.snippet = kProfileAfterWarmUp;
    out.push_back(std::move(f));
}

void windowTooShort(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const WindowClass& w = in.summary.window;
    if ((!w.nearlyEmpty && !w.sparse) || w.deviceActivityMissing || w.captureWindow ||
        w.countersOnly)
        return;
    Finding f = windowFinding("window-too-short", Severity::Medium);
    // A long window can hold too little as well: it is then sparse, not short.
    const bool shortWindow = w.windowNs < kNearlyEmptyWindowNs;
    f.title = std::string(shortWindow ? "The window is too short to judge: "
                                      : "The window holds too little to judge: ") +
              format::duration(static_cast<double>(w.windowNs)) +
              (shortWindow ? ", " : " with only ") +
              format::counted(uint64_t(w.deviceActivities), "device activity", "device activities");
    f.explanation =
        "There is not enough in this trace to tell a bottleneck from noise, and no cost dominates "
        "its steps: the per-step findings are left out.";
    f.evidence.figures = {
        {"window_us", static_cast<double>(w.windowNs) / 1e3, Unit::Microseconds},
        {"device_activities", static_cast<double>(w.deviceActivities), Unit::Count}};
    f.fix = "Profile several steady steps (active=3 or more).";
    f.snippet = kProfileAfterWarmUp;
    out.push_back(std::move(f));
}

// No op, kernel, copy or launch at all: the profiler ran around no work it could see, and
// every other rule is silent. Said first, not read as a clean run (a CI gate on
// `--fail-on` would pass an empty trace).
void nothingRecorded(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const WindowClass& w = in.summary.window;
    if (w.hostOpsRecorded || w.deviceActivities > 0 || w.kernelLaunchCalls + w.graphLaunches > 0 ||
        w.countersOnly || w.partlyRead())
        return;
    // Only the profiler's own: its span, step markers and ranges, instants, its overhead (a
    // trace of another tool, Python frames or categories this version does not know are
    // something recorded).
    for (const trace::Event& e : in.model.events())
        if (e.category != trace::Category::ProfilerSpan &&
            e.category != trace::Category::UserAnnotation &&
            e.category != trace::Category::Instant && e.category != trace::Category::Overhead)
            return;
    Finding f = windowFinding("nothing-recorded", Severity::High);
    const size_t marked = w.stepSource == StepSource::Markers ? w.allSteps.size() : 0;
    f.title = "Nothing was recorded: no op, kernel or copy is in the trace";
    f.explanation =
        "The trace holds " + format::counted(in.model.events().size(), "event") + " in " +
        format::duration(static_cast<double>(w.windowNs)) +
        (marked > 0 ? ", " + format::counted(marked, "marked step") + " with nothing in them"
                    : std::string()) +
        ": the profiler's own spans and markers, no work. The profiler ran around no step "
        "(stopped before the work, or a schedule whose active steps never came), or the work "
        "ran where it was not recording: another thread (a thread the script started, unless "
        "the profiler records every thread) or another process (DataLoader workers, a "
        "subprocess). No rule can judge this window.";
    f.evidence.figures = {{"events", static_cast<double>(in.model.events().size()), Unit::Count},
                          {"window_us", static_cast<double>(w.windowNs) / 1e3, Unit::Microseconds},
                          {"marked_steps", static_cast<double>(marked), Unit::Count}};
    f.fix = "Profile the training steps themselves, on the thread that runs them: call "
            "prof.step() once per step inside the profiler's block, and record other threads "
            "too where the work runs there.";
    f.snippet = kProfileAfterWarmUp;
    out.push_back(std::move(f));
}

void traceQuality(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const WindowClass& w = in.summary.window;
    if (w.quality.empty())
        return;
    const double activities = static_cast<double>(std::max<int64_t>(1, w.deviceActivities));
    bool serious = false;
    for (const QualityIssue& q : w.quality)
        serious |= (q.code == "overlapping-on-stream" || q.code == "clock-skew") &&
                   q.count >= 0.01 * activities;
    // A file read only in part misleads every other figure (a cut before the device
    // activity reads as a CPU-only run): it leads, whatever else is wrong.
    const bool partlyRead = w.partlyRead();
    Finding f = windowFinding("trace-quality", w.sampled || partlyRead ? Severity::High
                                               : serious               ? Severity::Medium
                                                                       : Severity::Low);
    f.title = "The trace has " + format::count(w.quality.size()) + " quality problem" +
              (w.quality.size() == 1 ? "" : "s") + ": " + w.quality.front().code;
    if (w.sampled)
        f.title = "A sampled trace: most host events were dropped, so no bottleneck can be judged";
    if (partlyRead)
        f.title = "The file was read only in part: the figures miss everything after the point "
                  "where it stops";
    f.explanation = "Figures that depend on these timestamps or links are less certain:";
    for (const QualityIssue& q : w.quality) {
        f.explanation += " " + q.message + ".";
        f.evidence.figures.push_back({q.code, static_cast<double>(q.count), Unit::Count});
    }
    f.fix = "Use a recent PyTorch/Kineto, avoid other CUPTI users during profiling, and keep the "
            "profiler's "
            "window short enough that its buffers do not overflow.";
    f.snippet = kProfileAfterWarmUp;
    if (partlyRead && w.deviceActivityMissing)
        f.explanation += " No kernel, copy or memset was read although the host launched " +
                         format::count(w.kernelLaunchCalls + w.graphLaunches) +
                         " times: the profiler writes device activity after the host events, so it "
                         "is most likely "
                         "beyond the cut.";
    if (partlyRead) {
        f.fix = "Open the whole file: copy it again if the transfer was cut, or let the profiled "
                "process end "
                "normally (a process killed while the profiler writes leaves a cut file). Until "
                "then, read the "
                "figures as a lower bound of a partial window.";
        f.snippet.clear();
    }
    out.push_back(std::move(f));
}

}  // namespace kinetoscope::analysis::rules
