#include "core/snapshot/snapshot_summary.h"

#include "core/analysis/diagnosis/diagnosis.h"
#include "core/analysis/diagnosis/rule_helpers.h"
#include "core/format/format.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace kinetoscope::snapshot {

using analysis::Finding;
using analysis::Severity;
using analysis::Unit;

namespace {

// Reserved over the peak allocated above this: the allocator holds memory no tensor
// used at the peak (the lab's threshold, one number for both).
constexpr double kReservedOverPeak = analysis::kLabReservedOverPeak;
constexpr int64_t kMiB = int64_t(1) << 20;
// A place that keeps allocations from this many iterations alive is leaking.
constexpr size_t kLeakIterations = 3;

struct Live
{
    int64_t size = 0;
    StackId stack = 0;
    int64_t when = 0;  // time_us, or the entry's index where times are missing
};

// One device's allocated bytes through its trace: an allocation counts from its alloc
// to its first free (free_requested: the tensor is gone; the block may wait for its
// stream before free_completed returns it). A free of an address allocated before the
// history began lowers the count once.
class Replay
{
public:
    explicit Replay(int64_t start) : m_allocated(start) {}
    void apply(const TraceEntry& e, int64_t when)
    {
        if (e.action == Action::Alloc) {
            m_live[e.address] = {e.size, e.stack, when};
            m_allocated += e.size;
            m_freedBefore.erase(e.address);
        } else if (e.action == Action::FreeRequested || e.action == Action::FreeCompleted) {
            if (const auto it = m_live.find(e.address); it != m_live.end()) {
                m_allocated -= it->second.size;
                m_live.erase(it);
                if (e.action == Action::FreeRequested)
                    m_requested.insert(e.address);  // its free_completed follows
            } else if (e.action == Action::FreeCompleted && m_requested.erase(e.address)) {
                // the second half of a free already counted
            } else if (m_freedBefore.insert(e.address).second) {
                m_allocated -= e.size;  // allocated before the history began
                m_beforeHistory -= e.size;
            }
        }
    }
    int64_t allocated() const { return m_allocated; }
    int64_t beforeHistoryDelta() const { return m_beforeHistory; }
    const std::unordered_map<int64_t, Live>& live() const { return m_live; }

private:
    int64_t m_allocated;
    int64_t m_beforeHistory = 0;
    std::unordered_map<int64_t, Live> m_live;
    std::unordered_set<int64_t> m_freedBefore;  // pre-history addresses whose free was counted
    std::unordered_set<int64_t> m_requested;    // freed (free_requested), completion pending
};

// Grouped by the place that allocated (SnapshotModel::place); each group shows the stack
// of its largest allocation.
std::vector<StackBytes> byPlace(const SnapshotModel& model, const std::unordered_map<int64_t, Live>& live,
                                int64_t since)
{
    std::map<std::string, std::pair<StackBytes, int64_t>> groups;  // place -> (group, largest)
    for (const auto& [address, l] : live)
        if (l.when >= since) {
            auto& [g, largest] = groups[model.place(l.stack)];
            if (l.size > largest || (l.size == largest && l.stack < g.stack)) {
                largest = l.size;
                g.stack = l.stack;
            }
            g.bytes += l.size;
            ++g.allocations;
        }
    std::vector<StackBytes> out;
    for (const auto& [place, group] : groups)
        out.push_back(group.first);
    std::sort(out.begin(), out.end(), [](const StackBytes& a, const StackBytes& b) {
        return a.bytes != b.bytes ? a.bytes > b.bytes : a.stack < b.stack;
    });
    return out;
}

// The iterations of the recorded history: the start times of the annotation that repeats
// most (at least kLeakIterations times), e.g. Optimizer.zero_grad or the DataLoader's
// next; empty when the snapshot has no such marks.
std::vector<int64_t> iterationStarts(const SnapshotModel& model)
{
    std::map<std::string, std::vector<int64_t>> starts;
    for (const Annotation& a : model.annotations)
        if (a.stage == "START" && a.timeUs >= 0)
            starts[a.name].push_back(a.timeUs);
    std::vector<int64_t> best;
    for (auto& [name, times] : starts)
        if (times.size() >= kLeakIterations && times.size() > best.size())
            best = times;
    std::sort(best.begin(), best.end());
    return best;
}

// A leak grows with the iterations: of what is alive at the dump and was allocated after
// the first third of the history, the places that allocated in at least kLeakIterations
// different iterations. Without iteration marks no place is called a leak (weights moved
// to the device late in a short history are alive at the end too).
std::vector<StackBytes> leaksOf(const SnapshotModel& model, const std::unordered_map<int64_t, Live>& live,
                                int64_t since, const std::vector<int64_t>& iterations)
{
    if (iterations.empty())
        return {};
    std::map<std::string, std::unordered_set<size_t>> seen;  // place -> iterations it allocated in
    std::unordered_map<int64_t, Live> late;
    for (const auto& [address, l] : live)
        if (l.when >= since) {
            const size_t iteration = size_t(std::upper_bound(iterations.begin(), iterations.end(), l.when) -
                                            iterations.begin());
            seen[model.place(l.stack)].insert(iteration);
            late.emplace(address, l);
        }
    std::vector<StackBytes> out;
    for (const StackBytes& g : byPlace(model, late, since))
        if (seen[model.place(g.stack)].size() >= kLeakIterations)
            out.push_back(g);
    return out;
}

void findings(const SnapshotModel& model, SnapshotSummary& s)
{
    const double peak = double(s.peakAllocatedBytes);
    if (s.outOfMemory) {
        const OutOfMemory& oom = *s.outOfMemory;
        const DeviceMemory& d = s.perDevice[size_t(oom.device)];
        const int64_t cachedFree = d.reservedBytes - d.allocatedBytes;
        Finding f;
        f.id = "snapshot-out-of-memory";
        f.severity = Severity::High;
        f.title = "An allocation of " + format::bytes(double(oom.requestedBytes)) + " ran out of memory on cuda:" +
                  std::to_string(oom.device);
        f.explanation = "The allocator asked the driver for more memory and got none" +
                        (oom.deviceFreeBytes >= 0 ? ": " + format::bytes(double(oom.deviceFreeBytes)) +
                                                        " was free on the device"
                                                  : std::string()) +
                        ". At the dump the allocator holds " + format::bytes(double(d.reservedBytes)) + ", " +
                        format::bytes(double(cachedFree)) +
                        " of it in no tensor: split blocks too small for the request fragment it.";
        f.evidence.figures = {{"requested_bytes", double(oom.requestedBytes), Unit::Bytes},
                              {"reserved_bytes", double(d.reservedBytes), Unit::Bytes},
                              {"reserved_unallocated_bytes", double(cachedFree), Unit::Bytes},
                              {"largest_free_block_bytes", double(s.largestFreeBlockBytes), Unit::Bytes}};
        if (oom.deviceFreeBytes >= 0)
            f.evidence.figures.push_back({"device_free_bytes", double(oom.deviceFreeBytes), Unit::Bytes});
        f.gainMethod = "memory, not time";
        f.fix = cachedFree > oom.requestedBytes
                    ? "The cache held enough in pieces: let segments grow instead of splitting "
                      "(expandable_segments), or keep tensor shapes stable."
                    : "Lower the peak: a smaller batch, activation checkpointing, or bf16 activations.";
        f.snippet = analysis::rules::kExpandableSegmentsSnippet;
        s.findings.push_back(std::move(f));
    }
    if (peak > 0 && !s.leaks.empty()) {
        const StackBytes& top = s.leaks.front();
        if (double(s.leakedBytes) >= 0.1 * peak) {
            Finding f;
            f.id = "snapshot-leak";
            f.severity = double(s.leakedBytes) >= 0.3 * peak ? Severity::Medium : Severity::Low;
            f.title = format::bytes(double(s.leakedBytes)) + " allocated late in the history is still alive at the dump, " +
                      format::bytes(double(top.bytes)) + " of it from " + model.place(top.stack);
            f.explanation = "Allocations made after the first third of the recorded history, in several iterations, "
                            "and never freed: memory that outlives the iteration that made it (a tensor kept in a "
                            "list, a loss accumulated with its graph, a cache) grows every iteration until it runs "
                            "out.";
            f.evidence.figures = {{"leaked_bytes", double(s.leakedBytes), Unit::Bytes},
                                  {"leaked_share_of_peak", double(s.leakedBytes) / peak, Unit::Fraction},
                                  {"top_stack_allocations", double(top.allocations), Unit::Count}};
            f.evidence.ops.push_back(model.place(top.stack));
            f.gainMethod = "memory, not time";
            f.fix = "Find what keeps these tensors: detach values you keep (loss.item() or loss.detach()), clear "
                    "lists and caches each iteration.";
            f.snippet = "history.append(loss.detach())  # not loss: it keeps the whole graph alive\n";
            s.findings.push_back(std::move(f));
        }
    }
    const DeviceMemory& d = s.perDevice[size_t(s.peakDevice)];  // summarize keeps one device at least
    if (peak > 0 && double(d.reservedBytes) > kReservedOverPeak * peak && d.reservedBytes - s.peakAllocatedBytes >= 256 * kMiB) {
        Finding f;
        f.id = "snapshot-reserved-over-peak";
        f.severity = Severity::Low;
        f.title = "The caching allocator holds " + format::ratio(double(d.reservedBytes) / peak) +
                  " the peak in use on cuda:" + std::to_string(d.device);
        f.explanation = "At the dump the allocator's segments hold " + format::bytes(double(d.reservedBytes)) +
                        "; at its peak the run had " + format::bytes(peak) +
                        " in tensors. The rest is cached in blocks of sizes the run no longer asks for; other "
                        "processes cannot use it, and a request larger than every free block still fails.";
        f.evidence.figures = {{"reserved_bytes", double(d.reservedBytes), Unit::Bytes},
                              {"peak_allocated_bytes", peak, Unit::Bytes},
                              {"largest_free_block_bytes", double(s.largestFreeBlockBytes), Unit::Bytes}};
        f.gainMethod = "memory, not time";
        f.fix = "Let segments grow instead of caching many sizes (expandable_segments), and keep shapes stable.";
        f.snippet = analysis::rules::kExpandableSegmentsSnippet;
        s.findings.push_back(std::move(f));
    }
}

}  // namespace

SnapshotSummary summarize(const SnapshotModel& model)
{
    SnapshotSummary s;
    int devices = model.deviceTraces;
    for (const Segment& seg : model.segments)
        devices = std::max(devices, int(seg.device) + 1);
    s.devices = devices;
    s.segments = model.segments.size();
    s.blocks = model.blocks.size();
    s.traceEntries = model.entries.size();
    s.perDevice.resize(size_t(std::max(devices, 1)));
    for (size_t d = 0; d < s.perDevice.size(); ++d)
        s.perDevice[d].device = int(d);
    for (const Segment& seg : model.segments) {
        DeviceMemory& d = s.perDevice[size_t(std::max<int64_t>(0, seg.device))];
        d.reservedBytes += seg.totalSize;
        s.reservedBytes += seg.totalSize;
        for (uint32_t b = seg.firstBlock; b < seg.firstBlock + seg.blockCount; ++b) {
            const Block& block = model.blocks[b];
            if (block.state == BlockState::ActiveAllocated) {
                d.allocatedBytes += block.size;
                s.allocatedBytes += block.size;
            } else if (block.state == BlockState::Inactive) {
                s.inactiveBytes += block.size;
                s.largestFreeBlockBytes = std::max(s.largestFreeBlockBytes, block.size);
            }
        }
    }
    for (const TraceEntry& e : model.entries)
        if (e.timeUs >= 0) {
            s.firstTimeUs = s.firstTimeUs < 0 ? e.timeUs : std::min(s.firstTimeUs, e.timeUs);
            s.lastTimeUs = std::max(s.lastTimeUs, e.timeUs);
        }
    const bool timed = s.firstTimeUs >= 0 && s.lastTimeUs > s.firstTimeUs;
    const int64_t lateFrom = timed ? s.firstTimeUs + (s.lastTimeUs - s.firstTimeUs) / 3 : 0;

    // Per device: replay once to learn where the history starts from, then again to find
    // the peak and what was alive at it.
    std::vector<std::vector<const TraceEntry*>> perDevice(s.perDevice.size());
    for (const TraceEntry& e : model.entries)
        if (e.device >= 0 && size_t(e.device) < perDevice.size())
            perDevice[size_t(e.device)].push_back(&e);
    std::unordered_map<int64_t, Live> liveAtPeak;
    int64_t beforeAtPeak = 0;
    for (size_t d = 0; d < perDevice.size(); ++d) {
        DeviceMemory& dm = s.perDevice[d];
        const std::vector<const TraceEntry*>& entries = perDevice[d];
        dm.entries = entries.size();
        auto when = [&](size_t i) { return timed ? entries[i]->timeUs : int64_t(i); };
        Replay net(0);
        for (size_t i = 0; i < entries.size(); ++i)
            net.apply(*entries[i], when(i));
        dm.startAllocatedBytes = std::max<int64_t>(0, dm.allocatedBytes - net.allocated());
        Replay replay(dm.startAllocatedBytes);
        dm.peakAllocatedBytes = dm.startAllocatedBytes;
        size_t peakAfter = 0;  // entries applied when the peak was reached
        for (size_t i = 0; i < entries.size(); ++i) {
            replay.apply(*entries[i], when(i));
            if (replay.allocated() > dm.peakAllocatedBytes) {
                dm.peakAllocatedBytes = replay.allocated();
                dm.peakTimeUs = entries[i]->timeUs;
                peakAfter = i + 1;
            }
        }
        const bool largest = d == 0 || dm.peakAllocatedBytes > s.peakAllocatedBytes;
        if (!largest)
            continue;
        s.peakDevice = int(d);
        s.peakAllocatedBytes = dm.peakAllocatedBytes;
        s.peakTimeUs = dm.peakTimeUs;
        Replay atPeak(dm.startAllocatedBytes);
        for (size_t i = 0; i < peakAfter; ++i)
            atPeak.apply(*entries[i], when(i));
        liveAtPeak = atPeak.live();
        beforeAtPeak = dm.startAllocatedBytes + atPeak.beforeHistoryDelta();
        if (timed)
            s.leaks = leaksOf(model, replay.live(), lateFrom, iterationStarts(model));
    }
    s.topStacksAtPeak = byPlace(model, liveAtPeak, std::numeric_limits<int64_t>::min());
    s.beforeHistoryAtPeakBytes = std::max<int64_t>(0, beforeAtPeak);
    for (const StackBytes& g : s.leaks)
        s.leakedBytes += g.bytes;
    for (const TraceEntry& e : model.entries)
        if (e.action == Action::Oom) {
            s.outOfMemory = OutOfMemory{e.device, e.size, e.deviceFree, e.timeUs};
            break;
        }
    findings(model, s);
    return s;
}

}  // namespace kinetoscope::snapshot
