#include "core/analysis/op_table.h"

#include "core/analysis/op_nesting.h"
#include "core/analysis/tensor_cores.h"
#include "core/trace/name_cache.h"

#include <algorithm>
#include <array>
#include <unordered_map>

namespace kinetoscope::analysis {

using namespace kinetoscope::trace;

namespace {

// What an op's self CPU time leaves out when it runs inside the op on its thread (Python
// frames between them or not): nested ops, record_function ranges and the runtime and driver
// calls the op made (launches, copies, allocations), as torch's self_cpu_time_total and the
// TensorBoard plugin count.
bool takesFromSelfCpu(Category c)
{
    return c == Category::CpuOp || c == Category::UserAnnotation || c == Category::Runtime ||
           c == Category::Driver;
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

// An op's name and its innermost Python frames (name ids; 0 past the outermost).
struct StackKey
{
    uint32_t name = 0;
    std::array<uint32_t, kStackFrames> frames{};
    bool operator==(const StackKey&) const = default;
};
struct StackKeyHash
{
    size_t operator()(const StackKey& k) const noexcept
    {
        size_t h = k.name;
        for (uint32_t f : k.frames)
            h = h * 1000003u ^ f;
        return h;
    }
};
struct StackGroup
{
    OpStats stats;
    uint32_t sourceLine = 0;  // name id of the innermost user frame; 0: none
};

// Frames above this many are not searched for the user's line (deep recursion).
constexpr int kMaxFrameWalk = 256;

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
        case OpColumn::Calls:
            return s.calls;
        case OpColumn::SelfCpu:
            return s.selfCpuNs;
        case OpColumn::CpuTotal:
            return s.cpuTotalNs;
        case OpColumn::SelfDevice:
            return s.selfDeviceNs;
        case OpColumn::DeviceTotal:
            return s.deviceTotalNs;
        case OpColumn::TensorCore:
            return s.tensorCoreNs;
        case OpColumn::Name:
            break;
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

    EnclosingEvent enclosing(model, {Category::PythonFunction});
    for (size_t i = 0; i < n; ++i) {
        const Event& e = events[i];
        if (takesFromSelfCpu(e.category)) {
            const EventId owner = enclosing.of(e);
            if (owner.valid() && model.event(owner).category == Category::CpuOp)
                childCpu[owner.value] += e.durationNs;
        }
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
            if (inEligible && e.category == Category::Kernel &&
                (!within || contains(*within, e.startNs))) {
                tables.eligibleKernelNs += e.durationNs;
                tables.eligibleTensorCoreNs += tc ? e.durationNs : 0;
            }
        }
    }

    std::unordered_map<Key, OpStats, KeyHash> byName, byShapes;
    std::unordered_map<StackKey, StackGroup, StackKeyHash> byStack;
    auto marker = perName<bool>(model, isMarkerSpan);
    auto userFrame = perName<bool>(model, isUserFrame);
    bool anyShapes = false, anyFrames = false;
    for (size_t i = 0; i < n; ++i) {
        const Event& e = events[i];
        if (e.category != Category::CpuOp || (within && !contains(*within, e.startNs)) ||
            marker(e.name))
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
        // The Python frames around it, innermost first, and the innermost user frame.
        StackKey stack{e.name.value, {}};
        size_t frames = 0;
        uint32_t sourceLine = 0;
        int walked = 0;
        for (EventId a = e.parent;
             a.valid() && walked < kMaxFrameWalk && (frames < kStackFrames || !sourceLine);
             a = model.event(a).parent, ++walked) {
            const Event& frame = model.event(a);
            if (frame.category != Category::PythonFunction)
                continue;
            if (frames < kStackFrames)
                stack.frames[frames++] = frame.name.value;
            if (!sourceLine && userFrame(frame.name))
                sourceLine = frame.name.value;
        }
        anyFrames |= frames > 0;
        StackGroup& group = byStack[stack];  // ops with no frame around them: one group per name
        accumulate(group.stats);
        group.sourceLine = group.sourceLine ? group.sourceLine : sourceLine;
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
    if (anyFrames) {
        for (auto& [key, group] : byStack) {
            OpStats& stats = group.stats;
            stats.name = std::string(model.text(StringId{key.name}));
            stats.tensorCoreEligible = eligible(StringId{key.name});
            for (uint32_t frame : key.frames)
                if (frame)
                    stats.stack.emplace_back(model.text(StringId{frame}));
            if (group.sourceLine)
                stats.sourceLine = std::string(model.text(StringId{group.sourceLine}));
            tables.byNameAndStack.push_back(std::move(stats));
        }
    }
    sortOps(tables.byName, OpColumn::DeviceTotal);
    sortOps(tables.byNameAndStack, OpColumn::DeviceTotal);
    sortOps(tables.byNameAndShapes, OpColumn::DeviceTotal);
    return tables;
}

}  // namespace kinetoscope::analysis
