#pragma once
// The caching allocator's state at a point of a device's history, block by block: which
// segments it held, which blocks live tensors held, which were freed and waiting for their
// stream, and the free blocks between them (the largest is what the next request can get
// without asking the driver). Byte counts are bytes.
//
// Replayed backward from the dump: the dump's segments and blocks are exact, and the
// entries after the point are undone one by one (an alloc undone frees its block, a
// free_completed undone puts the block back, a segment_free undone brings the segment
// back). Only entries after the point are needed, so a history cut at its start
// (max_entries) still replays every point it holds. A block freed after the point has no
// size in any entry beyond the request: torch rounds it to 512 bytes and may keep an
// unsplit remainder in it (up to 1 MiB in the large pool, none in the small), so its end
// is known to within that. Where the history reaches back to a start whose blocks are all
// exact, the allocator's split rule is replayed forward from there, and when that replay
// reproduces the dump's blocks exactly, every block at every point is exact.
#include "core/snapshot/snapshot_model.h"
#include "core/snapshot/snapshot_timeline.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace kinetoscope::snapshot {

struct AllocatorState
{
    int device = 0;
    size_t applied = 0;  // the device's entries applied (the state before entry `applied`)
    size_t segments = 0;
    int64_t reservedBytes = 0;     // the segments' sizes
    int64_t allocatedBytes = 0;    // blocks live tensors hold (at least, where estimated)
    int64_t pendingFreeBytes = 0;  // blocks freed (free_requested) that wait for their stream
    // Blocks freed after this point whose size the entries give only as the request: the
    // allocated and pending bytes may be up to this much more, the cached free this much less.
    int64_t estimatedBytes = 0;
    // The largest free block, at least and at most (equal where every block is exact).
    int64_t largestFreeBlockMinBytes = 0;
    int64_t largestFreeBlockBytes = 0;
    // Every block's size known: the forward replay reproduced the dump, or nothing freed
    // after this point needed an estimate.
    bool exact = false;
    // The blocks could be replayed; when not, only reserved and the allocated bytes are read
    // and `unknown` says why (expandable segments, a history that does not land on the dump).
    bool blocksKnown = true;
    std::string unknown;

    // Reserved in no tensor: free blocks (and, while they wait, pending ones are apart).
    int64_t cachedFreeBytes() const { return reservedBytes - allocatedBytes - pendingFreeBytes; }
};

// The state of `t`'s device once `applied` of its entries have run (applied <= t.size());
// `t` is one of timelinesOf(model, ...).
AllocatorState stateAfter(const SnapshotModel& model, const DeviceTimeline& t, size_t applied);

// torch's block rounding (CUDACachingAllocator round_size without roundup_power2_divisions):
// at least 512 bytes, a multiple of 512.
int64_t roundedBlockSize(int64_t requested);

}  // namespace kinetoscope::snapshot
