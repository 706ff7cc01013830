#pragma once
// What the timeline shows about a selection: the correlation links of a slice (drawn as
// arrows from the CPU launch to the GPU activity) and the totals of a selected time range.
#include "core/timeline/timeline_index.h"

#include <string>
#include <vector>

namespace kinetoscope::timeline {

struct FlowLink
{
    trace::EventId from;  // the launch call (CPU)
    trace::EventId to;    // the activity it started (GPU)
};

// The launch -> activity links that involve `event`: for a GPU activity the call that
// launched it; for a launch call the activities it started; for a CPU op the activities
// of every launch it made. At most `limit` links, in time order of the activities.
std::vector<FlowLink> linksOf(const trace::TraceModel& model, trace::EventId event,
                              size_t limit = 256);

struct RangeTotalsRow
{
    std::string name;
    trace::Category category = trace::Category::Other;
    uint64_t count = 0;
    int64_t totalNs = 0;  // durations clipped to the range
};

struct RangeTotals
{
    int64_t beginNs = 0, endNs = 0;
    uint64_t slices = 0;                 // slices overlapping the range in the chosen lanes
    int64_t totalNs = 0;                 // their clipped durations, summed
    std::vector<RangeTotalsRow> byName;  // by totalNs, descending
};

// Totals of the slices in lanes [firstLane, lastLane) that overlap [beginNs, endNs).
RangeTotals totalsInRange(const TimelineIndex& index, int64_t beginNs, int64_t endNs,
                          uint32_t firstLane = 0, uint32_t lastLane = UINT32_MAX);

}  // namespace kinetoscope::timeline
