#pragma once
// The vertical layout of the timeline: groups by process and device (a header row, then
// one row per lane: each thread or stream at each nesting depth, then the group's counter
// tracks), collapsible, with pixel rows found by binary search. A fold of Python frames
// (frame_folds.h) is one row holding its lanes' slices, deeper ones in front, until it
// is expanded; expanded, that row heads its lanes.
#include "core/timeline/counter_track.h"
#include "core/timeline/frame_folds.h"
#include "core/timeline/timeline_index.h"

#include <string>
#include <utility>
#include <vector>

namespace kinetoscope::timeline {

enum class RowKind : uint8_t
{
    Group,
    Lane,
    Counter,
    Fold
};

struct LayoutRow
{
    RowKind kind = RowKind::Lane;
    int y = 0;  // top, in pixels from the first row
    int height = 0;
    uint32_t index = 0;  // group, lane, counter or fold index, by kind
};

// What a group holds, for remembering a layout across traces of one kind.
enum class GroupRole : uint8_t
{
    Device,       // a GPU's streams (and its counters)
    LeadProcess,  // the process of the lead thread (TimelineIndex::leadThread)
    Process,      // any other process
    Other,        // tracks of no known kind, host counters without a process
};
const char* groupRoleName(GroupRole role);  // "device", "lead-process", "process", "other"

struct LayoutFold : FrameFold
{
    bool expanded = false;
};

struct TrackGroup
{
    std::string key;                       // "cpu:<pid>", "gpu:<device>", "other:<pid>"
    std::string label;                     // "Process 1234 (python)", "GPU 0"
    uint32_t firstLane = 0, lastLane = 0;  // the group's lanes are [firstLane, lastLane)
    std::vector<uint32_t> counters;        // indices into the counter tracks
    bool collapsed = false;
    GroupRole role = GroupRole::Other;
};

class TrackLayout
{
public:
    static constexpr int kGroupHeight = 22;
    static constexpr int kLaneHeight = 18;
    static constexpr int kCounterHeight = 42;

    TrackLayout(const TimelineIndex& index, const std::vector<CounterTrack>& counters,
                std::vector<FrameFold> folds = {});

    const std::vector<TrackGroup>& groups() const { return m_groups; }
    void setCollapsed(uint32_t group, bool collapsed);
    const std::vector<LayoutFold>& folds() const { return m_folds; }
    void setExpanded(uint32_t fold, bool expanded);
    // The lanes a row shows: a lane row its lane, a folded fold row its lanes; else empty.
    std::pair<uint32_t, uint32_t> lanesOf(const LayoutRow& row) const;
    const std::vector<LayoutRow>& rows() const { return m_rows; }
    int height() const { return m_height; }
    // The row covering y (pixels from the first row), or null below the last one.
    const LayoutRow* rowAt(int y) const;
    // Top of a lane's row (of its fold's row while folded); -1 when its group is collapsed.
    int laneY(uint32_t lane) const { return m_laneY[lane]; }
    // The lanes with a row overlapping [y0, y1), as [first, last); empty when none.
    std::pair<uint32_t, uint32_t> lanesIn(int y0, int y1) const;
    // "Thread 1234 (main)", "Stream 7"; at depth > 0 empty (the track's first row names
    // it); "↳ overlapping" on an extra row (Lane::overlapRow).
    std::string laneLabel(uint32_t lane) const;

private:
    void relayout();
    const TimelineIndex& m_index;
    std::vector<TrackGroup> m_groups;
    std::vector<LayoutFold> m_folds;
    std::vector<int32_t> m_foldStartingAt;  // by lane: the fold whose first lane it is, or -1
    std::vector<LayoutRow> m_rows;
    std::vector<int> m_laneY;
    int m_height = 0;
};

}  // namespace kinetoscope::timeline
