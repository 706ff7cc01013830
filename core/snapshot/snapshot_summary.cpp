#include "core/snapshot/snapshot_summary.h"

#include "core/analysis/diagnosis/diagnosis.h"
#include "core/analysis/diagnosis/rule_helpers.h"
#include "core/format/format.h"
#include "core/snapshot/snapshot_iterations.h"
#include "core/snapshot/snapshot_timeline.h"

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
// Activations dominate the peak: what the history frees before the dump is at least this
// share of a peak of at least kActivationsMinPeak.
constexpr double kActivationsDominate = 0.5;
constexpr int64_t kActivationsMinPeak = 256 * kMiB;
// A place that keeps allocations from this many iterations alive is leaking.
constexpr size_t kLeakIterations = 3;

struct Live
{
    int64_t size = 0;
    StackId stack = 0;
    int64_t when = 0;  // time_us, or the entry's index where times are missing
};

// The bands of `t` alive after `applied` entries, from the history only (what predates it
// has no stack).
std::vector<Live> liveOf(const DeviceTimeline& t, size_t applied)
{
    std::vector<Live> live;
    for (const Band& b : t.bands)
        if (!b.beforeHistory && t.aliveAfter(b, applied))
            live.push_back({b.size, b.stack, t.when(b.from)});
    return live;
}

// Grouped by a key of the stack (the place that allocated, the module call); each group
// shows the stack of its largest allocation. Stacks without a key are one group "" when
// `keyless` says so, else left out.
template <typename Key>
std::vector<StackBytes> byKey(const std::vector<Live>& live, int64_t since, bool keyless, Key&& key)
{
    std::map<std::string, std::pair<StackBytes, int64_t>> groups;  // key -> (group, largest)
    std::unordered_map<StackId, std::string> keyOf;                // many blocks share a stack
    for (const Live& l : live)
        if (l.when >= since) {
            auto [known, fresh] = keyOf.try_emplace(l.stack);
            if (fresh)
                known->second = key(l.stack);
            std::string k = known->second;
            if (k.empty() && !keyless)
                continue;
            auto& [g, largest] = groups[std::move(k)];
            if (l.size > largest || (l.size == largest && l.stack < g.stack)) {
                largest = l.size;
                g.stack = l.stack;
            }
            g.bytes += l.size;
            ++g.allocations;
        }
    // Largest first; equal sizes by key (the map's order), whatever the stacks' ids.
    std::vector<StackBytes> out;
    out.reserve(groups.size());
    for (const auto& [place, group] : groups)
        out.push_back(group.first);
    std::stable_sort(out.begin(), out.end(),
                     [](const StackBytes& a, const StackBytes& b) { return a.bytes > b.bytes; });
    return out;
}

std::vector<StackBytes> byPlace(const SnapshotModel& model, const std::vector<Live>& live,
                                int64_t since)
{
    return byKey(live, since, true, [&](StackId stack) { return model.place(stack); });
}

// A leak grows with the iterations: of what is alive at the dump and was allocated after
// the first third of the history, the places that allocated in at least kLeakIterations
// different iterations. Without iteration marks no place is called a leak (weights moved
// to the device late in a short history are alive at the end too).
std::vector<StackBytes> leaksOf(const SnapshotModel& model, const std::vector<Live>& live,
                                int64_t since, const std::vector<int64_t>& iterations)
{
    if (iterations.empty())
        return {};
    std::map<std::string, std::unordered_set<size_t>> seen;  // place -> iterations it allocated in
    std::unordered_map<StackId, std::string> placeOf;        // many blocks share a stack
    auto place = [&](StackId stack) -> const std::string& {
        auto [known, fresh] = placeOf.try_emplace(stack);
        if (fresh)
            known->second = model.place(stack);
        return known->second;
    };
    std::vector<Live> late;
    for (const Live& l : live)
        if (l.when >= since) {
            const size_t iteration =
                size_t(std::upper_bound(iterations.begin(), iterations.end(), l.when) -
                       iterations.begin());
            seen[place(l.stack)].insert(iteration);
            late.push_back(l);
        }
    std::vector<StackBytes> out;
    for (const StackBytes& g : byKey(late, since, true, place))
        if (seen[place(g.stack)].size() >= kLeakIterations)
            out.push_back(g);
    return out;
}

std::string capitalized(std::string text)
{
    if (!text.empty() && text[0] >= 'a' && text[0] <= 'z')
        text[0] = char(text[0] - 'a' + 'A');
    return text;
}

// The oom entry `e` read: the state at the failure replayed from its device's history, the
// dump's apart. `s` has the dump's per-device totals and segment use.
OutOfMemory outOfMemoryAt(const SnapshotModel& model, const std::vector<DeviceTimeline>& timelines,
                          const SnapshotSummary& s, const TraceEntry& e)
{
    OutOfMemory oom;
    oom.device = e.device;
    oom.requestedBytes = e.size;
    oom.deviceFreeBytes = e.deviceFree();
    oom.timeUs = e.timeUs;
    if (e.device >= 0 && size_t(e.device) < s.perDevice.size()) {
        const DeviceMemory& d = s.perDevice[size_t(e.device)];
        oom.dumpReservedUnallocatedBytes = std::max<int64_t>(0, d.reservedBytes - d.allocatedBytes);
    }
    for (const SegmentUse& use : s.segmentUse)
        if (model.segments[use.segment].device == e.device)
            oom.dumpLargestFreeBlockBytes =
                std::max(oom.dumpLargestFreeBlockBytes, use.largestFreeBlockBytes);
    for (const DeviceTimeline& t : timelines)
        if (t.count > 0 && &e >= t.first && &e < t.first + t.count) {
            const auto at = size_t(&e - t.first);
            oom.replayed = true;
            oom.atFailure = stateAfter(model, t, at);
            oom.entriesAfter = t.count - at - 1;
        }
    if (oom.replayed) {
        oom.reservedUnallocatedBytes =
            std::max<int64_t>(0, oom.atFailure.reservedBytes - oom.atFailure.allocatedBytes);
        oom.largestFreeBlockBytes = oom.atFailure.largestFreeBlockBytes;
    } else {  // no history to replay: the dump is all there is
        oom.atFailure.blocksKnown = true;
        oom.reservedUnallocatedBytes = oom.dumpReservedUnallocatedBytes;
        oom.largestFreeBlockBytes = oom.dumpLargestFreeBlockBytes;
    }
    return oom;
}

void findings(const SnapshotModel& model, SnapshotSummary& s)
{
    const double peak = double(s.peakAllocatedBytes);
    if (s.outOfMemory) {
        const OutOfMemory& oom = *s.outOfMemory;
        Finding f;
        f.id = "snapshot-out-of-memory";
        f.severity = Severity::High;
        f.title = "An allocation of " + format::bytes(double(oom.requestedBytes)) +
                  " ran out of memory on cuda:" + std::to_string(oom.device);
        const std::string dump = atDumpText(oom);
        f.explanation =
            "The allocator asked the driver for more memory and got none" +
            (oom.deviceFreeBytes >= 0
                 ? ": " + format::bytes(double(oom.deviceFreeBytes)) + " was free on the device"
                 : std::string()) +
            ". " + capitalized(atFailureText(oom)) +
            (!oom.atFailure.blocksKnown ? "."
             : oom.fragmented()
                 ? ": enough in total, in pieces too small for the request (fragmentation)."
                 : ": the run needed more than the device has, not a fragmented cache.") +
            (dump.empty() ? std::string()
                          : " " + capitalized(dump) +
                                ": what the failed step held was freed after the failure, so the "
                                "dump caches more than the request found.");
        f.evidence.figures = {
            {"requested_bytes", double(oom.requestedBytes), Unit::Bytes},
            {"reserved_unallocated_bytes", double(oom.reservedUnallocatedBytes), Unit::Bytes},
            {"largest_free_block_bytes", double(oom.largestFreeBlockBytes), Unit::Bytes},
            {"dump_reserved_unallocated_bytes", double(oom.dumpReservedUnallocatedBytes),
             Unit::Bytes},
            {"dump_largest_free_block_bytes", double(oom.dumpLargestFreeBlockBytes), Unit::Bytes}};
        if (oom.deviceFreeBytes >= 0)
            f.evidence.figures.push_back(
                {"device_free_bytes", double(oom.deviceFreeBytes), Unit::Bytes});
        f.gainMethod = "memory, not time";
        f.fix =
            oom.fragmented()
                ? "The cache held enough in pieces: let segments grow instead of splitting "
                  "(expandable_segments), or keep tensor shapes stable."
                : "Lower the peak: a smaller batch, activation checkpointing, or bf16 activations.";
        if (oom.fragmented())
            f.snippet = analysis::rules::kExpandableSegmentsSnippet;
        s.findings.push_back(std::move(f));
    }
    if (peak > 0 && !s.leaks.empty()) {
        const StackBytes& top = s.leaks.front();
        if (double(s.leakedBytes) >= 0.1 * peak) {
            Finding f;
            f.id = "snapshot-leak";
            f.severity = double(s.leakedBytes) >= 0.3 * peak ? Severity::Medium : Severity::Low;
            f.title = format::bytes(double(s.leakedBytes)) +
                      " allocated late in the history is still alive at the dump, " +
                      format::bytes(double(top.bytes)) + " of it from " + model.place(top.stack);
            f.explanation = "Allocations made after the first third of the recorded history, in "
                            "several iterations, "
                            "and never freed: memory that outlives the iteration that made it (a "
                            "tensor kept in a "
                            "list, a loss accumulated with its graph, a cache) grows every "
                            "iteration until it runs "
                            "out.";
            f.evidence.figures = {
                {"leaked_bytes", double(s.leakedBytes), Unit::Bytes},
                {"leaked_share_of_peak", double(s.leakedBytes) / peak, Unit::Fraction},
                {"top_stack_allocations", double(top.allocations), Unit::Count}};
            f.evidence.ops.emplace_back(model.place(top.stack));
            f.gainMethod = "memory, not time";
            f.fix = "Find what keeps these tensors: detach values you keep (loss.item() or "
                    "loss.detach()), clear "
                    "lists and caches each iteration.";
            f.snippet =
                "history.append(loss.detach())  # not loss: it keeps the whole graph alive\n";
            s.findings.push_back(std::move(f));
        }
    }
    // Only where the stacks show autograd: then what a step frees is mostly the activations
    // its backward needed, and checkpointing is the fix. A forward-only history's
    // temporaries are whatever that code makes (a zeroth-order method's perturbations, a
    // model copy): no one fix fits, and the groups at the peak already name them.
    if (s.backward && peak >= double(kActivationsMinPeak) &&
        double(s.transientAtPeakBytes) >= kActivationsDominate * peak) {
        const double share = double(s.transientAtPeakBytes) / peak;
        Finding f;
        f.id = "snapshot-activations-dominate";
        f.severity = Severity::Medium;
        f.title = "Activations and temporaries are " + format::percent(share) + " of the peak (" +
                  format::bytes(double(s.transientAtPeakBytes)) + " of " + format::bytes(peak) +
                  ")";
        f.explanation = "At the peak, " + format::bytes(double(s.transientAtPeakBytes)) +
                        " is in tensors the history frees before the dump: what a step allocates "
                        "and lets go of, not "
                        "weights, optimizer state or caches. The stacks pass through backward: a "
                        "training step keeps "
                        "its forward's activations until backward has used them.";
        f.evidence.figures = {
            {"transient_at_peak_bytes", double(s.transientAtPeakBytes), Unit::Bytes},
            {"transient_share_of_peak", share, Unit::Fraction},
            {"persistent_at_peak_bytes", peak - double(s.transientAtPeakBytes), Unit::Bytes}};
        for (size_t i = 0; i < s.transientAtPeak.size() && i < 3; ++i)
            f.evidence.ops.emplace_back(model.place(s.transientAtPeak[i].stack));
        f.gainMethod = "memory, not time";
        f.fix =
            "Checkpoint the blocks whose activations are largest (they are recomputed in backward "
            "instead of "
            "kept), or train in bf16 autocast, or halve the micro-batch and accumulate gradients.";
        f.snippet = analysis::rules::kCheckpointSnippet;
        s.findings.push_back(std::move(f));
    }
    const DeviceMemory& d =
        s.perDevice[size_t(s.peakDevice)];  // summarize keeps one device at least
    if (peak > 0 && double(d.reservedBytes) > kReservedOverPeak * peak &&
        d.reservedBytes - s.peakAllocatedBytes >= 256 * kMiB) {
        Finding f;
        f.id = "snapshot-reserved-over-peak";
        f.severity = Severity::Low;
        f.title = "The caching allocator holds " + format::ratio(double(d.reservedBytes) / peak) +
                  " the peak in use on cuda:" + std::to_string(d.device);
        f.explanation =
            "At the dump the allocator's segments hold " + format::bytes(double(d.reservedBytes)) +
            "; at its peak the run had " + format::bytes(peak) +
            " in tensors. The rest is cached in blocks of sizes the run no longer asks for; other "
            "processes cannot use it, and a request larger than every free block still fails.";
        f.evidence.figures = {
            {"reserved_bytes", double(d.reservedBytes), Unit::Bytes},
            {"peak_allocated_bytes", peak, Unit::Bytes},
            {"largest_free_block_bytes", double(s.largestFreeBlockBytes), Unit::Bytes}};
        f.gainMethod = "memory, not time";
        f.fix = "Let segments grow instead of caching many sizes (expandable_segments), and keep "
                "shapes stable.";
        f.snippet = analysis::rules::kExpandableSegmentsSnippet;
        s.findings.push_back(std::move(f));
    }
}

// The iterations that come within 1 % of the peak: the time of each one's highest point,
// in order (what comes before the first iteration counts as one more: a set-up that
// peaks). A training loop
// reaches its peak in every step, so the first such moment is one of many; 1 % keeps steps
// whose peaks differ by a few blocks alike. Without iterations, the peak alone.
std::vector<int64_t> peakMoments(const DeviceTimeline& t, const std::vector<int64_t>& starts)
{
    if (t.peakApplied == 0)
        return {};
    if (starts.size() < kMinIterations)
        return {t.entry(t.peakApplied - 1).timeUs};
    std::vector<int64_t> moments;
    const int64_t near = t.peakBytes - t.peakBytes / 100;
    int64_t highest = -1, highestUs = -1;  // of the iteration under way
    size_t next = 0;                       // the next iteration's start
    for (size_t i = 0; i < t.size(); ++i) {
        if (next < starts.size() && t.when(i) >= starts[next]) {
            if (highest >= near)
                moments.push_back(highestUs);
            highest = -1;
            while (next < starts.size() && t.when(i) >= starts[next])
                ++next;
        }
        if (t.allocated[i] > highest && t.entry(i).timeUs >= 0) {
            highest = t.allocated[i];
            highestUs = t.entry(i).timeUs;
        }
    }
    if (highest >= near)
        moments.push_back(highestUs);
    return moments;
}

}  // namespace

std::string atFailureText(const OutOfMemory& oom)
{
    const auto bytes = [](int64_t b) { return format::bytes(double(b)); };
    if (!oom.replayed)
        return "at the dump (the oom entry is in no device's history, nothing to replay): " +
               bytes(oom.reservedUnallocatedBytes) + " in no tensor, the largest free block " +
               bytes(oom.largestFreeBlockBytes);
    const AllocatorState& a = oom.atFailure;
    std::string t = "at the failure (replayed to the oom entry): " + bytes(a.allocatedBytes) +
                    " allocated of " + bytes(a.reservedBytes) + " reserved, " +
                    bytes(oom.reservedUnallocatedBytes) + " in no tensor";
    if (a.pendingFreeBytes > 0)
        t += " (" + bytes(a.pendingFreeBytes) + " of it freed, waiting for its stream)";
    if (!a.blocksKnown)
        t += "; its free blocks are not known (" + a.unknown + ")";
    else if (a.largestFreeBlockMinBytes == a.largestFreeBlockBytes ||
             bytes(a.largestFreeBlockMinBytes) == bytes(a.largestFreeBlockBytes))
        t += ", the largest free block " + bytes(a.largestFreeBlockBytes);
    else
        t += ", the largest free block between " + bytes(a.largestFreeBlockMinBytes) + " and " +
             bytes(a.largestFreeBlockBytes);
    if (a.estimatedBytes > 0)
        t += " (blocks freed since are sized from their requests: up to " +
             bytes(a.estimatedBytes) + " more may have been in them)";
    return t;
}

std::string atDumpText(const OutOfMemory& oom)
{
    if (!oom.replayed || oom.entriesAfter == 0)
        return {};
    return "at the dump (after, " + format::counted(oom.entriesAfter, "entry", "entries") +
           " later): " + format::bytes(double(oom.dumpReservedUnallocatedBytes)) +
           " in no tensor, the largest free block " +
           format::bytes(double(oom.dumpLargestFreeBlockBytes));
}

SnapshotSummary summarize(const SnapshotModel& model)
{
    return summarize(model, timelinesOf(model, hasTimes(model)));
}

SnapshotSummary summarize(const SnapshotModel& model, const std::vector<DeviceTimeline>& timelines)
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
    for (uint32_t i = 0; i < model.segments.size(); ++i) {
        const Segment& seg = model.segments[i];
        DeviceMemory& d = s.perDevice[size_t(std::max<int64_t>(0, seg.device))];
        d.reservedBytes += seg.totalSize;
        s.reservedBytes += seg.totalSize;
        SegmentUse use{.segment = i};
        for (uint32_t b = seg.firstBlock; b < seg.firstBlock + seg.blockCount; ++b) {
            const Block& block = model.blocks[b];
            if (block.state == BlockState::ActiveAllocated) {
                use.allocatedBytes += block.size;
            } else if (block.state == BlockState::Inactive) {
                use.inactiveBytes += block.size;
                use.largestFreeBlockBytes = std::max(use.largestFreeBlockBytes, block.size);
                ++use.inactiveBlocks;
            }
        }
        d.allocatedBytes += use.allocatedBytes;
        s.allocatedBytes += use.allocatedBytes;
        s.inactiveBytes += use.inactiveBytes;
        s.largestFreeBlockBytes = std::max(s.largestFreeBlockBytes, use.largestFreeBlockBytes);
        s.segmentUse.push_back(use);
    }
    std::stable_sort(
        s.segmentUse.begin(), s.segmentUse.end(), [](const SegmentUse& a, const SegmentUse& b) {
            return a.split() != b.split() ? a.split() : a.inactiveBytes > b.inactiveBytes;
        });
    for (const SegmentUse& use : s.segmentUse)
        if (use.allocatedBytes == 0) {
            ++s.freeSegments;
            s.freeSegmentBytes += model.segments[use.segment].totalSize;
        }
    for (const TraceEntry& e : model.entries)
        if (e.timeUs >= 0) {
            s.firstTimeUs = s.firstTimeUs < 0 ? e.timeUs : std::min(s.firstTimeUs, e.timeUs);
            s.lastTimeUs = std::max(s.lastTimeUs, e.timeUs);
        }
    const int64_t lateFrom =
        s.firstTimeUs + (s.lastTimeUs - s.firstTimeUs) / 3;  // read where timed

    s.perDevice.resize(std::max(s.perDevice.size(), timelines.size()));
    std::vector<Live> liveAtPeak;
    int64_t beforeAtPeak = 0;
    for (const DeviceTimeline& t : timelines) {
        DeviceMemory& dm = s.perDevice[size_t(t.device)];
        dm.device = t.device;
        dm.entries = t.size();
        dm.startAllocatedBytes = t.startAllocatedBytes;
        dm.peakAllocatedBytes = t.peakBytes;
        dm.peakTimeUs = t.peakApplied > 0 ? t.entry(t.peakApplied - 1).timeUs : -1;
        if (t.device != 0 && dm.peakAllocatedBytes <= s.peakAllocatedBytes)
            continue;
        s.peakDevice = t.device;
        s.peakAllocatedBytes = dm.peakAllocatedBytes;
        s.peakTimeUs = dm.peakTimeUs;
        s.peakMomentsUs.clear();
        // What was alive at the peak: from before the history, or allocated in it; of the
        // latter, what the history frees before the dump.
        liveAtPeak.clear();
        beforeAtPeak = 0;
        std::vector<Live> transient;
        s.transientAtPeakBytes = 0;
        for (const Band& b : t.bands) {
            if (!t.aliveAfter(b, t.peakApplied))
                continue;
            if (b.beforeHistory) {
                beforeAtPeak += b.size;
                continue;
            }
            liveAtPeak.push_back({b.size, b.stack, t.when(b.from)});
            if (b.to < t.size()) {
                transient.push_back(liveAtPeak.back());
                s.transientAtPeakBytes += b.size;
            }
        }
        s.transientAtPeak = byPlace(model, transient, std::numeric_limits<int64_t>::min());
        if (t.timed) {
            const Iterations iterations = findIterations(model, t);
            s.iterations = iterations.starts.size();
            s.iterationsFoundBy = iterations.foundBy;
            s.leaks = leaksOf(model, liveOf(t, t.size()), lateFrom, iterations.starts);
            s.peakMomentsUs = peakMoments(t, iterations.starts);
        }
    }
    s.topStacksAtPeak = byPlace(model, liveAtPeak, std::numeric_limits<int64_t>::min());
    s.topModulesAtPeak = byKey(liveAtPeak, std::numeric_limits<int64_t>::min(), false,
                               [&](StackId stack) { return model.moduleCall(stack); });
    s.beforeHistoryAtPeakBytes = std::max<int64_t>(0, beforeAtPeak);
    for (const StackBytes& g : s.leaks)
        s.leakedBytes += g.bytes;
    if (const auto oom = std::find_if(model.entries.begin(), model.entries.end(),
                                      [](const TraceEntry& e) { return e.action == Action::Oom; });
        oom != model.entries.end())
        s.outOfMemory = outOfMemoryAt(model, timelines, s, *oom);
    for (const Frame& f : model.frames) {
        const std::string_view name = model.text(f.name);
        s.backward |= name == "backward" || name.find("autograd::Engine") != std::string_view::npos;
    }
    findings(model, s);
    analysis::rankFindings(s.findings);
    return s;
}

}  // namespace kinetoscope::snapshot
