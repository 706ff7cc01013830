#pragma once
// The top op groups' kernel efficiency before and after: achieved TFLOP/s and GB/s and the
// share of the roof, per op name and input shapes (roofline.h), with their device time per
// step. What `diff` reports as "efficiency".
#include "core/roofline/roofline.h"

#include <optional>
#include <string>
#include <vector>

namespace kinetoscope::compare {

struct EfficiencyDelta
{
    std::string name;
    std::string inputShapes;
    // Per side; nullopt where the side did not run it (or did not rate it).
    struct Reading
    {
        std::string dtype;  // "bf16", ...
        double deviceNsPerStep = 0;
        double achievedTflops = 0;
        double achievedGbps = 0;
        std::optional<double> shareOfRoof;  // nullopt without the device's peaks
        std::string bound;                  // "compute", "memory", "unknown"
    };
    std::optional<Reading> before, after;
};

// A share of the roof that moved less than this reads as unchanged.
inline constexpr double kEfficiencyUnchanged = 0.05;
// How many op groups the comparison lists: the costliest on either side.
inline constexpr size_t kEfficiencyRows = 10;

// `beforeSteps`, `afterSteps`: each side's steady step count (device times per step);
// groups keyed by name and input shapes, the costliest of both sides first.
std::vector<EfficiencyDelta> compareEfficiency(const roofline::Roofline& before, double beforeSteps,
                                               const roofline::Roofline& after, double afterSteps,
                                               size_t rows = kEfficiencyRows);

}  // namespace kinetoscope::compare
