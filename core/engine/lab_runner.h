#pragma once
// Runs the profiling method of shared/seeds/ on a model and dataset through LibTorch
// and returns a Session (the engine's only output besides the trace file it writes).
// Torch-free header.
#include "core/engine/run_config.h"
#include "core/session/session.h"

#include <atomic>
#include <functional>
#include <string>

namespace kinetoscope::engine {

struct RunCallbacks
{
    std::function<void(const std::string& stage, double fraction)> progress;
    const std::atomic<bool>* cancel = nullptr;
};

struct RunResult
{
    bool ok = false;
    std::string error;  // one line when !ok; what was measured before is still in session
    session::Session session;
    std::string sessionPath;  // written when ok or partially ok
};

// Never throws: every failure (bad model, OOM, NaN loss, cancel) becomes a one-line
// error, and what was measured before it is kept in the session.
RunResult runLab(const RunConfig& config, const RunCallbacks& callbacks = {});

}  // namespace kinetoscope::engine
