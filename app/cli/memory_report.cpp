#include "app/cli/memory_report.h"

#include "app/cli/diagnose_report.h"
#include "core/format/format.h"

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
            frames.push_back({{"name", model.text(f.name)}, {"filename", model.text(f.filename)}, {"line", f.line}});
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

}  // namespace

json memoryJson(const std::string& source, const SnapshotModel& model, const SnapshotSummary& s)
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
    if (s.outOfMemory)
        oom = {{"device", s.outOfMemory->device},
               {"requested_bytes", s.outOfMemory->requestedBytes},
               {"device_free_bytes", s.outOfMemory->deviceFreeBytes},
               {"time_us", s.outOfMemory->timeUs}};
    return {{"source", source},
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
            {"top_stacks_at_peak", stacksJson(model, s.topStacksAtPeak, peak)},
            {"leaked_bytes", s.leakedBytes},
            {"leaks", stacksJson(model, s.leaks, peak)},
            {"out_of_memory", oom},
            {"findings", findingsJson(s.findings)}};
}

std::string memoryText(const std::string& source, const SnapshotModel& model, const SnapshotSummary& s, bool markdown)
{
    const std::string h = markdown ? "## " : "";
    std::string t = (markdown ? "# " : "") + source + ": a CUDA memory snapshot (" +
                    (model.bareList ? "a list of segments" : "torch.cuda.memory._dump_snapshot") + ")\n\n";
    t += "At the dump: " + bytes(s.reservedBytes) + " reserved in " + format::count(int64_t(s.segments)) +
         " segments, " + bytes(s.allocatedBytes) + " allocated, " + bytes(s.inactiveBytes) +
         " cached in free blocks (the largest " + bytes(s.largestFreeBlockBytes) + ").\n";
    if (s.traceEntries <= 1) {
        t += "No allocation history was recorded (torch.cuda.memory._record_memory_history was off): the state "
             "at the dump is all there is.\n";
    } else {
        t += "History: " + format::count(int64_t(s.traceEntries)) + " entries";
        if (s.firstTimeUs >= 0 && s.lastTimeUs > s.firstTimeUs)
            t += " over " + format::duration(double(s.lastTimeUs - s.firstTimeUs) * 1e3);
        t += "; peak allocated " + bytes(s.peakAllocatedBytes) + " on cuda:" + std::to_string(s.peakDevice);
        if (s.peakTimeUs >= 0 && s.firstTimeUs >= 0)
            t += ", " + format::duration(double(s.peakTimeUs - s.firstTimeUs) * 1e3) + " into the history";
        t += ".\n\n" + h + "Alive at the peak, by where it was allocated\n";
        auto list = [&](const std::vector<StackBytes>& groups) {
            for (size_t i = 0; i < groups.size() && i < kListed; ++i) {
                const StackBytes& g = groups[i];
                t += (markdown ? "- " : "  ") + bytes(g.bytes) + "  " +
                     format::percent(s.peakAllocatedBytes > 0 ? double(g.bytes) / double(s.peakAllocatedBytes) : 0.0) +
                     "  " + format::count(g.allocations) + " allocations  " +
                     (placeOf(model, g.stack)) + "\n";
            }
        };
        list(s.topStacksAtPeak);
        if (s.beforeHistoryAtPeakBytes > 0)
            t += (markdown ? "- " : "  ") + bytes(s.beforeHistoryAtPeakBytes) +
                 "  allocated before the history started\n";
        if (!s.leaks.empty()) {
            t += "\n" + h + "Leaking: alive at the dump, allocated in several iterations after the first third of the history (" +
                 bytes(s.leakedBytes) + ")\n";
            list(s.leaks);
        }
    }
    if (s.outOfMemory)
        t += "\nOut of memory: a request of " + bytes(s.outOfMemory->requestedBytes) + " on cuda:" +
             std::to_string(s.outOfMemory->device) +
             (s.outOfMemory->deviceFreeBytes >= 0 ? " with " + bytes(s.outOfMemory->deviceFreeBytes) + " free on the device"
                                                 : std::string()) +
             ".\n";
    t += "\n";
    t += markdown ? findingsMarkdown(s.findings) : findingsText(s.findings);
    return t;
}


}  // namespace kinetoscope::cli
