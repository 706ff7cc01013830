#include "core/analysis/op_table.h"

#include "core/analysis/name_cache.h"
#include "core/analysis/tensor_cores.h"

#include <algorithm>
#include <unordered_map>

namespace kinetoscope::analysis {

using namespace kinetoscope::trace;

namespace {

bool isDeviceWork(Category c)
{
    return c == Category::Kernel || c == Category::Memcpy || c == Category::Memset;
}

// What an op's self CPU time leaves out when it runs inside the op on its thread: nested
// ops, record_function ranges and the runtime and driver calls the op made (launches,
// copies, allocations), as torch's self_cpu_time_total and the TensorBoard plugin count.
bool takesFromSelfCpu(Category c)
{
    return c == Category::CpuOp || c == Category::UserAnnotation || c == Category::Runtime || c == Category::Driver;
}


struct Key
{
    uint32_t name;
    uint32_t shapes;
    bool operator==(const Key&) const = default;
};
struct KeyHash
{
    size_t operator()(const Key& k) const noexcept { return (size_t(k.name) << 32) ^ k.shapes; }
};

}  // namespace

bool isMarkerSpan(std::string_view name)
{
    return name.starts_with("ProfilerStep#") || name.starts_with("enumerate(DataLoader)#") ||
           name.starts_with("enumerate(DataPipe)#") || name.starts_with("Optimizer.step#") ||
           name.starts_with("Optimizer.zero_grad#");
}

void sortOps(std::vector<OpStats>& ops, OpColumn column)
{
    auto value = [column](const OpStats& s) -> int64_t {
        switch (column) {
        case OpColumn::Calls: return s.calls;
        case OpColumn::SelfCpu: return s.selfCpuNs;
        case OpColumn::CpuTotal: return s.cpuTotalNs;
        case OpColumn::SelfDevice: return s.selfDeviceNs;
        case OpColumn::DeviceTotal: return s.deviceTotalNs;
        case OpColumn::TensorCore: return s.tensorCoreNs;
        case OpColumn::Name: break;
        }
        return 0;
    };
    std::stable_sort(ops.begin(), ops.end(), [&](const OpStats& a, const OpStats& b) {
        if (column == OpColumn::Name)
            return a.name < b.name;
        const int64_t va = value(a), vb = value(b);
        if (va != vb)
            return va > vb;
        return a.cpuTotalNs > b.cpuTotalNs;
    });
}

OpTables computeOpTables(const TraceModel& model, const RangeSet* within)
{
    const auto events = model.events();
    const size_t n = events.size();
    std::vector<int64_t> childCpu(n, 0), selfDevice(n, 0), deviceTotal(n, 0), tensorCore(n, 0);
    auto eligible = perName<bool>(model, isTensorCoreEligibleOp);
    auto onTensorCores = perName<bool>(model, isTensorCoreKernel);
    OpTables tables;

    for (size_t i = 0; i < n; ++i) {
        const Event& e = events[i];
        if (takesFromSelfCpu(e.category) && e.parent.valid() && model.event(e.parent).category == Category::CpuOp)
            childCpu[e.parent.value] += e.durationNs;
        if (e.category == Category::Kernel && (!within || contains(*within, e.startNs)))
            tables.kernelNs += e.durationNs;
        if (isDeviceWork(e.category) && e.op.valid()) {
            selfDevice[e.op.value] += e.durationNs;
            const bool tc = e.category == Category::Kernel && onTensorCores(e.name);
            bool inEligible = false;
            // The op and every CPU op it is nested in carry the time in their totals.
            for (EventId a = e.op; a.valid(); a = model.event(a).parent) {
                const Event& op = model.event(a);
                if (op.category != Category::CpuOp)
                    continue;
                deviceTotal[a.value] += e.durationNs;
                tensorCore[a.value] += tc ? e.durationNs : 0;
                inEligible = inEligible || eligible(op.name);
            }
            if (inEligible && e.category == Category::Kernel && (!within || contains(*within, e.startNs))) {
                tables.eligibleKernelNs += e.durationNs;
                tables.eligibleTensorCoreNs += tc ? e.durationNs : 0;
            }
        }
    }

    std::unordered_map<Key, OpStats, KeyHash> byName, byShapes;
    auto marker = perName<bool>(model, isMarkerSpan);
    bool anyShapes = false;
    for (size_t i = 0; i < n; ++i) {
        const Event& e = events[i];
        if (e.category != Category::CpuOp || (within && !contains(*within, e.startNs)) || marker(e.name))
            continue;
        const StringId shapes = model.inputShapes(EventId{static_cast<uint32_t>(i)});
        anyShapes |= shapes.valid();
        auto accumulate = [&](OpStats& s) {
            ++s.calls;
            s.cpuTotalNs += e.durationNs;
            s.selfCpuNs += std::max<int64_t>(0, e.durationNs - childCpu[i]);
            s.selfDeviceNs += selfDevice[i];
            s.deviceTotalNs += deviceTotal[i];
            s.tensorCoreNs += tensorCore[i];
        };
        accumulate(byName[Key{e.name.value, 0}]);
        accumulate(byShapes[Key{e.name.value, shapes.valid() ? shapes.value : 0}]);
    }

    for (auto& [key, stats] : byName) {
        stats.name = std::string(model.text(StringId{key.name}));
        stats.tensorCoreEligible = eligible(StringId{key.name});
        tables.byName.push_back(std::move(stats));
    }
    if (anyShapes) {
        for (auto& [key, stats] : byShapes) {
            stats.name = std::string(model.text(StringId{key.name}));
            stats.inputShapes = std::string(model.text(StringId{key.shapes}));
            stats.tensorCoreEligible = eligible(StringId{key.name});
            tables.byNameAndShapes.push_back(std::move(stats));
        }
    }
    sortOps(tables.byName, OpColumn::DeviceTotal);
    sortOps(tables.byNameAndShapes, OpColumn::DeviceTotal);
    return tables;
}

}  // namespace kinetoscope::analysis
