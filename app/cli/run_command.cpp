#include "app/cli/run_command.h"

#include "app/cli/cli_main.h"
#include "app/cli/interrupt_cancels.h"
#include "app/cli/lab_report.h"
#include "core/lab/engine_process.h"
#include "core/lab/run_options.h"
#include "core/lab/run_progress.h"

#include <atomic>
#include <iostream>
#include <ostream>
#include <string>
#include <unistd.h>

namespace kinetoscope::cli {

int runRun(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    lab::RunConfig c;
    std::string error;
    if (!lab::parseRunOptions(args, c, error)) {
        err << "kinetoscope run: " << error << " (see kinetoscope run --help)\n";
        return kExitBadInput;
    }
    if (!lab::hasOutOption(args)) {
        err << "kinetoscope run: --out DIR is required (where the session and trace go)\n";
        return kExitBadInput;
    }
    lab::RunCallbacks callbacks;
    // The bar redraws one line in place: only on a terminal, never into a log file.
    const bool terminal = &err == &std::cerr && isatty(STDERR_FILENO);
    // Elsewhere (a log, a CI job) each stage gets a line as it starts, and one more with
    // its length once its pace is known. Both name the time the stage has left.
    lab::StageEstimate estimate;
    bool estimateSaid = false;
    if (terminal)
        callbacks.progress = [&err, &estimate](const lab::RunProgress& progress) {
            estimate.update(progress);
            const int width = 30, done = int(progress.fraction * width);
            err << "\r[" << std::string(size_t(done), '#') << std::string(size_t(width - done), ' ')
                << "] " << int(progress.fraction * 100) << "% " << estimate.line() << "\x1b[K"
                << std::flush;
        };
    else
        callbacks.progress = [&err, &estimate, &estimateSaid](const lab::RunProgress& progress) {
            const bool newStage = progress.stage != estimate.progress().stage || progress.step == 0;
            estimate.update(progress);
            if (newStage) {
                err << "kinetoscope run: " << progress.stage << std::endl;
                estimateSaid = false;
            } else if (!estimateSaid && estimate.secondsLeft()) {
                err << "kinetoscope run: " << estimate.line() << std::endl;
                estimateSaid = true;
            }
        };
    // Said once, before the first stage: torch's and Kineto's own messages about it (and
    // anything else the engine prints) are in OUT/engine.log, not on this terminal.
    callbacks.started = [&err, &c](const session::Session& header, const std::string&) {
        const auto cuda = header.environment.find("cuda_available");
        if (c.device == "auto" && cuda != header.environment.end() && cuda->second == "no")
            err << "kinetoscope run: no CUDA GPU here, running on the CPU (torch's own messages: "
                << lab::engineLogPath(c) << ")" << std::endl;
    };
    std::atomic<bool>& interrupted = InterruptCancels::flag();
    interrupted = false;
    callbacks.cancel = &interrupted;
    callbacks.cancelledBy = InterruptCancels::cancelledBy;
    const lab::RunResult result = [&] {
        const InterruptCancels interruptCancels;
        return lab::runEngine(c, callbacks);
    }();
    if (terminal)
        err << "\r\x1b[K";
    out << labText(result.session);
    if (!result.sessionPath.empty())
        out << "\nsession: " << result.sessionPath << "\n";
    if (!result.sessionPath.empty() && !result.session.snapshotPath.empty())
        out << "memory snapshot: "
            << session::snapshotOf(result.session, result.sessionPath).string()
            << " (kinetoscope memory reads it)\n";
    if (!result.ok) {
        err << "kinetoscope run: " << result.error << '\n';
        return interrupted ? InterruptCancels::endByTheSignal() : kExitBadInput;
    }
    if (interrupted)  // a signal after the run had ended: as profile_lab.cpp
        return InterruptCancels::endByTheSignal();
    if (!result.session.tracePath.empty()) {
        out << "\n";
        return run({"diagnose", result.sessionPath}, out, err) == kExitBadInput ? kExitBadInput
                                                                                : kExitOk;
    }
    return kExitOk;
}

}  // namespace kinetoscope::cli
