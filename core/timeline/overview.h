#pragma once
// The overview strip's content: how busy the devices were across the whole trace (the
// mean over devices of each bucket's busy fraction), or the CPU when the trace has no
// device activity, and the map between its pixels and time.
#include "core/analysis/device_activity.h"

#include <string>
#include <vector>

namespace kinetoscope::timeline {

struct BusyProfile
{
    std::string label;          // "GPU busy", "CPU busy"
    int64_t beginNs = 0;        // the first bucket's start
    int64_t bucketNs = 0;       // each bucket's length
    std::vector<float> values;  // busy fraction 0..1 per bucket
    int64_t endNs() const { return beginNs + bucketNs * int64_t(values.size()); }
};

BusyProfile busyProfile(const analysis::UtilizationSeries& utilization);

// The strip's x <-> time over [beginNs, endNs) across `widthPx` pixels.
struct OverviewScale
{
    int64_t beginNs = 0, endNs = 1;
    double widthPx = 1;
    double xOf(int64_t timeNs) const
    {
        return double(timeNs - beginNs) / double(endNs - beginNs) * widthPx;
    }
    int64_t timeAt(double x) const
    {
        return beginNs + int64_t(x / widthPx * double(endNs - beginNs));
    }
};

}  // namespace kinetoscope::timeline
