#include "core/analysis/memory_usage.h"

#include "core/analysis/op_table.h"
#include "core/trace/name_cache.h"

#include <algorithm>
#include <cstdint>
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

// "aten::linear > aten::addmm": the CPU ops from the outermost to `op`.
template <typename IsOp>
std::string opStack(const TraceModel& model, EventId op, IsOp& isOp)
{
    std::vector<std::string_view> names;
    for (EventId a = op; a.valid(); a = model.event(a).parent)
        if (isOp(a))
            names.push_back(model.text(model.event(a).name));
    std::string stack;
    for (size_t i = names.size(); i-- > 0;)  // outermost first
        stack += (stack.empty() ? "" : " > ") + std::string(names[i]);
    return stack;
}

template <typename IsOp>
void findLiveAtPeak(const TraceModel& model, DeviceMemory& d, IsOp& isOp)
{
    const auto peak = std::find_if(d.curve.begin(), d.curve.end(), [&d](const MemoryPoint& p) {
        return p.allocatedBytes == d.peakAllocatedBytes;
    });
    if (peak == d.curve.end())
        return;
    d.peakTimeNs = peak->timeNs;
    // By sample order, not time: samples often share a microsecond.
    const int64_t peakSample = peak - d.curve.begin();
    std::unordered_map<uint32_t, std::string> stackOf;  // by op event, computed once
    std::map<std::string, LiveAtPeak> byStack;
    int64_t tracked = 0;
    for (const Allocation& a : d.allocations) {
        if (a.allocSample > peakSample)
            break;  // in allocation order
        if (a.freeSample >= 0 && a.freeSample <= peakSample)
            continue;
        auto [it, added] = stackOf.try_emplace(a.op.valid() ? a.op.value : UINT32_MAX);
        if (added && a.op.valid())
            it->second = opStack(model, a.op, isOp);
        LiveAtPeak& entry = byStack[it->second];
        entry.stack = it->second;
        ++entry.allocations;
        entry.bytes += a.bytes;
        tracked += a.bytes;
    }
    for (auto& [stack, entry] : byStack)
        d.liveAtPeak.push_back(std::move(entry));
    std::sort(d.liveAtPeak.begin(), d.liveAtPeak.end(),
              [](const LiveAtPeak& a, const LiveAtPeak& b) {
                  return a.bytes != b.bytes ? a.bytes > b.bytes : a.stack < b.stack;
              });
    d.peakUntrackedBytes = std::max<int64_t>(0, d.peakAllocatedBytes - tracked);
}

}  // namespace

std::vector<MemoryPoint> reduceCurve(const std::vector<MemoryPoint>& curve, size_t maxPoints,
                                     bool reserved)
{
    if (curve.size() <= std::max<size_t>(maxPoints, 2))
        return curve;
    const size_t buckets = std::max<size_t>(1, maxPoints / 2);
    const int64_t begin = curve.front().timeNs;
    const double width = std::max(1.0, double(curve.back().timeNs - begin) / double(buckets));
    auto value = [reserved](const MemoryPoint& p) {
        return reserved ? p.reservedBytes : p.allocatedBytes;
    };
    // The last point ends the last bucket rather than opening one of its own.
    auto bucketOf = [&](const MemoryPoint& p) {
        return std::min(int64_t(double(p.timeNs - begin) / width), int64_t(buckets) - 1);
    };
    std::vector<MemoryPoint> out;
    size_t i = 0;
    while (i < curve.size()) {
        const int64_t bucket = bucketOf(curve[i]);
        size_t lo = i, hi = i;
        for (; i < curve.size() && bucketOf(curve[i]) == bucket; ++i) {
            if (value(curve[i]) < value(curve[lo]))
                lo = i;
            if (value(curve[i]) > value(curve[hi]))
                hi = i;
        }
        out.push_back(curve[std::min(lo, hi)]);
        if (lo != hi)
            out.push_back(curve[std::max(lo, hi)]);
    }
    return out;
}

std::map<std::string, DeviceMemory> computeMemoryUsage(const TraceModel& model,
                                                       const StepDetection& steps)
{
    // An operator: not a step or data-fetch marker span that a trace labels cpu_op.
    auto marker = perName<bool>(model, isMarkerSpan);
    auto isOp = [&](EventId id) {
        const Event& e = model.event(id);
        return e.category == Category::CpuOp && !marker(e.name);
    };
    std::map<std::string, DeviceMemory> result;
    std::map<std::string, int64_t> running;  // rebuilt allocated bytes per device
    std::map<std::string, std::unordered_map<uint64_t, size_t>> live;  // address -> allocation
    std::map<std::string, std::unordered_map<uint32_t, OpAllocation>> byOp;
    std::vector<uint32_t> counted;  // op names counted for the current sample

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
        EventId cpuOp = s.bytes != 0 ? model.innermostEventAt(s.track, s.timeNs) : EventId{};
        while (cpuOp.valid() && !isOp(cpuOp))
            cpuOp = model.event(cpuOp).parent;
        const auto sample = static_cast<int64_t>(d.curve.size()) - 1;
        if (s.bytes > 0) {
            liveHere[s.address] = d.allocations.size();
            d.allocations.push_back({s.timeNs, -1, s.bytes, s.address, cpuOp, sample, -1});
        }
        // The plugin's memory table: self for the innermost op, total for it and every op
        // around it, each name once (an op nested in one of its own name counts once).
        auto count = [&s](OpAllocation& entry, bool self) {
            const bool allocation = s.bytes > 0;
            (self ? entry.allocations : entry.totalAllocations) += allocation ? 1 : 0;
            (self ? entry.bytes : entry.totalBytes) += allocation ? s.bytes : 0;
            (self ? entry.selfIncreaseBytes : entry.totalIncreaseBytes) += s.bytes;
        };
        auto& opsHere = byOp[name];
        count(opsHere[cpuOp.valid() ? model.event(cpuOp).name.value : 0], true);
        if (!cpuOp.valid())
            count(opsHere[0], false);
        counted.clear();
        for (EventId a = cpuOp; a.valid(); a = model.event(a).parent) {
            const uint32_t opName = model.event(a).name.value;
            if (isOp(a) && std::find(counted.begin(), counted.end(), opName) == counted.end()) {
                counted.push_back(opName);
                count(opsHere[opName], false);
            }
        }
        if (s.bytes < 0) {
            const auto it = liveHere.find(s.address);
            if (it == liveHere.end()) {
                ++d.unpairedFrees;
            } else {
                d.allocations[it->second].freeNs = s.timeNs;
                d.allocations[it->second].freeSample = sample;
                liveHere.erase(it);
            }
        }
    }
    for (auto& [name, d] : result) {
        for (auto& [opName, entry] : byOp[name]) {
            entry.op = std::string(model.text(StringId{opName}));
            d.byOp.push_back(std::move(entry));
        }
        std::sort(d.byOp.begin(), d.byOp.end(), [](const OpAllocation& a, const OpAllocation& b) {
            return a.bytes != b.bytes ? a.bytes > b.bytes : a.totalBytes > b.totalBytes;
        });
        findLiveAtPeak(model, d, isOp);
        for (const Step& step : steps.steps) {
            // The last sample at or before the step's start.
            const auto it =
                std::upper_bound(d.curve.begin(), d.curve.end(), step.beginNs,
                                 [](int64_t t, const MemoryPoint& p) { return t < p.timeNs; });
            d.allocatedAtStepStart.push_back(it == d.curve.begin()
                                                 ? std::nullopt
                                                 : std::optional(std::prev(it)->allocatedBytes));
        }
    }
    return result;
}

}  // namespace kinetoscope::analysis
