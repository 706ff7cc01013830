#include "core/snapshot/snapshot_replay.h"

#include <algorithm>
#include <limits>
#include <map>

namespace kinetoscope::snapshot {

namespace {

// torch's CUDACachingAllocator constants: requests up to kSmallSize go to the small pool;
// blocks are multiples of kMinBlockSize. A block taken from a free one is split when the
// remainder is at least kMinBlockSize (small pool) or more than kSmallSize (large pool);
// otherwise the remainder stays in the block.
constexpr int64_t kSmallSize = int64_t(1) << 20;
constexpr int64_t kMinBlockSize = 512;
constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();
// Device addresses are far below this (48-bit virtual addresses); a malformed file's beyond
// it are not replayed, so that an address plus a size (at most 2^40) cannot overflow.
constexpr int64_t kMaxAddress = int64_t(1) << 62;

bool addressable(int64_t address)
{
    return address >= 0 && address < kMaxAddress;
}

// An entry whose address is a block's or a segment's, and out of range.
bool unaddressable(const TraceEntry& e)
{
    return e.action != Action::Oom && e.action != Action::Snapshot && e.action != Action::Other &&
           !addressable(e.address);
}

bool splits(int64_t requested, int64_t remainder)
{
    return requested <= kSmallSize ? remainder >= kMinBlockSize : remainder > kSmallSize;
}

// A block a live or pending tensor holds: its size at least and at most.
struct Held
{
    int64_t minSize = 0;
    int64_t maxSize = 0;
    bool pending = false;
};

struct Layout
{
    std::map<int64_t, int64_t> segments;  // address -> size
    std::map<int64_t, Held> blocks;       // address -> block
    size_t inconsistent = 0;              // entries that do not undo onto the layout
    bool expandable = false;
};

// The rounding or the split differs from the defaults (PYTORCH_CUDA_ALLOC_CONF's
// roundup_power2_divisions or max_split_size_mb): an estimated block may hold any remainder.
bool looseRounding(const SnapshotModel& model)
{
    for (const auto& [key, value] : model.allocatorSettings) {
        if (key == "max_split_size" && value != "-1" && value != "...")
            return true;
        if (key == "PYTORCH_CUDA_ALLOC_CONF" &&
            (value.find("roundup_power2") != std::string::npos ||
             value.find("max_split_size") != std::string::npos))
            return true;
    }
    return false;
}

Layout dumpLayout(const SnapshotModel& model, int device)
{
    Layout l;
    for (const Segment& seg : model.segments) {
        if (int(seg.device) != device)
            continue;
        if (!addressable(seg.address)) {
            ++l.inconsistent;
            continue;
        }
        l.segments[seg.address] = seg.totalSize;
        l.expandable |= seg.expandable;
        for (uint32_t b = seg.firstBlock; b < seg.firstBlock + seg.blockCount; ++b) {
            const Block& block = model.blocks[b];
            if (!addressable(block.address))
                ++l.inconsistent;
            else if (block.state == BlockState::ActiveAllocated ||
                     block.state == BlockState::ActivePending)
                l.blocks[block.address] = {block.size, block.size,
                                           block.state == BlockState::ActivePending};
        }
    }
    return l;
}

// Undoes the device's entries [to, from) on `l`, last first.
void undo(Layout& l, const DeviceTimeline& t, size_t from, size_t to, bool loose)
{
    bool requests = false;  // free_requested recorded (older snapshots have only "free")
    for (size_t i = 0; i < t.size() && !requests; ++i)
        requests = t.entry(i).action == Action::FreeRequested;
    const auto estimate = [&](int64_t requested, bool pending) {
        const int64_t size = roundedBlockSize(requested);
        return Held{size, loose ? kUnbounded : size + (requested <= kSmallSize ? 0 : kSmallSize),
                    pending};
    };
    for (size_t i = from; i-- > to;) {
        const TraceEntry& e = t.entry(i);
        if (unaddressable(e)) {
            ++l.inconsistent;
            continue;
        }
        switch (e.action) {
        case Action::Alloc:
            l.inconsistent += l.blocks.erase(e.address) == 0;
            break;
        case Action::FreeRequested:
            if (const auto it = l.blocks.find(e.address);
                it != l.blocks.end() && it->second.pending)
                it->second.pending = false;
            else {
                ++l.inconsistent;
                l.blocks[e.address] = estimate(e.size, false);
            }
            break;
        case Action::FreeCompleted:
            if (l.blocks.contains(e.address))
                ++l.inconsistent;
            l.blocks[e.address] = estimate(e.size, requests);
            break;
        case Action::SegmentAlloc:
            l.inconsistent += l.segments.erase(e.address) == 0;
            break;
        case Action::SegmentFree:
            l.inconsistent += !l.segments.emplace(e.address, e.size).second;
            break;
        case Action::SegmentMap:
        case Action::SegmentUnmap:
            l.expandable = true;
            break;
        default:
            break;
        }
    }
}

// Reads a layout: each block bounded by the next block or its segment's end, the free
// gaps between them, the totals.
AllocatorState read(Layout& l, int device, size_t applied)
{
    AllocatorState s;
    s.device = device;
    s.applied = applied;
    s.exact = true;
    for (const auto& [address, size] : l.segments) {
        ++s.segments;
        s.reservedBytes += size;
    }
    // Blocks outside every segment: the history does not land on the dump's segments.
    for (const auto& [address, held] : l.blocks) {
        const auto seg = l.segments.upper_bound(address);
        if (seg == l.segments.begin() || address >= std::prev(seg)->first + std::prev(seg)->second)
            ++l.inconsistent;
    }
    for (const auto& [start, size] : l.segments) {
        const int64_t end = start + size;
        int64_t gapFromMin = start, gapFromMax = start;  // where the free gap may start
        for (auto it = l.blocks.lower_bound(start); it != l.blocks.end() && it->first < end; ++it) {
            Held& b = it->second;
            const int64_t gapMax = it->first - gapFromMin, gapMin = it->first - gapFromMax;
            s.largestFreeBlockBytes = std::max(s.largestFreeBlockBytes, gapMax);
            s.largestFreeBlockMinBytes = std::max(s.largestFreeBlockMinBytes, gapMin);
            const auto next = std::next(it);
            const int64_t room =
                (next != l.blocks.end() && next->first < end ? next->first : end) - it->first;
            if (b.minSize > room)
                ++l.inconsistent;
            b.maxSize = std::max(b.minSize, std::min(b.maxSize, room));
            (b.pending ? s.pendingFreeBytes : s.allocatedBytes) += b.minSize;
            s.estimatedBytes += b.maxSize - b.minSize;
            s.exact &= b.maxSize == b.minSize;
            gapFromMin = it->first + b.minSize;
            gapFromMax = it->first + b.maxSize;
        }
        s.largestFreeBlockBytes = std::max(s.largestFreeBlockBytes, end - gapFromMin);
        s.largestFreeBlockMinBytes = std::max(s.largestFreeBlockMinBytes, end - gapFromMax);
    }
    if (l.expandable) {
        s.blocksKnown = false;
        s.unknown = "expandable segments map and unmap pages: their free blocks are not replayed";
    } else if (l.inconsistent > 0) {
        s.blocksKnown = false;
        s.unknown = std::to_string(l.inconsistent) +
                    " entries do not replay onto the dump's blocks: the free blocks are not known";
    }
    s.exact &= s.blocksKnown;
    return s;
}

// The allocator replayed forward: each segment tiled by blocks, free ones merged.
enum class Tile : uint8_t
{
    Free,
    Allocated,
    Pending
};
struct TiledBlock
{
    int64_t size = 0;
    Tile state = Tile::Free;
    bool operator==(const TiledBlock&) const = default;
};
using Tiling = std::map<int64_t, std::map<int64_t, TiledBlock>>;  // segment -> its blocks

Tiling tilingOf(const Layout& l)
{
    Tiling tiling;
    for (const auto& [start, size] : l.segments) {
        auto& tiles = tiling[start];
        int64_t at = start;
        for (auto it = l.blocks.lower_bound(start);
             it != l.blocks.end() && it->first < start + size; ++it) {
            if (it->first > at)
                tiles[at] = {it->first - at, Tile::Free};
            tiles[it->first] = {it->second.minSize,
                                it->second.pending ? Tile::Pending : Tile::Allocated};
            at = it->first + it->second.minSize;
        }
        if (at < start + size)
            tiles[at] = {start + size - at, Tile::Free};
    }
    return tiling;
}

AllocatorState stateOf(const Tiling& tiling, int device, size_t applied)
{
    AllocatorState s;
    s.device = device;
    s.applied = applied;
    s.exact = true;
    for (const auto& [start, tiles] : tiling) {
        ++s.segments;
        for (const auto& [address, b] : tiles) {
            s.reservedBytes += b.size;
            if (b.state == Tile::Allocated)
                s.allocatedBytes += b.size;
            else if (b.state == Tile::Pending)
                s.pendingFreeBytes += b.size;
            else
                s.largestFreeBlockBytes = std::max(s.largestFreeBlockBytes, b.size);
        }
    }
    s.largestFreeBlockMinBytes = s.largestFreeBlockBytes;
    return s;
}

// Applies one entry; false when it does not fit the tiling (the replay is abandoned).
bool apply(Tiling& tiling, const TraceEntry& e)
{
    if (unaddressable(e))
        return false;
    if (e.action == Action::SegmentAlloc)
        return tiling.emplace(e.address, std::map<int64_t, TiledBlock>{{e.address, {e.size}}})
            .second;
    if (e.action == Action::SegmentFree) {
        const auto it = tiling.find(e.address);
        if (it == tiling.end() || it->second.size() != 1 ||
            it->second.begin()->second.state != Tile::Free)
            return false;
        tiling.erase(it);
        return true;
    }
    if (e.action == Action::SegmentMap || e.action == Action::SegmentUnmap)
        return false;
    if (e.action != Action::Alloc && e.action != Action::FreeRequested &&
        e.action != Action::FreeCompleted)
        return true;
    auto seg = tiling.upper_bound(e.address);
    if (seg == tiling.begin())
        return false;
    auto& tiles = std::prev(seg)->second;
    const auto it = tiles.find(e.address);
    if (it == tiles.end())
        return false;
    TiledBlock& b = it->second;
    if (e.action == Action::Alloc) {
        const int64_t size = roundedBlockSize(e.size);
        if (b.state != Tile::Free || b.size < size)
            return false;
        if (splits(e.size, b.size - size)) {
            tiles[e.address + size] = {b.size - size, Tile::Free};
            b.size = size;
        }
        b.state = Tile::Allocated;
        return true;
    }
    if (e.action == Action::FreeRequested) {
        if (b.state != Tile::Allocated)
            return false;
        b.state = Tile::Pending;
        return true;
    }
    if (b.state == Tile::Free)
        return false;
    b.state = Tile::Free;
    auto at = it;
    if (const auto next = std::next(at); next != tiles.end() && next->second.state == Tile::Free) {
        at->second.size += next->second.size;
        tiles.erase(next);
    }
    if (at != tiles.begin())
        if (const auto prev = std::prev(at); prev->second.state == Tile::Free) {
            prev->second.size += at->second.size;
            tiles.erase(at);
        }
    return true;
}

Tiling dumpTiling(const SnapshotModel& model, int device)
{
    Tiling tiling;
    for (const Segment& seg : model.segments) {
        if (int(seg.device) != device)
            continue;
        auto& tiles = tiling[seg.address];
        for (uint32_t b = seg.firstBlock; b < seg.firstBlock + seg.blockCount; ++b) {
            const Block& block = model.blocks[b];
            tiles[block.address] = {block.size,
                                    block.state == BlockState::ActiveAllocated ? Tile::Allocated
                                    : block.state == BlockState::ActivePending ? Tile::Pending
                                                                               : Tile::Free};
        }
    }
    return tiling;
}

// From an exact start, forward to the end; `out` gets the state after `applied` entries.
// True only when every entry fits and the end is the dump's blocks exactly.
bool forward(const SnapshotModel& model, const DeviceTimeline& t, const Layout& start,
             size_t applied, AllocatorState& out)
{
    Tiling tiling = tilingOf(start);
    for (size_t i = 0; i < t.size(); ++i) {
        if (i == applied)
            out = stateOf(tiling, t.device, applied);
        if (!apply(tiling, t.entry(i)))
            return false;
    }
    if (applied >= t.size())
        out = stateOf(tiling, t.device, t.size());
    return tiling == dumpTiling(model, t.device);
}

}  // namespace

int64_t roundedBlockSize(int64_t requested)
{
    return requested < kMinBlockSize
               ? kMinBlockSize
               : (requested + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
}

AllocatorState stateAfter(const SnapshotModel& model, const DeviceTimeline& t, size_t applied)
{
    applied = std::min(applied, t.size());
    const bool loose = looseRounding(model);
    Layout l = dumpLayout(model, t.device);
    undo(l, t, t.size(), applied, loose);
    Layout start = l;  // read() bounds the blocks where they are now: undo on a copy
    AllocatorState s = read(l, t.device, applied);
    if (!s.blocksKnown || s.exact || loose)
        return s;
    // Estimated blocks: where the start of the history is exact, replay the split rule
    // forward from it; the result stands only if it lands on the dump.
    undo(start, t, applied, 0, loose);
    const AllocatorState atStart = read(start, t.device, 0);
    AllocatorState replayed;
    if (atStart.blocksKnown && atStart.exact && forward(model, t, start, applied, replayed))
        return replayed;
    return s;
}

}  // namespace kinetoscope::snapshot
