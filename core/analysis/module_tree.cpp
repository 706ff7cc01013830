#include "core/analysis/module_tree.h"

#include "core/analysis/heaviest_first.h"
#include "core/trace/name_cache.h"

#include <algorithm>
#include <unordered_map>

namespace kinetoscope::analysis {

using namespace kinetoscope::trace;

namespace {

constexpr std::string_view kModulePrefix = "nn.Module: ";
constexpr size_t kMaxPathChars = 1024;

// A node while the tree is built: its children by module name, the per-name tallies.
struct Building
{
    uint32_t name = 0;
    int32_t parent = -1;
    std::unordered_map<uint32_t, int32_t> childByName;
    int64_t calls = 0, hostTotalNs = 0, childSpansNs = 0, deviceSelfNs = 0;
    std::unordered_map<uint32_t, NamedTime> ops;      // by op name
    std::unordered_map<uint32_t, NamedTime> kernels;  // by activity name
};

std::vector<NamedTime> sortedByTime(std::unordered_map<uint32_t, NamedTime>& byName,
                                    const TraceModel& model)
{
    std::vector<NamedTime> rows;
    rows.reserve(byName.size());
    for (auto& [name, row] : byName) {
        row.name = std::string(model.text(StringId{name}));
        rows.push_back(std::move(row));
    }
    std::sort(rows.begin(), rows.end(), [](const NamedTime& a, const NamedTime& b) {
        if (a.deviceNs != b.deviceNs)
            return a.deviceNs > b.deviceNs;
        if (a.hostNs != b.hostNs)
            return a.hostNs > b.hostNs;
        return a.name < b.name;
    });
    return rows;
}

}  // namespace

bool isModuleSpanName(std::string_view name)
{
    return name.starts_with(kModulePrefix) && name.size() > kModulePrefix.size();
}

ModuleTree computeModuleTree(const TraceModel& model)
{
    const auto events = model.events();
    const size_t n = events.size();
    ModuleTree tree;
    auto isModule = perName<bool>(model, isModuleSpanName);

    // Per event, in index order (on a track a parent precedes its children):
    // moduleOf: the innermost module span at or above it (-1: none); nodeOf: a module
    // span's node; topOpOf: its outermost CPU op below that module (-1: none).
    std::vector<int32_t> moduleOf(n, -1), nodeOf(n, -1), topOpOf(n, -1);
    std::vector<Building> nodes;
    std::unordered_map<uint32_t, int32_t> rootByName;
    for (size_t i = 0; i < n; ++i) {
        const Event& e = events[i];
        if (model.track(e.track).kind != TrackKind::CpuThread)
            continue;
        const int32_t parent = e.parent.valid() ? static_cast<int32_t>(e.parent.value) : -1;
        const bool module = e.category == Category::PythonFunction && isModule(e.name);
        if (!module) {
            moduleOf[i] = parent >= 0 ? moduleOf[parent] : -1;
            const int32_t above = parent >= 0 ? topOpOf[parent] : -1;
            topOpOf[i] =
                above >= 0 ? above : (e.category == Category::CpuOp ? static_cast<int32_t>(i) : -1);
            continue;
        }
        ++tree.moduleSpans;
        moduleOf[i] = static_cast<int32_t>(i);
        const int32_t outer = parent >= 0 ? moduleOf[parent] : -1;
        const int32_t parentNode = outer >= 0 ? nodeOf[outer] : -1;
        auto& siblings = parentNode >= 0 ? nodes[parentNode].childByName : rootByName;
        const auto [it, added] =
            siblings.try_emplace(e.name.value, static_cast<int32_t>(nodes.size()));
        const int32_t node = it->second;  // read before `nodes`, which may own `siblings`, grows
        if (added) {
            nodes.emplace_back();
            nodes.back().name = e.name.value;
            nodes.back().parent = parentNode;
        }
        nodeOf[i] = node;
        ++nodes[node].calls;
        nodes[node].hostTotalNs += e.durationNs;
        if (parentNode >= 0)
            nodes[parentNode].childSpansNs += e.durationNs;
    }

    // The outermost ops of each module, with the device time launched under them.
    std::unordered_map<int32_t, int64_t> deviceUnderOp;
    for (size_t i = 0; i < n; ++i) {
        const Event& e = events[i];
        if (!isDeviceWork(e.category))
            continue;
        tree.deviceNs += e.durationNs;
        const EventId launch = e.correlated.valid() ? e.correlated : e.op;
        if (!launch.valid() || moduleOf[launch.value] < 0)
            continue;
        tree.deviceInModulesNs += e.durationNs;
        Building& node = nodes[nodeOf[moduleOf[launch.value]]];
        node.deviceSelfNs += e.durationNs;
        NamedTime& kernel = node.kernels[e.name.value];
        ++kernel.calls;
        kernel.deviceNs += e.durationNs;
        if (topOpOf[launch.value] >= 0)
            deviceUnderOp[topOpOf[launch.value]] += e.durationNs;
    }
    for (size_t i = 0; i < n; ++i) {
        if (topOpOf[i] != static_cast<int32_t>(i) || moduleOf[i] < 0)
            continue;
        NamedTime& op = nodes[nodeOf[moduleOf[i]]].ops[events[i].name.value];
        ++op.calls;
        op.hostNs += events[i].durationNs;
        const auto device = deviceUnderOp.find(static_cast<int32_t>(i));
        op.deviceNs += device == deviceUnderOp.end() ? 0 : device->second;
    }

    // Inclusive device time: children were created after their parents, so a reverse
    // pass adds each node's total into its parent's.
    std::vector<int64_t> deviceTotal(nodes.size());
    for (size_t k = 0; k < nodes.size(); ++k)
        deviceTotal[k] = nodes[k].deviceSelfNs;
    for (size_t k = nodes.size(); k-- > 0;)
        if (nodes[k].parent >= 0)
            deviceTotal[nodes[k].parent] += deviceTotal[k];

    tree.nodes.resize(nodes.size());
    for (size_t k = 0; k < nodes.size(); ++k) {
        Building& b = nodes[k];
        ModuleNode& m = tree.nodes[k];
        m.name = std::string(model.text(StringId{b.name}).substr(kModulePrefix.size()));
        // A path stays readable and bounded however deep a (malformed) nesting goes.
        const std::string& above = b.parent >= 0 ? tree.nodes[b.parent].path : std::string();
        m.path = above.empty()                  ? m.name
                 : above.size() < kMaxPathChars ? above + "/" + m.name
                                                : ".../" + m.name;
        m.parent = b.parent;
        m.calls = b.calls;
        m.hostTotalNs = b.hostTotalNs;
        m.hostSelfNs = std::max<int64_t>(0, b.hostTotalNs - b.childSpansNs);
        m.deviceSelfNs = b.deviceSelfNs;
        m.deviceTotalNs = deviceTotal[k];
        m.ops = sortedByTime(b.ops, model);
        m.kernels = sortedByTime(b.kernels, model);
        (b.parent >= 0 ? tree.nodes[b.parent].children : tree.roots)
            .push_back(static_cast<int32_t>(k));
    }
    sortHeaviestFirst(tree.roots, tree.nodes, &ModuleNode::deviceTotalNs, &ModuleNode::hostTotalNs);
    for (ModuleNode& m : tree.nodes)
        sortHeaviestFirst(m.children, tree.nodes, &ModuleNode::deviceTotalNs,
                          &ModuleNode::hostTotalNs);
    return tree;
}

}  // namespace kinetoscope::analysis
