#include "app/cli/profile_scaling.h"

#include "app/cli/cli_main.h"
#include "app/cli/interrupt_cancels.h"
#include "core/format/format.h"

#include <atomic>
#include <ostream>

namespace kinetoscope::cli {

int runScalingCommand(const scaling::RunConfig& c, std::ostream& out, std::ostream& err)
{
    if (const std::string invalid = scaling::validateRun(c); !invalid.empty()) {
        err << "kinetoscope profile: " << invalid << "\n";
        return kExitBadInput;
    }
    err << "kinetoscope profile: " << (c.strong ? "strong" : "weak") << " scaling at "
        << c.worldSizes.size() << " world sizes; " << c.script.skip << " warm-up + "
        << c.script.steps << " measured steps a job; each job's output in " << c.script.outDir
        << "/world-N/output.log" << std::endl;
    lab::JobCallbacks callbacks;
    std::atomic<bool>& cancel = InterruptCancels::flag();
    cancel = false;
    callbacks.run.cancel = &cancel;
    callbacks.run.cancelledBy = InterruptCancels::cancelledBy;
    const scaling::RunOutcome outcome = [&] {
        const InterruptCancels interruptCancels;
        return scaling::runStudy(c, callbacks, [&err](int worldSize, const std::string& folder) {
            err << "kinetoscope profile: " << format::counted(size_t(worldSize), "rank", "ranks")
                << " (" << folder << ")" << std::endl;
        });
    }();
    for (const std::string& note : outcome.notes)
        err << "kinetoscope profile: " << note << "\n";
    out << "\n" << scaling::studyText(outcome.study);
    const bool measured = std::any_of(outcome.study.points.begin(), outcome.study.points.end(),
                                      [](const scaling::Point& p) { return p.measured(); });
    if (measured)
        out << "\nstudy: " << outcome.studyPath << "\n";
    if (outcome.cancelled || cancel)  // (cancel alone: a signal after the last job had ended)
        return InterruptCancels::endByTheSignal();
    return measured ? kExitOk : kExitBadInput;
}

}  // namespace kinetoscope::cli
