#include "core/lab/script_lab.h"

#include "core/format/format.h"
#include "core/format/number_text.h"
#include "core/session/timing_stats.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>

namespace kinetoscope::lab {

namespace fs = std::filesystem;

namespace {

constexpr const char* kArms[] = {"fp32", "bf16", "bf16+compile"};

std::string configOf(const session::Session& s, const std::string& key)
{
    const auto it = s.config.find(key);
    return it == s.config.end() ? std::string() : it->second;
}

// The steady step (ms): the median wall time, and the mean of the steps within 3x of it (a
// step that compiled again is a one-off, not the pace). Where two or more and over a fifth of
// the steps are beyond that, they are no one-offs but how the run went (helper 47: a bf16 arm's
// steps of 280 ms and 20 ms, half of them left out, read as 21.5 ms): the mean of them all, said.
struct Pace
{
    double medianMs = 0, meanMs = 0, dataMs = 0;
    size_t steps = 0, slow = 0;  // the steps, and those over 3x the median
    bool unsteady() const { return slow >= 2 && slow * 5 > steps; }
};
Pace paceOf(const session::Session& s)
{
    Pace p;
    std::vector<double> walls;
    walls.reserve(s.steps.size());
    for (const session::StepTiming& t : s.steps)
        walls.push_back(t.wallOrPhasesMs());
    p.medianMs = session::timingStats("wall", walls).medianMs;  // nearest rank
    p.steps = s.steps.size();
    for (const double wall : walls)
        p.slow += wall > 3 * p.medianMs;
    double sum = 0, data = 0;
    size_t kept = 0;
    for (const session::StepTiming& t : s.steps)
        if (p.unsteady() || t.wallOrPhasesMs() <= 3 * p.medianMs) {
            sum += t.wallOrPhasesMs();
            data += t.dataMs;
            ++kept;
        }
    if (kept > 0) {
        p.meanMs = sum / double(kept);
        p.dataMs = data / double(kept);
    }
    return p;
}

// The most bytes a run held by one of its steps' figures (peakAllocatedBytes or
// peakReservedBytes: the CUDA allocator's peaks); -1 on the CPU.
int64_t peakOf(const session::Session& s, int64_t session::StepTiming::*figure)
{
    int64_t peak = -1;
    for (const session::StepTiming& t : s.steps)
        peak = std::max(peak, t.*figure);
    return peak;
}

// The script's largest resident set over the run (bytes; -1 when not sampled).
int64_t peakResident(const session::Session& s)
{
    int64_t peak = -1;
    for (const session::LiveSample& sample : s.samples)
        peak = std::max(peak, sample.residentBytes);
    return peak;
}

bool outOfMemory(const std::string& error)
{
    for (const char* sign : {"out of memory", "OutOfMemoryError", "MemoryError",
                             "can't allocate memory", "killed by SIGKILL"})
        if (error.find(sign) != std::string::npos)
            return true;
    return false;
}

int64_t numberOr(const session::Session& s, const std::string& key, int64_t fallback)
{
    const std::string text = configOf(s, key);
    return format::integerIn(text).value_or(fallback);
}

// The cores other processes used during the run (its config's "other_cpu_cores", written
// by runProfile); -1 where not measured. from_chars: whatever the locale.
double otherCpuCoresOf(const session::Session& run)
{
    const std::string text = configOf(run, "other_cpu_cores");
    double cores = -1;
    const auto read = std::from_chars(text.data(), text.data() + text.size(), cores);
    return read.ec == std::errc() && cores >= 0 ? cores : -1;
}

std::string runName(const std::string& knob, int64_t value)
{
    return knob + "-" + std::to_string(value);
}

}  // namespace

int64_t batchSizeOf(const session::Session& run)
{
    const std::string text = configOf(run, "batch_size");
    const int64_t value = format::integerIn(text).value_or(0);
    return value > 0 ? value : 1;
}

int64_t samplesPerStepOf(const session::Session& run)
{
    return batchSizeOf(run) * std::max<int64_t>(1, numberOr(run, "batches_per_step", 1));
}

bool isScriptArm(const std::string& name)
{
    return std::find(std::begin(kArms), std::end(kArms), name) != std::end(kArms);
}

std::string validateScriptLab(const ScriptLabConfig& c)
{
    for (const std::string& arm : c.arms)
        if (!isScriptArm(arm))
            return "--arms takes fp32, bf16 and bf16+compile (not " + arm + ")";
    if (c.arms.empty() && c.workers.empty() && c.batchSizes.empty())
        return "a lab needs an arm or a sweep";
    if (c.script.steps <= 0)
        return "a lab measures a bounded number of steps in each run: --steps N (N > 0)";
    for (int64_t w : c.workers)
        if (w < 0)
            return "--sweep workers= takes counts of workers (0 or more)";
    for (int64_t b : c.batchSizes)
        if (b <= 0)
            return "--sweep batch= takes batch sizes (1 or more)";
    if (c.memoryLimitMb < 0)
        return "--memory-limit-mb takes MiB (0: no limit)";
    return validateProfileConfig(c.script);
}

session::LabArm armFromRun(const std::string& name, const session::Session& run,
                           const std::string& runError)
{
    session::LabArm arm;
    arm.kind = session::parseArmKind(name).value_or(session::ArmKind::Fp32);
    arm.note = configOf(run, "arm_note");
    arm.scriptPrecision = configOf(run, "arm_precision") == "script";
    arm.scriptCompiles = configOf(run, "arm_compile") == "script";
    arm.otherCpuCores = otherCpuCoresOf(run);
    const std::string armError = configOf(run, "arm_error");
    if (!armError.empty()) {
        arm.skippedReason = armError;
        return arm;
    }
    if (run.steps.empty()) {
        arm.skippedReason = runError.empty() ? "no step was measured" : runError;
        return arm;
    }
    const Pace pace = paceOf(run);
    if (!(pace.medianMs > 0)) {
        arm.skippedReason = "its steps took no measurable time";
        return arm;
    }
    arm.ran = true;
    if (pace.unsteady()) {
        const std::string unsteady =
            "its steps were not steady: " + std::to_string(pace.slow) + " of " +
            std::to_string(pace.steps) + " took over 3x the median (" +
            format::duration(pace.medianMs * 1e6) + "); the figure is the mean of them all";
        arm.note = arm.note.empty() ? unsteady : arm.note + "; " + unsteady;
    }
    // Samples/s and the step are one figure (the table shows both): the steady mean.
    arm.samplesPerSecond = double(samplesPerStepOf(run)) * 1000.0 / pace.meanMs;
    arm.meanStepMs = pace.meanMs;
    arm.peakAllocatedBytes = peakOf(run, &session::StepTiming::peakAllocatedBytes);
    arm.peakReservedBytes = peakOf(run, &session::StepTiming::peakReservedBytes);
    if (arm.kind == session::ArmKind::Bf16Compile) {
        const std::string seconds = configOf(run, "compile_seconds");
        if (const std::optional<double> value = format::numberIn(seconds))
            arm.compileSeconds = *value;
        arm.graphBreaks = numberOr(run, "graph_breaks", -1);
        arm.recompiles = numberOr(run, "recompiles", -1);
        arm.compiledInMeasured = numberOr(run, "compiled_in_measured", -1);
    }
    return arm;
}

session::SweepPoint sweepPointFromRun(const std::string& knob, int64_t value,
                                      const session::Session& run, const std::string& runError,
                                      int64_t limitBytes)
{
    session::SweepPoint p;
    p.knob = knob;
    p.value = value;
    p.otherCpuCores = otherCpuCoresOf(run);
    p.peakAllocatedBytes = peakOf(run, &session::StepTiming::peakAllocatedBytes);
    p.peakReservedBytes = peakOf(run, &session::StepTiming::peakReservedBytes);
    const int64_t peak = p.peakAllocatedBytes >= 0 ? p.peakAllocatedBytes : peakResident(run);
    const std::string what = knob == "batch_size" ? "at batch size " : "at workers ";
    if (outOfMemory(runError)) {
        p.error = "out of memory " + what + std::to_string(value);
        return p;
    }
    if (limitBytes > 0 && peak > limitBytes) {  // counted as out of memory, as the C++ lab does
        p.error = "out of memory " + what + std::to_string(value) + " (" +
                  format::bytes(double(peak)) + " at its peak, over the " +
                  format::bytes(double(limitBytes)) + " limit)";
        return p;
    }
    if (run.steps.empty()) {
        p.error = runError.empty() ? "no step was measured" : runError;
        return p;
    }
    const Pace pace = paceOf(run);
    if (pace.meanMs > 0)
        p.samplesPerSecond = double(samplesPerStepOf(run)) * 1000.0 / pace.meanMs;
    p.meanStepMs = pace.meanMs;
    p.dataWaitMs = pace.dataMs;
    return p;
}

ScriptLabResult runScriptLab(const ScriptLabConfig& c, const RunCallbacks& callbacks)
{
    ScriptLabResult result;
    RunResult& lab = result.run;
    if (std::string invalid = validateScriptLab(c); !invalid.empty()) {
        lab.error = invalid;
        return result;
    }
    const fs::path folder = c.script.outDir;
    const std::string sessionPath = (folder / "session.kinetoscope.json").string();
    session::Session& s = lab.session;
    bool haveBase = false;  // s holds a run's steps, config and environment
    std::string interrupted;

    auto save = [&] {
        std::string error;
        if (session::saveSession(s, sessionPath, error)) {
            lab.sessionPath = sessionPath;
            if (callbacks.saved)
                callbacks.saved(sessionPath);
        } else {
            result.notes.push_back(error);
        }
    };
    auto cancelled = [&] { return callbacks.cancel && callbacks.cancel->load(); };
    // "cancelled by the app's Cancel button in the bf16 run"
    auto cancelledIn = [&](const std::string& name) {
        return "cancelled" +
               (callbacks.cancelledBy ? " by " + callbacks.cancelledBy() : std::string()) +
               " in the " + name + " run";
    };

    // One run of the script under the probe, into DIR/runs/NAME; its session, and the
    // run's error line (empty when it ended as asked).
    auto runOnce = [&](const std::string& name, ProfileConfig config, bool primary,
                       std::string& error) {
        config.outDir = (folder / "runs" / name).string();
        config.fromTerminal = false;  // its output in runs/NAME/output.log: the lab prints
        if (!primary)
            config.active = 0;  // one trace, the fp32 run's
        RunCallbacks forward;
        forward.cancel = callbacks.cancel;
        forward.cancelledBy = callbacks.cancelledBy;
        forward.abandon = callbacks.abandon;
        forward.engineStarted = callbacks.engineStarted;
        if (callbacks.progress)
            forward.progress = [&, name](const RunProgress& progress) {
                RunProgress named = progress;
                named.stage = name + ": " + progress.stage;
                callbacks.progress(named);
            };
        if (primary) {
            forward.step = callbacks.step;
            forward.sample = callbacks.sample;
        }
        const ProfileResult run = runProfile(config, forward);
        error = run.run.error;
        if (!run.run.ok && !error.empty())
            result.notes.push_back(name + ": " + error);
        return run.run.session;
    };

    auto adoptBase = [&](const session::Session& run, const std::string& name) {
        // The lab's session takes the first measured run's configuration, steps and trace.
        std::vector<session::LabArm> arms = std::move(s.lab);
        std::vector<session::SweepPoint> sweep = std::move(s.sweep);
        s = run;
        s.lab = std::move(arms);
        s.sweep = std::move(sweep);
        s.config.erase("arm");
        s.config.erase("arm_error");
        s.config.erase("arm_note");
        s.config.erase("arm_precision");
        s.config.erase("arm_compile");
        s.config["lab"] = "script";
        if (!run.tracePath.empty())
            s.tracePath = (fs::path("runs") / name / run.tracePath).string();
        if (!run.snapshotPath.empty())
            s.snapshotPath = (fs::path("runs") / name / run.snapshotPath).string();
        s.interrupted.clear();
        haveBase = true;
    };

    for (const std::string& name : c.arms) {
        if (cancelled())
            break;
        ProfileConfig config = c.script;
        config.arm = name;
        std::string error;
        const session::Session run = runOnce(name, config, name == c.arms.front(), error);
        const session::LabArm arm = armFromRun(name, run, error);
        if (!haveBase && arm.ran && name == c.arms.front())
            adoptBase(run, name);
        s.lab.push_back(arm);
        if (callbacks.arm)
            callbacks.arm(arm);
        if (cancelled())
            interrupted = cancelledIn(name);
        s.interrupted = interrupted;
        save();
    }
    auto sweep = [&](const std::string& knob, const std::vector<int64_t>& values) {
        for (const int64_t value : values) {
            if (cancelled())
                return;
            ProfileConfig config = c.script;
            config.arm = "fp32";
            if (knob == "workers") {
                config.loaderWorkers = value;
                // Workers kept between epochs when there are any (the usual fix's other half).
                config.persistentWorkers = value > 0 ? 1 : 0;
            } else {
                config.loaderBatchSize = value;
            }
            std::string error;
            const std::string name = runName(knob, value);
            const session::Session run = runOnce(name, config, !haveBase && c.arms.empty(), error);
            const session::SweepPoint point =
                sweepPointFromRun(knob, value, run, error, c.memoryLimitMb * 1024 * 1024);
            if (!haveBase && point.error.empty() && c.arms.empty())
                adoptBase(run, name);
            s.sweep.push_back(point);
            if (callbacks.sweepPoint)
                callbacks.sweepPoint(point);
            if (cancelled())
                interrupted = cancelledIn(name);
            s.interrupted = interrupted;
            save();
            if (knob == "batch_size" && point.error.starts_with("out of memory"))
                return;  // ascending: the larger ones do not fit either
        }
    };
    sweep("workers", c.workers);
    std::vector<int64_t> batches = c.batchSizes;
    std::sort(batches.begin(), batches.end());
    sweep("batch_size", batches);

    if (!haveBase) {
        // Nothing measured as fp32: the session still says what was tried and why it failed.
        s.config["kind"] = "script";
        s.config["lab"] = "script";
    }
    s.interrupted = interrupted;
    save();
    lab.ok = haveBase && interrupted.empty();
    if (!haveBase)
        lab.error = result.notes.empty() ? "no run measured a step" : result.notes.front();
    else if (!interrupted.empty())
        lab.error = interrupted;
    return result;
}

}  // namespace kinetoscope::lab
