#include "app/cli/memory_report.h"

#include "app/cli/diagnose_report.h"
#include "core/format/format.h"

#include <cctype>
#include <nlohmann/json.hpp>

namespace kinetoscope::cli {

using nlohmann::json;
using snapshot::SnapshotModel;
using snapshot::SnapshotSummary;
using snapshot::StackBytes;

namespace {

constexpr size_t kListed = 10;  // stacks listed at the peak and among the leaks

std::string bytes(int64_t n)
{
    return format::bytes(double(n));
}

std::string placeOf(const SnapshotModel& model, snapshot::StackId stack)
{
    return stack ? model.place(stack) : std::string("(no frames recorded)");
}

json stacksJson(const SnapshotModel& model, const std::vector<StackBytes>& groups, double peak)
{
    json out = json::array();
    for (size_t i = 0; i < groups.size() && i < kListed; ++i) {
        const StackBytes& g = groups[i];
        json frames = json::array();
        for (uint32_t id : model.stacks[g.stack]) {
            const snapshot::Frame& f = model.frames[id];
            frames.push_back({{"name", model.text(f.name)},
                              {"filename", model.text(f.filename)},
                              {"line", f.line}});
            if (frames.size() == 8)
                break;
        }
        out.push_back({{"place", placeOf(model, g.stack)},
                       {"bytes", g.bytes},
                       {"allocations", g.allocations},
                       {"share_of_peak", peak > 0 ? double(g.bytes) / peak : 0.0},
                       {"frames", frames}});
    }
    return out;
}

// Groups by the module call they were made under (SnapshotModel::moduleCall).
json modulesJson(const SnapshotModel& model, const std::vector<StackBytes>& groups, double peak)
{
    json out = json::array();
    for (size_t i = 0; i < groups.size() && i < kListed; ++i)
        out.push_back({{"module_call", model.moduleCall(groups[i].stack)},
                       {"bytes", groups[i].bytes},
                       {"allocations", groups[i].allocations},
                       {"share_of_peak", peak > 0 ? double(groups[i].bytes) / peak : 0.0}});
    return out;
}

// The split segments caching the most in free blocks (SnapshotSummary::segmentUse's order).
json segmentsJson(const SnapshotModel& model, const SnapshotSummary& s)
{
    json out = json::array();
    for (size_t i = 0; i < s.segmentUse.size() && i < kListed && s.segmentUse[i].split(); ++i) {
        const snapshot::SegmentUse& use = s.segmentUse[i];
        const snapshot::Segment& seg = model.segments[use.segment];
        out.push_back({{"device", seg.device},
                       {"address", seg.address},
                       {"stream", seg.stream},
                       {"pool", seg.large ? "large" : "small"},
                       {"reserved_bytes", seg.totalSize},
                       {"allocated_bytes", use.allocatedBytes},
                       {"inactive_bytes", use.inactiveBytes},
                       {"inactive_blocks", use.inactiveBlocks},
                       {"largest_free_block_bytes", use.largestFreeBlockBytes}});
    }
    return out;
}

}  // namespace

json memoryJson(const std::string& source, const SnapshotModel& model, const SnapshotSummary& s,
                const snapshot::PeakInTrace* inTrace)
{
    const double peak = double(s.peakAllocatedBytes);
    json devices = json::array();
    for (const snapshot::DeviceMemory& d : s.perDevice)
        devices.push_back({{"device", d.device},
                           {"reserved_bytes", d.reservedBytes},
                           {"allocated_bytes", d.allocatedBytes},
                           {"trace_entries", d.entries},
                           {"start_allocated_bytes", d.startAllocatedBytes},
                           {"peak_allocated_bytes", d.peakAllocatedBytes},
                           {"peak_time_us", d.peakTimeUs >= 0 ? json(d.peakTimeUs) : json()}});
    json oom;
    if (s.outOfMemory) {
        const snapshot::OutOfMemory& o = *s.outOfMemory;
        const snapshot::AllocatorState& a = o.atFailure;
        json failure;  // null when the oom entry is in no history
        if (o.replayed)
            failure = {{"entries_applied", a.applied},
                       {"segments", a.segments},
                       {"reserved_bytes", a.reservedBytes},
                       {"allocated_bytes", a.allocatedBytes},
                       {"pending_free_bytes", a.pendingFreeBytes},
                       {"cached_free_bytes", a.cachedFreeBytes()},
                       {"estimated_bytes", a.estimatedBytes},
                       {"largest_free_block_bytes",
                        a.blocksKnown ? json(a.largestFreeBlockBytes) : json()},
                       {"largest_free_block_min_bytes",
                        a.blocksKnown ? json(a.largestFreeBlockMinBytes) : json()},
                       {"exact", a.exact},
                       {"unknown", a.unknown}};
        oom = {{"device", o.device},
               {"requested_bytes", o.requestedBytes},
               {"device_free_bytes", o.deviceFreeBytes},
               {"time_us", o.timeUs},
               {"reserved_unallocated_bytes", o.reservedUnallocatedBytes},
               {"largest_free_block_bytes", o.largestFreeBlockBytes},
               {"fragmented", o.fragmented()},
               {"at_failure", failure},
               {"at_dump",
                {{"entries_after", o.entriesAfter},
                 {"reserved_unallocated_bytes", o.dumpReservedUnallocatedBytes},
                 {"largest_free_block_bytes", o.dumpLargestFreeBlockBytes}}}};
    }
    json placed;
    if (inTrace)
        placed = {{"in_window", inTrace->inWindow},
                  {"step", inTrace->step},
                  {"phase", inTrace->phase},
                  {"op", inTrace->op},
                  {"module", inTrace->module},
                  {"sentence", inTrace->sentence},
                  {"time_us", inTrace->peakNs / 1000},  // the moment placed
                  {"peak_moments", inTrace->peakMoments},
                  {"peak_moments_in_window", inTrace->peakMomentsInWindow}};
    return {{"source", source},
            {"peak_in_trace", placed},
            {"form", model.bareList ? "segments list" : "snapshot dict"},
            {"devices", s.devices},
            {"segments", s.segments},
            {"blocks", s.blocks},
            {"reserved_bytes", s.reservedBytes},
            {"allocated_bytes", s.allocatedBytes},
            {"inactive_bytes", s.inactiveBytes},
            {"largest_free_block_bytes", s.largestFreeBlockBytes},
            {"trace_entries", s.traceEntries},
            {"annotations", model.annotations.size()},
            {"per_device", devices},
            {"peak_device", s.peakDevice},
            {"peak_allocated_bytes", s.peakAllocatedBytes},
            {"peak_time_us", s.peakTimeUs >= 0 ? json(s.peakTimeUs) : json()},
            {"before_history_at_peak_bytes", s.beforeHistoryAtPeakBytes},
            {"transient_at_peak_bytes", s.transientAtPeakBytes},
            {"top_stacks_at_peak", stacksJson(model, s.topStacksAtPeak, peak)},
            {"top_modules_at_peak", modulesJson(model, s.topModulesAtPeak, peak)},
            {"iterations", s.iterations},
            {"iterations_found_by", s.iterationsFoundBy},
            {"leaked_bytes", s.leakedBytes},
            {"leaks", stacksJson(model, s.leaks, peak)},
            {"split_segments", segmentsJson(model, s)},
            {"free_segments", s.freeSegments},
            {"free_segment_bytes", s.freeSegmentBytes},
            {"out_of_memory", oom},
            {"findings", findingsJson(s.findings)}};
}

std::string memoryText(const std::string& source, const SnapshotModel& model,
                       const SnapshotSummary& s, bool markdown,
                       const snapshot::PeakInTrace* inTrace)
{
    const std::string h = markdown ? "## " : "";
    std::string t = (markdown ? "# " : "") + source + ": a CUDA memory snapshot (" +
                    (model.bareList ? "a list of segments" : "torch.cuda.memory._dump_snapshot") +
                    ")\n\n";
    t += "At the dump: " + bytes(s.reservedBytes) + " reserved in " +
         format::counted(s.segments, "segment") + ", " + bytes(s.allocatedBytes) + " allocated, " +
         bytes(s.inactiveBytes) + " cached in free blocks (the largest " +
         bytes(s.largestFreeBlockBytes) + ").\n";
    if (s.traceEntries <= 1) {
        t += "No allocation history was recorded (torch.cuda.memory._record_memory_history was "
             "off): the state "
             "at the dump is all there is.\n";
    } else {
        t += "History: " + format::count(int64_t(s.traceEntries)) + " entries";
        if (s.firstTimeUs >= 0 && s.lastTimeUs > s.firstTimeUs)
            t += " over " + format::duration(double(s.lastTimeUs - s.firstTimeUs) * 1e3);
        if (s.iterations > 0)
            t += ", " + format::counted(s.iterations, "iteration") + " (by " + s.iterationsFoundBy +
                 ")";
        t += "; peak allocated " + bytes(s.peakAllocatedBytes) +
             " on cuda:" + std::to_string(s.peakDevice);
        if (s.peakTimeUs >= 0 && s.firstTimeUs >= 0)
            t += ", " + format::duration(double(s.peakTimeUs - s.firstTimeUs) * 1e3) +
                 " into the history";
        t += ".\n";
        if (inTrace && !inTrace->sentence.empty()) {
            std::string sentence = inTrace->sentence;
            sentence[0] = char(std::toupper(static_cast<unsigned char>(sentence[0])));
            t += "In the trace: " + sentence + ".\n";
        }
        t += "\n" + h + "Alive at the peak, by where it was allocated\n";
        auto list = [&](const std::vector<StackBytes>& groups, size_t listed, bool modules) {
            for (size_t i = 0; i < groups.size() && i < listed; ++i) {
                const StackBytes& g = groups[i];
                t += (markdown ? "- " : "  ") + bytes(g.bytes) + "  " +
                     format::percent(s.peakAllocatedBytes > 0
                                         ? double(g.bytes) / double(s.peakAllocatedBytes)
                                         : 0.0) +
                     "  " + format::counted(uint64_t(g.allocations), "allocation") + "  " +
                     (modules ? model.moduleCall(g.stack) : placeOf(model, g.stack)) + "\n";
            }
        };
        list(s.topStacksAtPeak, kListed, false);
        if (s.beforeHistoryAtPeakBytes > 0)
            t += (markdown ? "- " : "  ") + bytes(s.beforeHistoryAtPeakBytes) +
                 "  allocated before the history started\n";
        if (!s.topModulesAtPeak.empty()) {
            t += "\n" + h +
                 "Alive at the peak, by the nn.Module call it was made under (the calling line)\n";
            list(s.topModulesAtPeak, 5, true);
        }
        if (!s.leaks.empty()) {
            t += "\n" + h +
                 "Leaking: alive at the dump, allocated in several iterations after the first "
                 "third of the history (" +
                 bytes(s.leakedBytes) + ")\n";
            list(s.leaks, kListed, false);
        }
    }
    if (!s.segmentUse.empty() && s.segmentUse.front().split()) {
        t += "\n" + h + "Split segments: free blocks beside live tensors (fragmentation)\n";
        for (size_t i = 0; i < s.segmentUse.size() && i < 5 && s.segmentUse[i].split(); ++i) {
            const snapshot::SegmentUse& use = s.segmentUse[i];
            const snapshot::Segment& seg = model.segments[use.segment];
            t += (markdown ? "- " : "  ") + bytes(use.inactiveBytes) + " free in " +
                 format::counted(use.inactiveBlocks, "block") + " (the largest " +
                 bytes(use.largestFreeBlockBytes) + ") beside " + bytes(use.allocatedBytes) +
                 " allocated, in a " + bytes(seg.totalSize) + " " +
                 (seg.large ? "large" : "small") +
                 "-pool segment on cuda:" + std::to_string(seg.device) + ", stream " +
                 std::to_string(seg.stream) + "\n";
        }
    }
    if (s.freeSegments > 0)
        t += (markdown ? "\n" : "") + std::string(markdown ? "" : "  ") +
             format::counted(s.freeSegments, "segment") +
             (s.freeSegments == 1 ? " holds" : " hold") + " no tensor (" +
             bytes(s.freeSegmentBytes) +
             " cached whole: torch.cuda.empty_cache() would return them)\n";
    if (s.outOfMemory) {
        const snapshot::OutOfMemory& oom = *s.outOfMemory;
        t += "\nOut of memory: a request of " + bytes(oom.requestedBytes) +
             " on cuda:" + std::to_string(oom.device) +
             (oom.deviceFreeBytes >= 0
                  ? " with " + bytes(oom.deviceFreeBytes) + " free on the device"
                  : std::string()) +
             ".\n" + (markdown ? "- " : "  ") + snapshot::atFailureText(oom) +
             (oom.fragmented() ? ": enough in total, in no one block (fragmentation)" : "") + ".\n";
        if (const std::string dump = snapshot::atDumpText(oom); !dump.empty())
            t += (markdown ? "- " : "  ") + dump + ".\n";
    }
    t += "\n";
    t += markdown ? findingsMarkdown(s.findings) : findingsText(s.findings);
    return t;
}

}  // namespace kinetoscope::cli
