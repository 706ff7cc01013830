#pragma once
// The timeline's level-of-detail index over a TraceModel: one lane per (track, depth),
// lanes ordered by process and device (CPU threads, then GPU devices and their streams),
// each holding its events' ids in time order and a running maximum of their ends, so the
// events overlapping any window are found by binary search. Cost: 12 bytes per event.
//
// buildDrawList turns a viewport into what to paint: slices at least `minPx` wide as
// they are, and runs of narrower slices folded into one item that keeps their count and
// covers their time; per lane the work is O(items x log n), not O(events).
#include "core/timeline/viewport.h"
#include "core/trace/trace_model.h"

#include <string_view>
#include <vector>

namespace kinetoscope::timeline {

struct Lane
{
    trace::TrackId track;
    uint16_t depth = 0;
    std::vector<trace::EventId> events;  // by start time
    std::vector<int64_t> maxEndNs;       // maxEndNs[i] = max end of events[0..i]
};

struct DrawItem
{
    float x0 = 0, x1 = 0;  // pixels, clipped to the viewport (x1 >= x0 + minPx for folds)
    uint32_t lane = 0;
    trace::EventId event;  // the slice, or the first slice of a folded run
    uint32_t count = 1;    // > 1: a folded run of this many slices
};

class TimelineIndex
{
public:
    explicit TimelineIndex(const trace::TraceModel& model);
    const trace::TraceModel& model() const { return m_model; }
    const std::vector<Lane>& lanes() const { return m_lanes; }
    size_t memoryBytes() const;

    // Appends to `out` the items of lanes [firstLane, lastLane) visible in `view`.
    void buildDrawList(const Viewport& view, float minPx, std::vector<DrawItem>& out, uint32_t firstLane = 0,
                       uint32_t lastLane = UINT32_MAX) const;
    // The slice of `lane` under x (the nearest within `tolerancePx`), or invalid.
    trace::EventId hitTest(uint32_t lane, const Viewport& view, double x, double tolerancePx = 2.0) const;
    // The lane showing `event` (for jumping to a kernel or op row).
    uint32_t laneOf(trace::EventId event) const;

private:
    const trace::TraceModel& m_model;
    std::vector<Lane> m_lanes;
    std::vector<uint32_t> m_firstLaneOfTrack;  // by track id
};

// Events whose name contains `query` (ASCII case-insensitive), by start time.
std::vector<trace::EventId> searchByName(const trace::TraceModel& model, std::string_view query);
// The match after (or before) `timeNs`, wrapping around; invalid when there is none.
trace::EventId nextMatch(const trace::TraceModel& model, const std::vector<trace::EventId>& matches, int64_t timeNs,
                         bool forward);

}  // namespace kinetoscope::timeline
