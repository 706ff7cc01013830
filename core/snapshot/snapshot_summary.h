#pragma once
// What a memory snapshot says: totals at the dump, the allocated-memory timeline replayed
// from the trace entries (its peak, and what was alive at it by allocating stack), leak
// candidates, the out-of-memory reading, and findings in the project's finding form.
#include "core/analysis/diagnosis/finding.h"
#include "core/snapshot/snapshot_model.h"
#include "core/snapshot/snapshot_replay.h"
#include "core/snapshot/snapshot_timeline.h"

#include <cstdint>
#include <optional>
#include <string>
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
    // Allocated bytes when the history starts (allocations made before recording began are
    // in no entry): the dump's live blocks no allocation of the history accounts for, and
    // what the history frees without having allocated it.
    int64_t startAllocatedBytes = 0;
    int64_t peakAllocatedBytes = 0;
    int64_t peakTimeUs = -1;  // -1: the peak is the start (or the trace has no times)
};

// The out-of-memory reading: what was asked, what the device had free, and the allocator's
// state on that device AT THE FAILURE, replayed from the dump back to the `oom` entry
// (snapshot_replay.h), with the dump's state apart. A snapshot dumped after the error, once
// the failed step's tensors were freed, caches far more at the dump than the request found.
struct OutOfMemory
{
    int device = 0;
    int64_t requestedBytes = 0;    // the oom entry's size: the rounded request
    int64_t deviceFreeBytes = -1;  // the driver's free bytes (device_free); -1: not recorded
    int64_t timeUs = -1;
    // At the failure: `atFailure` replayed to the oom entry (false: the entry is in no
    // device's history, and the figures below are the dump's).
    bool replayed = false;
    AllocatorState atFailure;
    size_t entriesAfter = 0;               // the device's entries between the oom and the dump
    int64_t reservedUnallocatedBytes = 0;  // at the failure: reserved less the live tensors
    int64_t largestFreeBlockBytes = 0;     // at the failure (at most; atFailure has the least)
    // At the dump (after the failure): the device's segments less its allocated blocks, and
    // its largest inactive block.
    int64_t dumpReservedUnallocatedBytes = 0;
    int64_t dumpLargestFreeBlockBytes = 0;
    // The cache held enough in total but in no one piece: fragmentation failed it. Not
    // claimed where the free blocks at the failure are not known.
    bool fragmented() const
    {
        return atFailure.blocksKnown && reservedUnallocatedBytes >= requestedBytes &&
               largestFreeBlockBytes < requestedBytes;
    }
};

// "at the failure (replayed to the oom entry): 71 GiB allocated of 79 GiB reserved, 8 GiB
// cached in no tensor, the largest free block 2.1 GiB", with what is estimated or not known.
std::string atFailureText(const OutOfMemory& oom);
// "at the dump (after, 1,234 entries later): 78 GiB in no tensor, the largest free block
// 25.6 GiB"; "" when the oom entry is the device's last (the dump is the failure's state).
std::string atDumpText(const OutOfMemory& oom);

// One segment's use at the dump: what its split blocks hold and what they cache.
struct SegmentUse
{
    uint32_t segment = 0;  // into SnapshotModel::segments
    int64_t allocatedBytes = 0;
    int64_t inactiveBytes = 0;  // in blocks cached for reuse, in no tensor
    int64_t largestFreeBlockBytes = 0;
    uint32_t inactiveBlocks = 0;
    // Split: a tensor holds part of it and free blocks the rest, which only requests that
    // fit those blocks can use (a wholly free segment is cached whole, not fragmented).
    bool split() const { return allocatedBytes > 0 && inactiveBytes > 0; }
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
    // The peak device's iterations that come within 1 % of the peak: the time (time_us) of
    // each one's highest point, in order; the peak alone without iterations; empty without
    // times. A training loop peaks in every step: one of these, not only the first, may be
    // in a trace's window.
    std::vector<int64_t> peakMomentsUs;
    // Alive at the peak, by allocating stack, largest first; what was allocated before
    // the history began is apart (no entry says where).
    std::vector<StackBytes> topStacksAtPeak;
    // The same by the module call they were made under (SnapshotModel::moduleCall); empty
    // when no stack passes through an nn.Module call.
    std::vector<StackBytes> topModulesAtPeak;
    int64_t beforeHistoryAtPeakBytes = 0;
    // Of the peak, what the history frees before the dump: the step's activations and
    // temporaries, not weights, optimizer state or caches (which are alive at the dump).
    int64_t transientAtPeakBytes = 0;
    std::vector<StackBytes> transientAtPeak;  // by place, largest first
    // A stack passes through backward (autograd): a training run, not inference.
    bool backward = false;
    // The iterations of the peak device's history (snapshot_iterations.h): how many, and
    // how they were found; 0 when none were.
    size_t iterations = 0;
    std::string iterationsFoundBy;
    // Leaks: alive at the dump, allocated after the first third of the history in at least
    // three iterations, by place, largest first; none where no iterations were found.
    std::vector<StackBytes> leaks;
    int64_t leakedBytes = 0;
    std::optional<OutOfMemory> outOfMemory;
    int64_t largestFreeBlockBytes = 0;  // the largest inactive block at the dump
    int64_t inactiveBytes = 0;          // cached in segments, in no live tensor
    // Every segment's use: split segments first, those caching the most in free blocks
    // first among them, then the rest likewise.
    std::vector<SegmentUse> segmentUse;
    size_t freeSegments = 0;  // segments with no live tensor at the dump
    int64_t freeSegmentBytes = 0;
    std::vector<analysis::Finding> findings;
};

SnapshotSummary summarize(const SnapshotModel& model);
// The same from the device timelines already built for `model` (timelinesOf).
SnapshotSummary summarize(const SnapshotModel& model, const std::vector<DeviceTimeline>& timelines);

}  // namespace kinetoscope::snapshot
