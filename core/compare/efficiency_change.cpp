#include "core/compare/efficiency_change.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

namespace kinetoscope::compare {

using namespace kinetoscope::roofline;

namespace {

EfficiencyDelta::Reading readingOf(const OpRoofline& row, double steps)
{
    EfficiencyDelta::Reading r;
    r.dtype = precisionName(row.precision);
    // The steady steps' time where the trace has them, else the whole trace's over one step.
    r.deviceNsPerStep = row.windowCalls > 0 ? double(row.windowDeviceNs) / std::max(1.0, steps)
                                            : double(row.deviceNs);
    r.achievedTflops = row.rating.achievedTflops;
    r.achievedGbps = row.rating.achievedGbps;
    if (row.rating.attainableTflops > 0)
        r.shareOfRoof = row.rating.shareOfRoof;
    r.bound = boundName(row.rating.bound);
    return r;
}

}  // namespace

std::vector<EfficiencyDelta> compareEfficiency(const Roofline& before, double beforeSteps,
                                               const Roofline& after, double afterSteps,
                                               size_t rows)
{
    std::map<std::pair<std::string, std::string>, EfficiencyDelta> byKey;
    for (const auto& [side, steps, isBefore] :
         {std::tuple{&before, beforeSteps, true}, std::tuple{&after, afterSteps, false}})
        for (const OpRoofline& row : side->ops) {
            if (!row.modelled() || row.deviceNs <= 0)
                continue;
            EfficiencyDelta& d = byKey[{row.name, row.inputShapes}];
            d.name = row.name;
            d.inputShapes = row.inputShapes;
            (isBefore ? d.before : d.after) = readingOf(row, steps);
        }
    std::vector<EfficiencyDelta> deltas;
    deltas.reserve(byKey.size());
    for (auto& [key, d] : byKey)
        deltas.push_back(std::move(d));
    auto cost = [](const EfficiencyDelta& d) {
        return std::max(d.before ? d.before->deviceNsPerStep : 0.0,
                        d.after ? d.after->deviceNsPerStep : 0.0);
    };
    std::stable_sort(
        deltas.begin(), deltas.end(),
        [&](const EfficiencyDelta& a, const EfficiencyDelta& b) { return cost(a) > cost(b); });
    deltas.resize(std::min(rows, deltas.size()));
    return deltas;
}

}  // namespace kinetoscope::compare
