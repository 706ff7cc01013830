#pragma once
// Runs the profiling method of shared/seeds/ on a model and dataset through LibTorch
// and returns a Session (the engine's only output besides the trace file it writes).
// Torch-free header; only `kinetoscope-engine` (engine_main.cpp) and the engine's own
// tests call it: the app reaches it through core/lab/engine_process.h.
#include "core/lab/run_config.h"
#include "core/lab/run_result.h"

namespace kinetoscope::engine {

using lab::RunCallbacks;
using lab::RunConfig;
using lab::RunProgress;
using lab::RunResult;

// Never throws: every failure (bad model, OOM, NaN loss, cancel) becomes a one-line
// error, and what was measured before it is kept in the session.
RunResult runLab(const RunConfig& config, const RunCallbacks& callbacks = {});

// The same model, data and optimizer in a loop with nothing of Kinetoscope's around it
// (no phase timing, no annotations, no sampler): samples/s over config.steps after
// config.warmup. For the overhead benchmark. Throws std::runtime_error on failure.
double runBareLoop(const RunConfig& config);

}  // namespace kinetoscope::engine
