#pragma once
// The method's three-run baseline and sweeps on a user's own script: `kinetoscope profile
// --lab -- python train.py` and the app's *Profile a script* with its lab box. The script
// runs once per arm and per sweep point, each under the probe (core/lab/probe_process.h)
// for warm-up + N measured steps, with the same seed:
//   fp32          the script as written;
//   bf16          its model's forward and loss under bf16 autocast;
//   bf16+compile  the same with the model compiled in place (the real torch.compile).
// Sweeps set the script's own DataLoader at construction (num_workers, or batch_size).
// Each run keeps its own session in DIR/runs/NAME/; the lab's session (DIR/session.
// kinetoscope.json: the arms, the sweep, the fp32 run's steps, phases and trace) is saved
// after every run, atomically. docs/profile.md. Torch-free.
#include "core/lab/probe_process.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kinetoscope::lab {

struct ScriptLabConfig
{
    // The command, the lab's folder (outDir), the warm-up (skip), the fp32 run's profiler
    // window (active; the other runs take none) and the measured steps of each run (steps,
    // > 0), the seed.
    ProfileConfig script;
    std::vector<std::string> arms{"fp32", "bf16", "bf16+compile"};  // in order; may be empty
    std::vector<int64_t> workers;     // --sweep workers=0,2,4: num_workers per point
    std::vector<int64_t> batchSizes;  // --sweep batch=32,64,...: ascending, up to the first OOM
    // A point whose peak memory (CUDA: allocated; CPU: the script's resident set) passes
    // this many MiB counts as out of memory (0: only a real out-of-memory error).
    int64_t memoryLimitMb = 0;
};

struct ScriptLabResult
{
    RunResult run;  // ok: the fp32 arm (or the first point) measured; the lab's session
    std::vector<std::string> notes;  // one line per run that did not go as asked
};

// One line when the configuration cannot run, else empty (checked before anything runs).
std::string validateScriptLab(const ScriptLabConfig& config);

// The batch size of a script's run, as the probe read it from its DataLoader (config
// batch_size); 1 when it did not say.
int64_t batchSizeOf(const session::Session& run);
// The samples a step of it takes: its batch size times the batches of a step (config
// batches_per_step: gradient accumulation takes several; 1 when it did not say).
int64_t samplesPerStepOf(const session::Session& run);

// The arm names a lab takes ("fp32", "bf16", "bf16+compile").
bool isScriptArm(const std::string& name);

// An arm's figures from one run's session: ran when it measured steps and the probe applied
// the arm (config "arm_error" empty); samples/s from the median wall time of a step (a step
// that compiled or recompiled does not move it), the batch size from the probe's config.
session::LabArm armFromRun(const std::string& name, const session::Session& run,
                           const std::string& runError);

// A sweep point from one run's session, likewise; `limitBytes` > 0 marks a run whose peak
// passed it as out of memory.
session::SweepPoint sweepPointFromRun(const std::string& knob, int64_t value,
                                      const session::Session& run, const std::string& runError,
                                      int64_t limitBytes);

// Runs every arm, then every sweep point, one after another; blocks until done. Never
// throws. callbacks.progress gets each run's progress with the run's name before its stage
// ("bf16: measured"), step and sample the fp32 arm's, arm and sweepPoint each result.
ScriptLabResult runScriptLab(const ScriptLabConfig& config, const RunCallbacks& callbacks);

}  // namespace kinetoscope::lab
