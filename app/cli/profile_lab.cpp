#include "app/cli/profile_lab.h"

#include "app/cli/cli_main.h"
#include "app/cli/interrupt_cancels.h"
#include "app/cli/lab_report.h"
#include "core/format/format.h"
#include "core/session/lab_reading.h"

#include <atomic>
#include <filesystem>
#include <ostream>
#include <string>
#include <thread>

namespace kinetoscope::cli {

namespace {

namespace fs = std::filesystem;

// "fp32, bf16, bf16+compile; workers 0, 2, 4"
std::string planOf(const lab::ScriptLabConfig& c)
{
    std::string plan;
    for (const std::string& arm : c.arms)
        plan += (plan.empty() ? "" : ", ") + arm;
    auto series = [&plan](const char* knob, const std::vector<int64_t>& values) {
        if (values.empty())
            return;
        plan += (plan.empty() ? std::string() : std::string("; ")) + knob;
        for (size_t i = 0; i < values.size(); ++i)
            plan += (i == 0 ? " " : ", ") + std::to_string(values[i]);
    };
    series("workers", c.workers);
    series("batch size", c.batchSizes);
    return plan;
}

}  // namespace

int runScriptLabCommand(const lab::ScriptLabConfig& c, std::ostream& out, std::ostream& err)
{
    if (const std::string invalid = lab::validateScriptLab(c); !invalid.empty()) {
        err << "kinetoscope profile: " << invalid << "\n";
        return kExitBadInput;
    }
    err << "kinetoscope profile: a lab on the script: " << planOf(c) << "; " << c.script.skip
        << " warm-up + " << c.script.steps << " measured steps a run, seed " << c.script.seed
        << "; each run's output in " << (fs::path(c.script.outDir) / "runs").string()
        << "/NAME/output.log" << std::endl;
    lab::RunCallbacks callbacks;
    std::string lastRun;
    callbacks.progress = [&err, &lastRun](const lab::RunProgress& progress) {
        const std::string run = progress.stage.substr(0, progress.stage.find(':'));
        if (run != lastRun) {
            err << "kinetoscope profile: " << run << " run" << std::endl;
            lastRun = run;
        }
    };
    // " (other processes used 1.02 cores meanwhile)" after a run that shared the machine.
    auto shared = [](double otherCores) {
        return session::sharedMachine(otherCores, int(std::thread::hardware_concurrency()))
                   ? " (other processes used " + format::number(otherCores) + " cores meanwhile)"
                   : std::string();
    };
    callbacks.arm = [&err, shared](const session::LabArm& arm) {
        if (arm.ran)
            err << "kinetoscope profile: " << arm.name() << ": "
                << format::rate(arm.samplesPerSecond, "samples") << shared(arm.otherCpuCores)
                << std::endl;
        else
            err << "kinetoscope profile: " << arm.name() << " not run: " << arm.skippedReason
                << std::endl;
    };
    callbacks.sweepPoint = [&err, shared](const session::SweepPoint& point) {
        err << "kinetoscope profile: " << point.knob << " = " << point.value << ": "
            << (point.error.empty()
                    ? format::rate(point.samplesPerSecond, "samples") + shared(point.otherCpuCores)
                    : point.error)
            << std::endl;
    };
    // The runs have process groups of their own: only this process hears the terminal's Ctrl-C,
    // and a signal sent to it alone (SIGTERM) ends nothing of theirs: each cancels the lab.
    std::atomic<bool>& cancel = InterruptCancels::flag();
    cancel = false;
    callbacks.cancel = &cancel;
    callbacks.cancelledBy = InterruptCancels::cancelledBy;
    const lab::ScriptLabResult result = [&] {
        const InterruptCancels interruptCancels;
        return lab::runScriptLab(c, callbacks);
    }();
    const session::Session& s = result.run.session;
    out << "\n" << labText(s);
    if (!result.run.sessionPath.empty()) {
        out << "\nsession: " << result.run.sessionPath << "\n";
        if (!s.tracePath.empty())
            out << "trace (the fp32 run's): " << (fs::path(c.script.outDir) / s.tracePath).string()
                << "\n";
    }
    if (!result.run.ok) {
        err << "kinetoscope profile: " << result.run.error << "\n";
        return cancel ? InterruptCancels::endByTheSignal() : kExitBadInput;
    }
    // A signal that came once the last run had ended cancelled nothing (the lab above is
    // whole), but it asked this process to stop: no diagnosis, and the exit code says so.
    if (cancel)
        return InterruptCancels::endByTheSignal();
    if (!s.tracePath.empty() || !s.steps.empty()) {
        out << "\n";
        run({"diagnose", result.run.sessionPath}, out, err);
    }
    return kExitOk;
}

}  // namespace kinetoscope::cli
