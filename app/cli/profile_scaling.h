#pragma once
// `kinetoscope profile --scaling 1,2,4 [--strong] -- python train.py`: the script as a job
// at each world size (core/scaling/scaling_run.h), each job's output in
// DIR/world-N/output.log; a line per job as it ends, then the study (samples/s, ideal,
// efficiency, the lost time per step split) and where it was saved. Ctrl-C cancels (as
// SIGTERM, SIGHUP... do: InterruptCancels): the job in flight stops its ranks at an agreed
// step, what was measured is kept.
#include "core/scaling/scaling_run.h"

#include <iosfwd>

namespace kinetoscope::cli {

int runScalingCommand(const scaling::RunConfig& config, std::ostream& out, std::ostream& err);

}  // namespace kinetoscope::cli
