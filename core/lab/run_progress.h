#pragma once
// Where a lab run is: the stage (an arm, "fp32", or a sweep point, "sweep batch_size=64"),
// its step, and the run's fraction done; and from a stage's pace, the time it has left.
// Torch-free: the engine sends it, `kinetoscope run` and the app show it.
#include <chrono>
#include <optional>
#include <string>

namespace kinetoscope::lab {

struct RunProgress
{
    std::string stage;
    double fraction = 0;  // of the whole run, 0-1
    int64_t step = 0;     // the step starting now in this stage, 0-based, warm-up included
    int64_t steps = 0;    // the stage's steps, warm-up included (0: not known)
};

// The time a stage has left, from the pace of its steps after the first (the first holds
// one-off costs: the model's first call, the loader's first batch). Fed every progress
// message as it arrives.
class StageEstimate
{
public:
    using Clock = std::chrono::steady_clock;
    void update(const RunProgress& progress, Clock::time_point now = Clock::now());
    // Seconds left in the current stage; nullopt until two steps have been timed.
    std::optional<double> secondsLeft(Clock::time_point now = Clock::now()) const;
    // "fp32: step 5 of 23, about 12.0 s left in this arm" ("... in this point" for a sweep
    // point; "fp32: step 1 of 23" before an estimate).
    std::string line(Clock::time_point now = Clock::now()) const;
    const RunProgress& progress() const { return m_progress; }

private:
    RunProgress m_progress;
    std::optional<Clock::time_point> m_secondStep;  // when the stage's step 1 started
    Clock::time_point m_last;                       // when the latest step started
};

}  // namespace kinetoscope::lab
