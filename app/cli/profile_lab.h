#pragma once
// `kinetoscope profile --lab | --arms LIST | --sweep KNOB=LIST -- python train.py`: the
// method's three-run baseline and sweeps on the user's own script (core/lab/script_lab.h).
// Each run's output goes to its own log (DIR/runs/NAME/output.log); this prints a line per
// run as it ends, then the arms, the fp32 run's phases, the sweep, the reading and the
// diagnosis. Ctrl-C cancels, as SIGTERM, SIGHUP and the other signals that would end this
// process do (InterruptCancels): the run in flight stops at its next step, what was
// measured is kept.
#include "core/lab/script_lab.h"

#include <cstdint>
#include <iosfwd>

namespace kinetoscope::cli {

// Measured steps of each run when --steps is not given.
inline constexpr int64_t kLabSteps = 20;

int runScriptLabCommand(const lab::ScriptLabConfig& config, std::ostream& out, std::ostream& err);

}  // namespace kinetoscope::cli
