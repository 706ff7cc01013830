#pragma once
// One device's allocation history as bands, the way PyTorch's memory page draws it: each
// allocation a band from its alloc entry to its first free (free_requested: the tensor is
// gone, though its block may wait for its stream before free_completed), stacked in
// allocation order. What was allocated before the history began is a band of its own at
// the bottom (and one per such block the history frees). Byte counts are bytes.
#include "core/snapshot/snapshot_model.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace kinetoscope::snapshot {

struct Band
{
    int64_t size = 0;
    StackId stack = 0;    // the allocating stack; 0 before the history
    uint32_t from = 0;    // the entry that allocated it (0 for what predates the history)
    uint32_t to = 0;      // the entry that freed it; the entry count while alive at the end
    bool beforeHistory = false;
};

struct DeviceTimeline
{
    int device = 0;
    std::vector<uint32_t> entries;   // into SnapshotModel::entries, this device's in order
    std::vector<int64_t> when;       // per entry: time_us, or the entry's index where untimed
    bool timed = false;              // the snapshot's entries carry times
    std::vector<Band> bands;         // stacking order: before the history first, then by alloc
    // Per entry, after it is applied. `allocated` counts live bands; `reserved` the
    // segments (segment_alloc/map add, segment_free/unmap remove), from what the dump
    // holds less the history's net change.
    std::vector<int64_t> allocated, reserved;
    int64_t startAllocatedBytes = 0, startReservedBytes = 0;
    int64_t peakBytes = 0;
    size_t peakApplied = 0;  // entries applied when the peak was first reached (0: the start)

    size_t size() const { return entries.size(); }
    int64_t allocatedAfter(size_t applied) const { return applied == 0 ? startAllocatedBytes : allocated[applied - 1]; }
    int64_t reservedAfter(size_t applied) const { return applied == 0 ? startReservedBytes : reserved[applied - 1]; }
    bool aliveAfter(const Band& b, size_t applied) const
    {
        return (b.beforeHistory || b.from < applied) && b.to >= applied;
    }
    // The bands alive once `applied` entries have run, in stacking order.
    std::vector<uint32_t> liveAfter(size_t applied) const;
};

// One timeline per device that has segments or entries, devices in order.
// `timed`: whether the snapshot's entries carry times (SnapshotSummary's reading).
std::vector<DeviceTimeline> timelinesOf(const SnapshotModel& model, bool timed);

// Calls `visit(column, live)` for each of `appliedPerColumn` (non-decreasing entry counts)
// with the bands alive then, in stacking order; one pass over the history.
void forEachColumn(const DeviceTimeline& t, const std::vector<size_t>& appliedPerColumn,
                   const std::function<void(size_t column, const std::vector<uint32_t>& live)>& visit);

// Per column of [from, to) split evenly (in `when` units), the entry count at which the
// allocated bytes are highest within it (a column without entries: the state it starts
// in), so a peak is never drawn lower than it was.
std::vector<size_t> columnSamples(const DeviceTimeline& t, double from, double to, size_t columns);

}  // namespace kinetoscope::snapshot
