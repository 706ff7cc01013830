#pragma once
// Two lab sessions compared beyond their traces: what the configuration changed, each
// arm's throughput, the phase timings, the DataLoader-versus-compute split, the verdict
// on the lab's own measured steps (many more than the profiled window holds), and, when
// the before side swept the knob that changed, what that sweep predicted next to what was
// measured.
#include "core/compare/step_change.h"
#include "core/session/session.h"

#include <optional>
#include <string>
#include <vector>

namespace kinetoscope::compare {

struct LabComparison
{
    struct ConfigChange
    {
        std::string key, before, after;  // "" where a side does not set it
    };
    struct Figure
    {
        std::string name;  // an arm ("fp32"), a phase ("data"), "dataloader" / "compute"
        std::optional<double> before, after;  // absent on a side that did not measure it
    };
    std::vector<ConfigChange> config;
    std::vector<Figure> armSamplesPerSecond;
    std::vector<Figure> phaseMs;  // mean per step
    std::vector<Figure> splitMs;  // dataloader, compute: mean per step
    // The fp32 arm's measured steps (data + h2d + forward + backward + optimizer), ns.
    std::optional<StepSample> stepsBefore, stepsAfter;
    std::optional<StepChange> steps;
    // The before side's sweep at the after side's value of the knob that changed.
    struct SweepPrediction
    {
        std::string knob;
        int64_t value = 0;
        double predictedSamplesPerSecond = 0;
        double measuredSamplesPerSecond = 0;  // the after side's fp32 arm
    };
    std::optional<SweepPrediction> sweep;
};

LabComparison compareSessions(const session::Session& before, const session::Session& after);

}  // namespace kinetoscope::compare
