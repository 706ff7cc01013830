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
    StackId stack = 0;  // the allocating stack; 0 before the history
    uint32_t from = 0;  // the entry that allocated it (0 for what predates the history)
    uint32_t to = 0;    // the entry that freed it; the entry count while alive at the end
    bool beforeHistory = false;
};

struct DeviceTimeline
{
    int device = 0;
    bool timed = false;  // the snapshot's entries carry times
    // This device's entries: a run of SnapshotModel::entries, read in place (the timeline is
    // valid while its model lives where it was when the timeline was made).
    const TraceEntry* first = nullptr;
    size_t count = 0;
    std::vector<Band> bands;  // stacking order: before the history first, then by alloc
    // Allocated bytes after each entry is applied (the live bands' sizes).
    std::vector<int64_t> allocated;
    // Reserved bytes (segments: segment_alloc/map add, segment_free/unmap remove) as
    // steps: from `applied` entries on, `bytes`; the first step is the start, at 0.
    struct ReservedStep
    {
        size_t applied = 0;
        int64_t bytes = 0;
    };
    std::vector<ReservedStep> reservedSteps;
    int64_t startAllocatedBytes = 0;
    int64_t peakBytes = 0;
    size_t peakApplied = 0;  // entries applied when the peak was first reached (0: the start)

    size_t size() const { return count; }
    const TraceEntry& entry(size_t i) const { return first[i]; }
    // The x of an entry: its time_us, or its index where the snapshot has no times.
    int64_t when(size_t i) const { return timed ? first[i].timeUs : int64_t(i); }
    int64_t allocatedAfter(size_t applied) const
    {
        return applied == 0 ? startAllocatedBytes : allocated[applied - 1];
    }
    int64_t reservedAfter(size_t applied) const;
    int64_t startReservedBytes() const
    {
        return reservedSteps.empty() ? 0 : reservedSteps.front().bytes;
    }
    bool aliveAfter(const Band& b, size_t applied) const
    {
        return (b.beforeHistory || b.from < applied) && b.to >= applied;
    }
    // The bands alive once `applied` entries have run, in stacking order.
    std::vector<uint32_t> liveAfter(size_t applied) const;
};

// Whether the entries carry times that span the history (else an entry's index is its x).
bool hasTimes(const SnapshotModel& model);

// One timeline per device that has segments or entries, devices in order; they read
// `model`'s entries in place. `timed`: whether the entries carry times.
std::vector<DeviceTimeline> timelinesOf(const SnapshotModel& model, bool timed);

// Calls `visit(column, live)` for each of `appliedPerColumn` (non-decreasing entry counts)
// with the bands alive then, in stacking order; one pass over the history.
void forEachColumn(
    const DeviceTimeline& t, const std::vector<size_t>& appliedPerColumn,
    const std::function<void(size_t column, const std::vector<uint32_t>& live)>& visit);

// Per column of [from, to) split evenly (in `when` units), the entry count at which the
// allocated bytes are highest within it (a column without entries: the state it starts
// in), so a peak is never drawn lower than it was.
std::vector<size_t> columnSamples(const DeviceTimeline& t, double from, double to, size_t columns);

}  // namespace kinetoscope::snapshot
