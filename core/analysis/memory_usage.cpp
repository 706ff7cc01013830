#include "core/analysis/memory_usage.h"

#include <algorithm>
#include <unordered_map>

namespace kinetoscope::analysis {

using namespace kinetoscope::trace;

namespace {

std::string deviceName(const MemorySample& s)
{
    // c10::DeviceType: 0 CPU, 1 CUDA; ROCm traces report HIP memory as CUDA too.
    if (s.deviceType == 0 || s.deviceId < 0)
        return "cpu";
    return (s.deviceType == 1 ? "cuda:" : "device" + std::to_string(s.deviceType) + ":") +
           std::to_string(s.deviceId);
}

}  // namespace

std::map<std::string, DeviceMemory> computeMemoryUsage(const TraceModel& model, const StepDetection& steps)
{
    std::map<std::string, DeviceMemory> result;
    std::map<std::string, int64_t> running;  // rebuilt allocated bytes per device
    std::map<std::string, std::unordered_map<uint64_t, size_t>> live;  // address -> allocation
    std::map<std::string, std::unordered_map<uint32_t, OpAllocation>> byOp;

    for (const MemorySample& s : model.memorySamples()) {
        const std::string name = deviceName(s);
        DeviceMemory& d = result[name];
        d.device = name;
        const bool totals = s.totalAllocated >= 0;
        d.totalsRecorded |= totals;
        int64_t& rebuilt = running[name];
        rebuilt += s.bytes;
        const int64_t allocated = totals ? s.totalAllocated : rebuilt;
        d.curve.push_back({s.timeNs, allocated, s.totalReserved});
        d.peakAllocatedBytes = std::max(d.peakAllocatedBytes, allocated);
        if (s.totalReserved >= 0)
            d.peakReservedBytes = std::max(d.peakReservedBytes.value_or(0), s.totalReserved);

        auto& liveHere = live[name];
        if (s.bytes > 0) {
            liveHere[s.address] = d.allocations.size();
            d.allocations.push_back({s.timeNs, -1, s.bytes, s.address});
            const EventId op = model.innermostEventAt(s.track, s.timeNs);
            EventId cpuOp = op;
            while (cpuOp.valid() && model.event(cpuOp).category != Category::CpuOp)
                cpuOp = model.event(cpuOp).parent;
            const uint32_t opName = cpuOp.valid() ? model.event(cpuOp).name.value : 0;
            OpAllocation& entry = byOp[name][opName];
            ++entry.allocations;
            entry.bytes += s.bytes;
        } else if (s.bytes < 0) {
            const auto it = liveHere.find(s.address);
            if (it == liveHere.end()) {
                ++d.unpairedFrees;
            } else {
                d.allocations[it->second].freeNs = s.timeNs;
                liveHere.erase(it);
            }
        }
    }
    for (auto& [name, d] : result) {
        for (auto& [opName, entry] : byOp[name]) {
            entry.op = std::string(model.text(StringId{opName}));
            d.byOp.push_back(std::move(entry));
        }
        std::sort(d.byOp.begin(), d.byOp.end(),
                  [](const OpAllocation& a, const OpAllocation& b) { return a.bytes > b.bytes; });
        for (const Step& step : steps.steps) {
            // The last sample at or before the step's start.
            const auto it = std::upper_bound(d.curve.begin(), d.curve.end(), step.beginNs,
                                             [](int64_t t, const MemoryPoint& p) { return t < p.timeNs; });
            d.allocatedAtStepStart.push_back(it == d.curve.begin() ? std::nullopt
                                                                   : std::optional(std::prev(it)->allocatedBytes));
        }
    }
    return result;
}

}  // namespace kinetoscope::analysis
