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

// Called as the run goes; from the training thread except `sample` (the sampler's
// thread). A GUI forwards them to its own thread.
struct RunCallbacks
{
    std::function<void(const std::string& stage, double fraction)> progress;
    std::function<void(const session::StepTiming&)> step;  // each measured step of the fp32 arm
    std::function<void(const session::LabArm&)> arm;       // each arm, run or skipped
    std::function<void(const session::SweepPoint&)> sweepPoint;
    std::function<void(const session::LiveSample&)> sample;
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

// The same model, data and optimizer in a loop with nothing of Kinetoscope's around it
// (no phase timing, no annotations, no sampler): samples/s over config.steps after
// config.warmup. For the overhead benchmark. Throws std::runtime_error on failure.
double runBareLoop(const RunConfig& config);

}  // namespace kinetoscope::engine
