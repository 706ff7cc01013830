#include "core/snapshot/snapshot_timeline.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace kinetoscope::snapshot {

namespace {

int deviceCount(const SnapshotModel& model)
{
    int devices = std::max(model.deviceTraces, 1);
    for (const Segment& seg : model.segments)
        devices = std::max(devices, int(seg.device) + 1);
    for (const TraceEntry& e : model.entries)
        devices = std::max(devices, e.device + 1);
    return devices;
}

bool isFree(Action action)
{
    return action == Action::FreeRequested || action == Action::FreeCompleted;
}

// The bands and the allocated series of one device's entries, in one pass; what predates
// the history is known only at the end and goes below the rest.
void buildBands(const SnapshotModel& model, DeviceTimeline& t)
{
    const auto n = uint32_t(t.size());
    size_t allocs = 0, frees = 0;
    for (uint32_t i = 0; i < n; ++i) {
        allocs += t.entry(i).action == Action::Alloc;
        frees += isFree(t.entry(i).action);
    }
    // Capacity for every band that can exist, so that the bands from before the history go
    // in front without a copy (capacity never written costs no memory).
    t.bands.reserve(allocs + frees + 1);
    t.allocated.resize(n);
    std::unordered_map<int64_t, uint32_t> open;     // address -> band alive at it
    std::unordered_set<int64_t> freedBefore;        // pre-history addresses already freed
    std::unordered_set<int64_t> freeCompletionDue;  // freed by free_requested, completion pending
    std::vector<Band> before;                       // allocated before the history, freed in it
    int64_t level = 0;                              // allocated, less what predates the history
    for (uint32_t i = 0; i < n; ++i) {
        const TraceEntry& e = t.entry(i);
        if (e.action == Action::Alloc) {
            if (const auto it = open.find(e.address); it != open.end()) {
                t.bands[it->second].to = i;  // an alloc without a free recorded between
                level -= t.bands[it->second].size;
            }
            open[e.address] = uint32_t(t.bands.size());
            t.bands.push_back({e.size, e.stack, i, n, false});
            level += e.size;
            freedBefore.erase(e.address);
        } else if (isFree(e.action)) {
            if (const auto it = open.find(e.address); it != open.end()) {
                t.bands[it->second].to = i;
                level -= t.bands[it->second].size;
                open.erase(it);
                if (e.action == Action::FreeRequested)
                    freeCompletionDue.insert(e.address);
            } else if (e.action == Action::FreeCompleted && freeCompletionDue.erase(e.address)) {
                // the second half of a free already counted
            } else if (freedBefore.insert(e.address).second) {
                before.push_back({e.size, 0, 0, i, true});
                level -= e.size;
            }
        }
        t.allocated[i] = level;
    }
    // Allocated when the history starts: the dump's live blocks that no allocation of the
    // history accounts for (matched by address: entries carry the requested size, blocks
    // the rounded one), and what the history frees without having allocated it.
    int64_t unaccounted = 0;
    for (const Segment& seg : model.segments)
        if (int(seg.device) == t.device)
            for (uint32_t b = seg.firstBlock; b < seg.firstBlock + seg.blockCount; ++b)
                if (model.blocks[b].state == BlockState::ActiveAllocated &&
                    !open.contains(model.blocks[b].address))
                    unaccounted += model.blocks[b].size;
    t.startAllocatedBytes = unaccounted;
    for (const Band& b : before)
        t.startAllocatedBytes += b.size;
    if (unaccounted > 0)  // alive from before the history to its end
        before.insert(before.begin(), Band{unaccounted, 0, 0, n, true});
    t.bands.insert(t.bands.begin(), before.begin(), before.end());
    t.peakBytes = t.startAllocatedBytes;
    t.peakApplied = 0;
    for (uint32_t i = 0; i < n; ++i) {
        t.allocated[i] += t.startAllocatedBytes;
        if (t.allocated[i] > t.peakBytes) {
            t.peakBytes = t.allocated[i];
            t.peakApplied = i + 1;
        }
    }
}

void buildReserved(const SnapshotModel& model, DeviceTimeline& t)
{
    int64_t dumpReserved = 0, net = 0;
    for (const Segment& seg : model.segments)
        if (int(seg.device) == t.device)
            dumpReserved += seg.totalSize;
    t.reservedSteps = {{0, 0}};
    for (size_t i = 0; i < t.size(); ++i) {
        const TraceEntry& e = t.entry(i);
        if (e.action == Action::SegmentAlloc || e.action == Action::SegmentMap)
            net += e.size;
        else if (e.action == Action::SegmentFree || e.action == Action::SegmentUnmap)
            net -= e.size;
        else
            continue;
        t.reservedSteps.push_back({i + 1, net});
    }
    const int64_t start = std::max<int64_t>(0, dumpReserved - net);
    for (DeviceTimeline::ReservedStep& step : t.reservedSteps)
        step.bytes += start;
}

}  // namespace

int64_t DeviceTimeline::reservedAfter(size_t applied) const
{
    const auto after =
        std::upper_bound(reservedSteps.begin(), reservedSteps.end(), applied,
                         [](size_t a, const ReservedStep& step) { return a < step.applied; });
    return after == reservedSteps.begin() ? 0 : std::prev(after)->bytes;
}

std::vector<uint32_t> DeviceTimeline::liveAfter(size_t applied) const
{
    std::vector<uint32_t> live;
    for (uint32_t b = 0; b < bands.size(); ++b)
        if (aliveAfter(bands[b], applied))
            live.push_back(b);
    return live;
}

bool hasTimes(const SnapshotModel& model)
{
    int64_t first = -1, last = -1;
    for (const TraceEntry& e : model.entries)
        if (e.timeUs >= 0) {
            first = first < 0 ? e.timeUs : std::min(first, e.timeUs);
            last = std::max(last, e.timeUs);
        }
    return first >= 0 && last > first;
}

std::vector<DeviceTimeline> timelinesOf(const SnapshotModel& model, bool timed)
{
    std::vector<DeviceTimeline> out(size_t(deviceCount(model)));
    for (size_t d = 0; d < out.size(); ++d) {
        out[d].device = int(d);
        out[d].timed = timed;
    }
    // The model keeps each device's entries together, devices in turn.
    for (size_t i = 0; i < model.entries.size();) {
        size_t end = i;
        while (end < model.entries.size() && model.entries[end].device == model.entries[i].device)
            ++end;
        if (model.entries[i].device >= 0) {
            DeviceTimeline& t = out[size_t(model.entries[i].device)];
            t.first = model.entries.data() + i;
            t.count = end - i;
        }
        i = end;
    }
    for (DeviceTimeline& t : out) {
        buildBands(model, t);
        buildReserved(model, t);
    }
    return out;
}

void forEachColumn(
    const DeviceTimeline& t, const std::vector<size_t>& appliedPerColumn,
    const std::function<void(size_t column, const std::vector<uint32_t>& live)>& visit)
{
    // Bands open in index order as entries are applied (those from before the history
    // first, then each alloc's after every band opened before it), so the live list stays
    // in stacking order by pushing at its end.
    std::vector<uint32_t> live;
    uint32_t next = 0;  // the first band not yet opened
    for (size_t c = 0; c < appliedPerColumn.size(); ++c) {
        const size_t applied = std::min(appliedPerColumn[c], t.size());
        for (;
             next < t.bands.size() && (t.bands[next].beforeHistory || t.bands[next].from < applied);
             ++next)
            live.push_back(next);
        std::erase_if(live, [&](uint32_t b) { return !t.aliveAfter(t.bands[b], applied); });
        visit(c, live);
    }
}

std::vector<size_t> columnSamples(const DeviceTimeline& t, double from, double to, size_t columns)
{
    std::vector<size_t> samples(columns, 0);
    if (columns == 0 || to <= from)
        return samples;
    const double width = (to - from) / double(columns);
    // The first entry at or after `from` (entries are in time order).
    size_t lo = 0, hi = t.size();
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (double(t.when(mid)) < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t i = lo;
    for (size_t c = 0; c < columns; ++c) {
        const double end = from + width * double(c + 1);
        size_t best = i;  // no entry in the column: the state it starts in
        int64_t bestBytes = t.allocatedAfter(i);
        for (; i < t.size() && double(t.when(i)) < end; ++i)
            if (t.allocated[i] > bestBytes) {
                bestBytes = t.allocated[i];
                best = i + 1;
            }
        samples[c] = best;
    }
    return samples;
}

}  // namespace kinetoscope::snapshot
