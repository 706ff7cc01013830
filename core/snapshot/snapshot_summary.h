#pragma once
// What a memory snapshot says: totals at the dump, the allocated-memory timeline replayed
// from the trace entries (its peak, and what was alive at it by allocating stack), leak
// candidates, the out-of-memory reading, and findings in the project's finding form.
#include "core/analysis/diagnosis/finding.h"
#include "core/snapshot/snapshot_model.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace kinetoscope::snapshot {

struct StackBytes
{
    StackId stack = 0;
    int64_t bytes = 0;
    int64_t allocations = 0;
};

struct DeviceMemory
{
    int device = 0;
    int64_t reservedBytes = 0;   // segments' total_size at the dump
    int64_t allocatedBytes = 0;  // active_allocated blocks at the dump
    size_t entries = 0;          // trace entries
    // Allocated bytes when the history starts: what the dump holds less what the trace
    // allocated and freed (allocations made before recording began are in no entry).
    int64_t startAllocatedBytes = 0;
    int64_t peakAllocatedBytes = 0;
    int64_t peakTimeUs = -1;  // -1: the peak is the start (or the trace has no times)
};

struct OutOfMemory
{
    int device = 0;
    int64_t requestedBytes = 0;
    int64_t deviceFreeBytes = -1;
    int64_t timeUs = -1;
};

struct SnapshotSummary
{
    int devices = 0;
    size_t segments = 0;
    size_t blocks = 0;
    int64_t reservedBytes = 0;
    int64_t allocatedBytes = 0;
    size_t traceEntries = 0;
    int64_t firstTimeUs = -1, lastTimeUs = -1;
    std::vector<DeviceMemory> perDevice;
    int peakDevice = 0;  // the device with the largest peak
    int64_t peakAllocatedBytes = 0;
    int64_t peakTimeUs = -1;
    // Alive at the peak, by allocating stack, largest first; what was allocated before
    // the history began is apart (no entry says where).
    std::vector<StackBytes> topStacksAtPeak;
    int64_t beforeHistoryAtPeakBytes = 0;
    // Leaks: alive at the dump, allocated after the first third of the history in at least
    // three iterations (told by the annotation that repeats most), by place, largest
    // first; none where the snapshot marks no iterations.
    std::vector<StackBytes> leaks;
    int64_t leakedBytes = 0;
    std::optional<OutOfMemory> outOfMemory;
    int64_t largestFreeBlockBytes = 0;  // the largest inactive block at the dump
    int64_t inactiveBytes = 0;          // cached in segments, in no live tensor
    std::vector<analysis::Finding> findings;
};

SnapshotSummary summarize(const SnapshotModel& model);

}  // namespace kinetoscope::snapshot
