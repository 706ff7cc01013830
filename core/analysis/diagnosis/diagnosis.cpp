#include "core/analysis/diagnosis/diagnosis.h"

#include "core/analysis/diagnosis/rule_helpers.h"
#include "core/analysis/diagnosis/rules.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>

namespace kinetoscope::analysis {

const char* severityName(Severity severity)
{
    switch (severity) {
    case Severity::Low:
        return "low";
    case Severity::Medium:
        return "medium";
    case Severity::High:
        return "high";
    }
    return "low";
}

bool parseSeverity(std::string_view text, Severity& severity)
{
    for (Severity s : {Severity::Low, Severity::Medium, Severity::High}) {
        if (text == severityName(s)) {
            severity = s;
            return true;
        }
    }
    return false;
}

const char* unitKey(Unit unit)
{
    switch (unit) {
    case Unit::Microseconds:
        return "us";
    case Unit::Fraction:
        return "fraction";
    case Unit::Bytes:
        return "bytes";
    case Unit::Count:
        return "count";
    case Unit::Ratio:
        return "ratio";
    case Unit::GigabytesPerSecond:
        return "GB/s";
    }
    return "";
}

namespace {

// The device waits on the host more than this share of the step: the host sets the pace.
constexpr double kDeviceIdlePaceShare = 0.5;
// A window of few events is judged when it holds at least this many steps and one cost
// takes at least this share of them.
constexpr size_t kSparseMinSteps = 2;
constexpr double kDominantShare = 0.5;
// ... and then keeps the findings that claim at least this share (HIGH ones).
constexpr double kStandsOnFewEvents = 0.2;

// Points every op and kernel the findings name at its longest instance in the trace (ops
// among host events, kernels among device activities), in one pass over the events.
void resolveTargets(const trace::TraceModel& model, std::vector<Finding>& findings)
{
    // (name, is a device activity) -> the targets waiting for it
    std::map<std::pair<uint32_t, bool>, std::vector<EvidenceTarget*>> wanted;
    for (Finding& f : findings)
        for (auto* list : {&f.evidence.ops, &f.evidence.kernels})
            for (EvidenceTarget& t : *list)
                if (!t.event.valid())
                    if (const std::optional<trace::StringId> id = model.strings().find(t.name))
                        wanted[{id->value, list == &f.evidence.kernels}].push_back(&t);
    if (wanted.empty())
        return;
    std::map<std::pair<uint32_t, bool>, const trace::Event*> longest;
    for (const trace::Event& e : model.events()) {
        const auto key = std::make_pair(e.name.value, trace::isGpuActivity(e.category));
        if (!wanted.count(key))
            continue;
        const trace::Event*& best = longest[key];
        if (!best || e.durationNs > best->durationNs)
            best = &e;
    }
    for (const auto& [key, event] : longest)
        for (EvidenceTarget* t : wanted[key])
            t->event = model.idOf(*event);
}

}  // namespace

const std::vector<RuleInfo>& ruleCatalogue()
{
    static const std::vector<RuleInfo> catalogue = {
        {"capture-window", rules::captureWindow},
        {"no-device-activity / not-a-timing-trace", rules::missingDeviceActivity},
        {"host-not-recorded", rules::hostNotRecorded},
        {"window-too-short", rules::windowTooShort},
        {"nothing-recorded", rules::nothingRecorded},
        {"warmup-in-window", rules::warmUpInWindow},
        {"evaluation-in-window", rules::extraPassInWindow},
        {"window-starts-mid-work", rules::startsInsideEarlierWork},
        {"trace-quality", rules::traceQuality},
        {"dataloader-bound", rules::dataloaderBound},
        {"python-bound", rules::pythonBound},
        {"low-gpu-utilization", rules::lowGpuUtilization},
        {"launch-bound", rules::launchBound},
        {"short-kernels-idle-gaps", rules::shortKernelsIdleGaps},
        {"no-tensor-cores", rules::noTensorCores},
        {"tensor-core-misaligned", rules::tensorCoreMisaligned},
        {"host-sync", rules::hostSync},
        {"pageable-memcpy", rules::pageableMemcpy},
        {"copy-heavy", rules::copyHeavy},
        {"memory-growth", rules::memoryGrowth},
        {"allocator-fragmentation", rules::allocatorFragmentation},
        {"near-oom", rules::nearOom},
        {"allocator-churn", rules::allocatorChurn},
        {"communication-heavy", rules::communicationHeavy},
        {"dataparallel", rules::dataParallel},
        {"optimizer-unfused", rules::optimizerUnfused},
        {"unstable-steps", rules::unstableSteps},
        {"unfused-elementwise", rules::unfusedElementwise},
        {"below-roofline", rules::belowRoofline},
        {"attention-unfused", rules::attentionUnfused},
        {"graph-break", rules::graphBreak},
        {"recompilation", rules::recompilation},
        {"compiled-below-bandwidth", rules::compiledBelowBandwidth},
        {"dataloader-bound (no device activity)", rules::hostOnlyDataLoader},
        {"random-data-in-loop", rules::randomDataInLoop},
        {"python-bound (no device activity)", rules::hostOnlyPython},
        {"optimizer-unfused (no device activity)", rules::hostOptimizerUnfused},
        {"host-compute-bound", rules::hostComputeBound},
        {"cpu-only-window", rules::cpuOnlyWindow},
        {"gpu-not-used", rules::gpuNotUsed},
        {"bf16-measured / bf16-slowdown / not-precision-bound / cuda-graph-measured / "
         "compile-measured / already-fused",
         rules::labBaseline, true},
        {"run-interrupted", rules::labInterrupted, true},
        {"time-outside-phases", rules::labOutsidePhases, true},
        {"machine-shared", rules::labMachineShared, true},
        {"window-unlike-run", rules::windowUnlikeRun},
        {"dataloader-bound-measured", rules::labSplit, true},
        {"activation-peak / memory-growth-measured / allocator-holds-freed", rules::labMemory,
         true},
    };
    return catalogue;
}

namespace {

// One rule for every time finding: its severity is its credited gain's share of the step.
// A finding about the device's work, while the device waits on the host most of the step,
// does not set the pace: at most LOW, and it says why.
void gradeByGain(const DiagnosisInput& input, std::vector<Finding>& findings)
{
    const double step = input.summary.breakdown.all.averageTotalNs;
    const CausalModel& m = input.summary.causal;
    const double idleShare = m.stepNs > 0 ? m.deviceIdleNs / m.stepNs : 0.0;
    const bool hostSetsThePace = idleShare > kDeviceIdlePaceShare;
    for (Finding& f : findings) {
        if (f.measured || f.basis == SeverityBasis::Own)
            continue;
        f.severity = severityForGain(step > 0 ? f.estimatedGainNs / step : 0.0);
        if (f.basis == SeverityBasis::DeviceGain && hostSetsThePace) {
            f.severity = Severity::Low;
            f.explanation += " The GPU waits on the host " + format::percent(idleShare) +
                             " of the step, so its own work does not set the pace: this is LOW "
                             "until the host-side "
                             "findings are fixed.";
        }
    }
}

// A figure of the finding's evidence, by name.
std::optional<double> figureOf(const Finding& f, std::string_view name)
{
    for (const Evidence::Figure& g : f.evidence.figures)
        if (g.name == name)
            return g.value;
    return std::nullopt;
}

// A finding whose credited gain is less than what its cause saves alone says why, where the
// two read differently: the rest of what it saves alone is saved as well by removing a cause
// credited before it (the credit order, step_model.cpp; that cause may be under its own
// finding's threshold), so the gains add up to no more than the step.
void explainSharedCredit(std::vector<Finding>& findings)
{
    for (Finding& f : findings) {
        const std::optional<double> aloneUs = figureOf(f, "gain_if_removed_alone_us");
        if (f.measured || !aloneUs)
            continue;
        const double aloneNs = *aloneUs * 1e3;
        if (aloneNs <= f.estimatedGainNs ||
            format::duration(aloneNs) == format::duration(f.estimatedGainNs))
            continue;
        f.gainMethod += "; alone it saves " + format::duration(aloneNs) + ", and " +
                        format::duration(aloneNs - f.estimatedGainNs) +
                        " of that is saved as well by removing a cause credited before it in "
                        "the replay, and credited to that cause once: the gains add up to no "
                        "more than the step";
    }
}

// One wait, one finding. Where the lab timed the loop's wait for data over the run's steps
// and the trace's window reads the same wait (dataloader-bound, on a GPU or a CPU), two
// findings with two figures read as two causes (a CPU script: "waits 229 µs per step, 30.0 %
// (measured)" beside "waits for data 24.8 % of each step (383 µs)"). The measured finding
// stands, over the run, and carries the window's reading: its figures, and where the wait
// shows in the trace (steps, ranges, ops) for the views to jump to. Where the lab's split
// gave no finding (the run waited under the share, or a workers sweep measured more workers
// no faster), the window's finding stays and says what the run measured.
void oneFindingForTheWait(const DiagnosisInput& input, std::vector<Finding>& findings)
{
    const auto window = std::find_if(findings.begin(), findings.end(),
                                     [](const Finding& f) { return f.id == "dataloader-bound"; });
    if (!input.lab || window == findings.end())
        return;
    const std::optional<double> windowWaitUs = figureOf(*window, "dataloader_wait_per_step_us");
    const std::optional<double> windowShare = figureOf(*window, "dataloader_share_of_step");
    const auto measured = std::find_if(findings.begin(), findings.end(), [](const Finding& f) {
        return f.id == "dataloader-bound-measured";
    });
    if (measured != findings.end()) {
        if (windowWaitUs && windowShare) {
            measured->explanation += " The profiler's window reads the same wait: " +
                                     format::duration(*windowWaitUs * 1e3) + " per step, " +
                                     format::percent(*windowShare) + " of its steps.";
            measured->evidence.figures.push_back(
                {"window_dataloader_wait_per_step_us", *windowWaitUs, Unit::Microseconds});
            measured->evidence.figures.push_back(
                {"window_dataloader_share_of_step", *windowShare, Unit::Fraction});
        }
        Evidence& into = measured->evidence;
        if (into.steps.empty())
            into.steps = std::move(window->evidence.steps);
        if (into.ranges.empty())
            into.ranges = std::move(window->evidence.ranges);
        if (into.ops.empty())
            into.ops = std::move(window->evidence.ops);
        findings.erase(window);
        return;
    }
    const LabMeasurements& lab = *input.lab;
    const std::optional<rules::MeasuredSplit> split = rules::measuredSplit(lab);
    if (!split)
        return;
    const double runShare = rules::share(split->waitNs, split->waitNs + split->computeNs);
    window->explanation += std::string(" Over the run's steps ") +
                           (lab.script ? "the probe timed" : "the lab timed") + " a wait of " +
                           format::duration(split->waitNs) + " per step, " +
                           format::percent(runShare) + " of the step.";
    window->evidence.figures.push_back(
        {"run_dataloader_wait_per_step_us", split->waitNs / 1e3, Unit::Microseconds});
    if (lab.workersSweep && lab.workersSweep->fewestFastest()) {
        window->fix = rules::moreWorkersRanSlower(lab);
        window->snippet.clear();
    } else if (lab.workersSweep && lab.workersSweep->ran >= 0) {
        window->explanation += " The workers sweep measured no num_workers clearly faster "
                               "than the run's " +
                               std::to_string(lab.workersSweep->ran) + ".";
        window->fix = "More workers measured no faster (the workers sweep): make the per-sample "
                      "work cheaper (decode once, cache, move augmentation to the GPU).";
    }
}

// A window of few events is judged only where one cost dominates its steps: the findings
// then carry a small-sample caveat; otherwise it is too short to judge, and only the
// window findings stand.
void judgeSparseWindow(const DiagnosisInput& input, std::vector<Finding>& findings)
{
    const WindowClass& w = input.summary.window;
    if (!w.sparse)
        return;
    const double step = input.summary.breakdown.all.averageTotalNs;
    const size_t steps = input.summary.steps.steps.size();
    // What holds most of the steps need not be a gain a fix can claim: the device idle while
    // the host runs no recorded op (host code the profiler did not record: NumPy, Python
    // without with_stack) dominates as well, and the finding that names that idle stands.
    const CausalModel& m = input.summary.causal;
    const bool unrecordedHolds =
        m.stepNs > 0 && m.idleWhile(HostState::Idle) >= kDominantShare * m.stepNs;
    auto namesTheIdle = [&](const Finding& f) {
        return unrecordedHolds && f.id == "low-gpu-utilization";
    };
    const bool dominates = steps >= kSparseMinSteps &&
                           std::any_of(findings.begin(), findings.end(), [&](const Finding& f) {
                               return (f.basis != SeverityBasis::Own && !f.measured && step > 0 &&
                                       f.estimatedGainNs >= kDominantShare * step) ||
                                      namesTheIdle(f);
                           });
    // Memory risks are read from the allocator's samples, not from the steps: they stand.
    auto perStep = [](const Finding& f) {
        return !f.aboutWindow && !f.measured && f.id != "memory-growth" &&
               f.id != "allocator-fragmentation" && f.id != "near-oom";
    };
    std::vector<Finding> kept;
    for (Finding& f : findings) {
        const bool perStepCost = perStep(f);
        if (f.id == "window-too-short" && dominates)
            continue;
        // Beside the dominant cost only what is large enough to stand on few events.
        if (perStepCost && (!dominates || f.estimatedGainNs < kStandsOnFewEvents * step) &&
            !(dominates && namesTheIdle(f)))
            continue;
        if (perStepCost)
            f.explanation += " A small window (" +
                             format::counted(uint64_t(steps), "step", "steps") + ", " +
                             format::counted(uint64_t(w.deviceActivities), "device activity",
                                             "device activities") +
                             "): the figures rest on few events; profile more steps to confirm.";
        kept.push_back(std::move(f));
    }
    findings = std::move(kept);
}

}  // namespace

void rankFindings(std::vector<Finding>& findings)
{
    std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
        if (a.severity != b.severity)
            return a.severity > b.severity;
        // What the window is (a capture, missing activity, warm-up, a cut file) changes how
        // the findings of its severity and below read: it comes first among them.
        if (a.aboutWindow != b.aboutWindow)
            return a.aboutWindow;
        // A gain the lab measured and one estimated from a trace are not the same kind of
        // figure: at one severity, what was measured comes first (issue 19).
        if (a.measured != b.measured)
            return a.measured;
        return a.estimatedGainNs > b.estimatedGainNs;
    });
}

std::vector<Finding> diagnoseLab(const LabMeasurements& lab, const Thresholds& thresholds)
{
    // The lab rules read only the measurements: an empty trace stands in for the one the
    // session did not record.
    static const trace::TraceModel noTrace;
    static const TraceSummary noSummary;
    const DiagnosisInput input{noTrace, noSummary, thresholds, &lab};
    std::vector<Finding> findings;
    for (const RuleInfo& rule : ruleCatalogue())
        if (rule.lab)
            rule.rule(input, findings);
    rankFindings(findings);
    return findings;
}

std::vector<Finding> diagnose(const DiagnosisInput& input)
{
    std::vector<Finding> findings;
    for (const RuleInfo& rule : ruleCatalogue())
        rule.rule(input, findings);
    resolveTargets(input.model, findings);
    // No two findings claim the same time. The causal gains (the model's replay) already
    // sum to at most the step; a gain estimated outside the model is capped at the time
    // they left unclaimed. A measured gain (the lab's own steps, not the trace's) takes no
    // part in this accounting and is never capped.
    auto outsideModel = [](const Finding& f) {
        return f.id == "unstable-steps" || f.id == "tensor-core-misaligned" ||
               f.id == "dataparallel" || f.id == "short-kernels-idle-gaps" ||
               f.id == "recompilation" || f.id == "graph-break";
    };
    double unclaimed = input.summary.breakdown.all.averageTotalNs;
    for (const Finding& f : findings)
        if (!f.measured && !outsideModel(f))
            unclaimed -= std::max(0.0, f.estimatedGainNs);
    for (Finding& f : findings) {
        if (f.measured || !outsideModel(f))
            continue;
        f.estimatedGainNs = std::clamp(f.estimatedGainNs, 0.0, std::max(0.0, unclaimed));
        unclaimed -= f.estimatedGainNs;
    }
    gradeByGain(input, findings);
    explainSharedCredit(findings);
    judgeSparseWindow(input, findings);
    // (after the sparse window's judgement: a window too short to judge lends no figures)
    oneFindingForTheWait(input, findings);
    rankFindings(findings);
    return findings;
}

}  // namespace kinetoscope::analysis
