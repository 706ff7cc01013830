#pragma once
// What a lab run reports as it goes and what it returns: the same for the engine inside
// `kinetoscope-engine` (core/engine/lab_runner.h) and for the app's side of the pipe
// (core/lab/engine_process.h). Torch-free.
#include "core/lab/run_progress.h"
#include "core/session/session.h"

#include <atomic>
#include <functional>
#include <string>

namespace kinetoscope::lab {

// Called as the run goes; inside the engine from the training thread except `sample`
// (the sampler's thread), on the app's side from the thread that called runEngine. A
// GUI forwards them to its own thread.
struct RunCallbacks
{
    std::function<void(const RunProgress&)>
        progress;  // as each step of an arm or sweep point starts
    std::function<void(const session::StepTiming&)> step;  // each measured step of the fp32 arm
    std::function<void(const session::LabArm&)> arm;       // each arm, run or skipped
    std::function<void(const session::SweepPoint&)> sweepPoint;
    std::function<void(const session::MemoryTriage&)> memory;  // once, after the fp32 arm
    std::function<void(const session::LiveSample&)> sample;
    // The session's configuration and environment, once the device is known, and the
    // file it will be saved to.
    std::function<void(const session::Session& header, const std::string& sessionPath)> started;
    std::function<void(const std::string& sessionPath)> saved;  // after every atomic save
    // The app's side only: the engine process is running (its process id), and 0 once
    // it has ended.
    std::function<void(int pid)> engineStarted;
    // Stop after the step in flight (a message to the engine, then signals after a grace
    // period).
    const std::atomic<bool>* cancel = nullptr;
    // Who asked for the cancel, in the words the session keeps ("Ctrl-C", "the app's Cancel
    // button"); called once `cancel` is set. The app's side sends it with its cancel
    // message; the engine writes it in the session it saves.
    std::function<std::string()> cancelledBy;
    // The app's side only: the caller is going away; the engine is killed at once.
    const std::atomic<bool>* abandon = nullptr;
};

struct RunResult
{
    bool ok = false;
    std::string error;  // one line when !ok; what was measured before is still in session
    session::Session session;
    std::string sessionPath;  // written when ok or partially ok
};

}  // namespace kinetoscope::lab
