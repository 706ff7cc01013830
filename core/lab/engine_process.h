#pragma once
// A lab run from the app's side: `kinetoscope-engine` (the only binary that links torch)
// started as a child process with the run's options, its line protocol read into the
// same callbacks and result as the engine's own (core/lab/run_result.h). A child that
// dies (a signal, an abort, an exit without its last message) never takes the caller
// with it: the error says so in one line (what it was doing, which step), and what it
// had measured is saved (atomically) in the session with the reason. Torch-free.
#include "core/lab/run_config.h"
#include "core/lab/run_result.h"

#include <chrono>
#include <string>

namespace kinetoscope::lab {

struct EngineOptions
{
    std::string executable;  // empty: findEngine()
    // After the cancel message, how long the engine has to stop by itself before it gets
    // SIGTERM, and again before SIGKILL.
    std::chrono::milliseconds cancelGrace{5000};
};

// $KINETOSCOPE_ENGINE, else `kinetoscope-engine` in the running executable's folder;
// empty when neither is an executable file.
std::string findEngine();

// Where the engine's standard error is kept: OUT/engine.log.
std::string engineLogPath(const RunConfig& config);

// Blocks until the engine has stopped. Never throws.
RunResult runEngine(const RunConfig& config, const RunCallbacks& callbacks, const EngineOptions& options = {});

}  // namespace kinetoscope::lab
