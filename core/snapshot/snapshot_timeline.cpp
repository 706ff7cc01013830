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

// The bands of one device's entries; `t.entries` and `t.when` are filled.
void buildBands(const SnapshotModel& model, DeviceTimeline& t)
{
    const auto n = uint32_t(t.size());
    std::unordered_map<int64_t, uint32_t> open;      // address -> band alive at it
    std::unordered_set<int64_t> freedBefore;         // pre-history addresses already freed
    std::unordered_set<int64_t> freeCompletionDue;   // freed by free_requested, completion pending
    std::vector<Band> history, before;
    for (uint32_t i = 0; i < n; ++i) {
        const TraceEntry& e = model.entries[t.entries[i]];
        if (e.action == Action::Alloc) {
            if (const auto it = open.find(e.address); it != open.end())
                history[it->second].to = i;  // an alloc without a free recorded between
            open[e.address] = uint32_t(history.size());
            history.push_back({e.size, e.stack, i, n, false});
            freedBefore.erase(e.address);
        } else if (e.action == Action::FreeRequested || e.action == Action::FreeCompleted) {
            if (const auto it = open.find(e.address); it != open.end()) {
                history[it->second].to = i;
                open.erase(it);
                if (e.action == Action::FreeRequested)
                    freeCompletionDue.insert(e.address);
            } else if (e.action == Action::FreeCompleted && freeCompletionDue.erase(e.address)) {
                // the second half of a free already counted
            } else if (freedBefore.insert(e.address).second) {
                before.push_back({e.size, 0, 0, i, true});  // allocated before the history began
            }
        }
    }
    // Allocated when the history starts: the dump's live blocks that no allocation of the
    // history accounts for (matched by address: entries carry the requested size, blocks
    // the rounded one), and what the history frees without having allocated it.
    int64_t unaccounted = 0;
    for (const Segment& seg : model.segments)
        if (int(seg.device) == t.device)
            for (uint32_t b = seg.firstBlock; b < seg.firstBlock + seg.blockCount; ++b)
                if (model.blocks[b].state == BlockState::ActiveAllocated && !open.contains(model.blocks[b].address))
                    unaccounted += model.blocks[b].size;
    t.startAllocatedBytes = unaccounted;
    for (const Band& b : before)
        t.startAllocatedBytes += b.size;
    t.bands.clear();
    if (unaccounted > 0)  // alive from before the history to its end
        t.bands.push_back({unaccounted, 0, 0, n, true});
    t.bands.insert(t.bands.end(), before.begin(), before.end());
    t.bands.insert(t.bands.end(), history.begin(), history.end());
}

void buildSeries(const SnapshotModel& model, DeviceTimeline& t)
{
    const size_t n = t.size();
    std::vector<int64_t> delta(n + 1, 0);
    for (const Band& b : t.bands) {
        if (!b.beforeHistory)
            delta[b.from] += b.size;
        if (b.to < n)
            delta[b.to] -= b.size;
    }
    t.allocated.resize(n);
    t.peakBytes = t.startAllocatedBytes;
    t.peakApplied = 0;
    int64_t level = t.startAllocatedBytes;
    for (size_t i = 0; i < n; ++i) {
        level += delta[i];
        t.allocated[i] = level;
        if (level > t.peakBytes) {
            t.peakBytes = level;
            t.peakApplied = i + 1;
        }
    }
    int64_t dumpReserved = 0, netReserved = 0;
    for (const Segment& seg : model.segments)
        if (int(seg.device) == t.device)
            dumpReserved += seg.totalSize;
    t.reserved.resize(n);
    for (size_t i = 0; i < n; ++i) {
        const TraceEntry& e = model.entries[t.entries[i]];
        if (e.action == Action::SegmentAlloc || e.action == Action::SegmentMap)
            netReserved += e.size;
        else if (e.action == Action::SegmentFree || e.action == Action::SegmentUnmap)
            netReserved -= e.size;
        t.reserved[i] = netReserved;
    }
    t.startReservedBytes = std::max<int64_t>(0, dumpReserved - netReserved);
    for (int64_t& r : t.reserved)
        r += t.startReservedBytes;
}

}  // namespace

std::vector<uint32_t> DeviceTimeline::liveAfter(size_t applied) const
{
    std::vector<uint32_t> live;
    for (uint32_t b = 0; b < bands.size(); ++b)
        if (aliveAfter(bands[b], applied))
            live.push_back(b);
    return live;
}

std::vector<DeviceTimeline> timelinesOf(const SnapshotModel& model, bool timed)
{
    std::vector<DeviceTimeline> out(size_t(deviceCount(model)));
    for (size_t d = 0; d < out.size(); ++d) {
        out[d].device = int(d);
        out[d].timed = timed;
    }
    for (uint32_t i = 0; i < model.entries.size(); ++i) {
        const TraceEntry& e = model.entries[i];
        if (e.device < 0)
            continue;
        DeviceTimeline& t = out[size_t(e.device)];
        t.when.push_back(timed ? e.timeUs : int64_t(t.entries.size()));
        t.entries.push_back(i);
    }
    for (DeviceTimeline& t : out) {
        buildBands(model, t);
        buildSeries(model, t);
    }
    return out;
}

void forEachColumn(const DeviceTimeline& t, const std::vector<size_t>& appliedPerColumn,
                   const std::function<void(size_t column, const std::vector<uint32_t>& live)>& visit)
{
    // Bands open in index order as entries are applied (an alloc's band comes after every
    // band opened before it), so the live list stays sorted by pushing at its end.
    std::vector<std::vector<uint32_t>> opening(t.size() + 1);
    for (uint32_t b = 0; b < t.bands.size(); ++b)
        opening[t.bands[b].beforeHistory ? 0 : t.bands[b].from + 1].push_back(b);
    std::vector<uint32_t> live;
    size_t pushed = 0;  // opening slots pushed
    for (size_t c = 0; c < appliedPerColumn.size(); ++c) {
        const size_t applied = std::min(appliedPerColumn[c], t.size());
        for (; pushed <= applied; ++pushed)
            live.insert(live.end(), opening[pushed].begin(), opening[pushed].end());
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
    size_t i = size_t(std::lower_bound(t.when.begin(), t.when.end(), int64_t(from)) - t.when.begin());
    for (size_t c = 0; c < columns; ++c) {
        const double end = from + width * double(c + 1);
        size_t best = i;  // no entry in the column: the state it starts in
        int64_t bestBytes = t.allocatedAfter(i);
        for (; i < t.size() && double(t.when[i]) < end; ++i)
            if (t.allocated[i] > bestBytes) {
                bestBytes = t.allocated[i];
                best = i + 1;
            }
        samples[c] = best;
    }
    return samples;
}

}  // namespace kinetoscope::snapshot
