#include "core/timeline/overview.h"

namespace kinetoscope::timeline {

BusyProfile busyProfile(const analysis::UtilizationSeries& utilization)
{
    BusyProfile profile;
    profile.beginNs = utilization.beginNs;
    profile.bucketNs = utilization.bucketNs;
    if (utilization.gpuBusy.empty()) {
        profile.label = "CPU busy";
        profile.values = utilization.cpuBusy;
        return profile;
    }
    profile.label = "GPU busy";
    for (const auto& [device, busy] : utilization.gpuBusy) {
        profile.values.resize(std::max(profile.values.size(), busy.size()), 0.0f);
        for (size_t i = 0; i < busy.size(); ++i)
            profile.values[i] += busy[i] / float(utilization.gpuBusy.size());
    }
    return profile;
}

}  // namespace kinetoscope::timeline
