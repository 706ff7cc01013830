#pragma once
// The timeline's level-of-detail index over a TraceModel: one lane per (track, depth),
// lanes ordered so that a step's story opens on screen (GPU devices and their streams,
// then the lead thread's process with the lead thread first, then the other processes),
// each holding its events' ids in time order and a running maximum of their ends, so the
// events overlapping any window are found by binary search. Cost: 12 bytes per event.
//
// Events that overlap one another on a thread or stream without nesting (real traces
// have them: ROCm and graph-replayed kernels, async ops) would hide each other on one
// row; such an event goes to an extra row of its depth (Lane::overlapRow > 0), so every
// event is drawn.
//
// buildDrawList turns a viewport into what to paint: slices at least `minPx` wide as
// they are, and runs of narrower slices folded into one item that keeps their count and
// covers their time; per lane the work is O(items x log n), not O(events).
#include "core/timeline/viewport.h"
#include "core/trace/trace_model.h"

#include <string_view>
#include <unordered_map>
#include <vector>

namespace kinetoscope::timeline {

struct Lane
{
    trace::TrackId track;
    uint16_t depth = 0;
    uint16_t overlapRow = 0;  // 0: the depth's own row; k > 0: its k-th extra row, holding
                              // events that overlap one on the rows before without nesting
    std::vector<trace::EventId> events;  // by start time, none overlapping another
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
    // `leadThread`: the CPU thread to list first after the devices (leadThreadOf); none
    // keeps the trace's own process and thread order.
    explicit TimelineIndex(const trace::TraceModel& model, trace::TrackId leadThread = {});
    const trace::TraceModel& model() const { return m_model; }
    const std::vector<Lane>& lanes() const { return m_lanes; }
    trace::TrackId leadThread() const { return m_leadThread; }
    // Events placed on an extra row because they overlap another without nesting.
    size_t overlappingEvents() const { return m_extraRowLane.size(); }
    size_t memoryBytes() const;

    // Appends to `out` the items of lanes [firstLane, lastLane) visible in `view`.
    void buildDrawList(const Viewport& view, float minPx, std::vector<DrawItem>& out,
                       uint32_t firstLane = 0, uint32_t lastLane = UINT32_MAX) const;
    // The slice of `lane` under x (the nearest within `tolerancePx`), or invalid.
    trace::EventId hitTest(uint32_t lane, const Viewport& view, double x,
                           double tolerancePx = 2.0) const;
    // The lane showing `event` (for jumping to a kernel or op row).
    uint32_t laneOf(trace::EventId event) const;
    // For an event on an extra row: one event on its depth's earlier rows that it
    // overlaps without nesting; invalid for an event on its depth's own row.
    trace::EventId overlappedBy(trace::EventId event) const;

private:
    const trace::TraceModel& m_model;
    trace::TrackId m_leadThread;
    std::vector<Lane> m_lanes;
    // The lane of (track, depth)'s own row is m_depthLanes[m_firstDepthOfTrack[track] + depth].
    std::vector<uint32_t> m_depthLanes;
    std::vector<uint32_t> m_firstDepthOfTrack;              // by track id
    std::unordered_map<uint32_t, uint32_t> m_extraRowLane;  // event -> lane, extra rows only
};

// The host thread a step's story is told on: the CPU thread holding the most step
// markers (names starting with `stepMarker`) or DataLoader calls, else the one issuing
// the most kernel launches, else the one with the most events; none without a CPU thread.
trace::TrackId leadThreadOf(const trace::TraceModel& model, std::string_view stepMarker);

// Events whose name contains `query` (ASCII case-insensitive), by start time.
std::vector<trace::EventId> searchByName(const trace::TraceModel& model, std::string_view query);
// The match after (or before) `timeNs`, wrapping around; invalid when there is none.
trace::EventId nextMatch(const trace::TraceModel& model, const std::vector<trace::EventId>& matches,
                         int64_t timeNs, bool forward);

}  // namespace kinetoscope::timeline
