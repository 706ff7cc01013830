#pragma once
// `kinetoscope profile --scaling 1,2,4 [--strong] -- python train.py`: the same script as a
// job at each world size (core/lab/profile_job.h, --nproc N through the user's own
// torch.distributed.run), one after another, each in OUT/world-N/; then each job's ranks
// read from their traces (core/job) to split the lost time, and the study saved as
// OUT/scaling.kinetoscope.json. Strong scaling keeps the smallest job's global batch (its
// per-rank batch times its world size) and gives each rank its share through the probe's
// DataLoader override. Qt-free.
#include "core/lab/profile_job.h"
#include "core/scaling/scaling.h"

#include <functional>
#include <string>
#include <vector>

namespace kinetoscope::scaling {

struct RunConfig
{
    lab::ProfileConfig script;    // the command, OUT (outDir), skip, active, steps per job
    std::vector<int> worldSizes;  // ascending after validation
    bool strong = false;
};

struct RunOutcome
{
    Study study;
    std::string studyPath;           // written when any point measured
    std::vector<std::string> notes;  // one line per job that did not run cleanly
    bool cancelled = false;
};

// One line when the configuration cannot run, else empty.
std::string validateRun(const RunConfig& config);

// Runs every world size in turn (stops after the job in flight when callbacks.run.cancel is
// set); `starting` is called before each job with its world size and folder.
RunOutcome runStudy(const RunConfig& config, const lab::JobCallbacks& callbacks,
                    const std::function<void(int worldSize, const std::string& folder)>& starting);

// A job's measured step (ms): each rank's median wall step, the median over the ranks; 0
// when no rank measured a step.
double jobStepMs(const lab::JobRunResult& job);

}  // namespace kinetoscope::scaling
