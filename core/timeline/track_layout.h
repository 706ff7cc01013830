#pragma once
// The vertical layout of the timeline: groups by process and device (a header row, then
// one row per lane: each thread or stream at each nesting depth, then the group's counter
// tracks), collapsible, with pixel rows found by binary search.
#include "core/timeline/counter_track.h"
#include "core/timeline/timeline_index.h"

#include <string>
#include <utility>
#include <vector>

namespace kinetoscope::timeline {

enum class RowKind : uint8_t { Group, Lane, Counter };

struct LayoutRow
{
    RowKind kind = RowKind::Lane;
    int y = 0;  // top, in pixels from the first row
    int height = 0;
    uint32_t index = 0;  // group, lane or counter index, by kind
};

struct TrackGroup
{
    std::string key;    // "cpu:<pid>", "gpu:<device>", "other:<pid>"
    std::string label;  // "Process 1234 (python)", "GPU 0"
    uint32_t firstLane = 0, lastLane = 0;  // the group's lanes are [firstLane, lastLane)
    std::vector<uint32_t> counters;        // indices into the counter tracks
    bool collapsed = false;
};

class TrackLayout
{
public:
    static constexpr int kGroupHeight = 22;
    static constexpr int kLaneHeight = 18;
    static constexpr int kCounterHeight = 42;

    TrackLayout(const TimelineIndex& index, const std::vector<CounterTrack>& counters);

    const std::vector<TrackGroup>& groups() const { return m_groups; }
    void setCollapsed(uint32_t group, bool collapsed);
    const std::vector<LayoutRow>& rows() const { return m_rows; }
    int height() const { return m_height; }
    // The row covering y (pixels from the first row), or null below the last one.
    const LayoutRow* rowAt(int y) const;
    // Top of a lane's row; -1 when its group is collapsed.
    int laneY(uint32_t lane) const { return m_laneY[lane]; }
    // The lanes with a row overlapping [y0, y1), as [first, last); empty when none.
    std::pair<uint32_t, uint32_t> lanesIn(int y0, int y1) const;
    // "Thread 1234 (main)", "Stream 7"; at depth > 0 empty (the track's first row names it).
    std::string laneLabel(uint32_t lane) const;

private:
    void relayout();
    const TimelineIndex& m_index;
    std::vector<TrackGroup> m_groups;
    std::vector<LayoutRow> m_rows;
    std::vector<int> m_laneY;
    int m_height = 0;
};

}  // namespace kinetoscope::timeline
