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

// The engine links LibTorch, which no Debian package provides: it is found through
// KINETOSCOPE_LIBTORCH (a folder holding libtorch_cpu.so: a torch wheel's torch/lib),
// searched first when the engine starts, else where the build or the package put it
// (/usr/lib/kinetoscope/torch/lib for the package). What a failed start says.
inline constexpr const char* kLibTorchHint =
    "set KINETOSCOPE_LIBTORCH to the folder holding libtorch_cpu.so (the torch 2.11 wheel's "
    "torch/lib), or link "
    "the wheel's torch folder to /usr/lib/kinetoscope/torch; every view works without the engine";

// The environment the engine starts with: this process's, with KINETOSCOPE_LIBTORCH (when
// set) first in LD_LIBRARY_PATH, then a CUDA wheel's runtime folders beside it
// (site-packages/nvidia/cu13/lib, .../cuda_runtime/lib) where they exist. Each entry
// "NAME=value".
std::vector<std::string> engineEnvironment();

// Where the engine's standard error is kept: OUT/engine.log.
std::string engineLogPath(const RunConfig& config);

// Blocks until the engine has stopped. Never throws.
RunResult runEngine(const RunConfig& config, const RunCallbacks& callbacks,
                    const EngineOptions& options = {});

}  // namespace kinetoscope::lab
