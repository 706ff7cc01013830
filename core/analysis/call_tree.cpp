#include "core/analysis/call_tree.h"

#include "core/analysis/heaviest_first.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace kinetoscope::analysis {

using namespace kinetoscope::trace;

namespace {

// The key that stands for every ProfilerStep#N.
constexpr uint32_t kFoldedStep = std::numeric_limits<uint32_t>::max();

bool isFrame(Category c)
{
    return c == Category::PythonFunction || c == Category::CpuOp || c == Category::UserAnnotation;
}

std::string threadName(const TraceModel& model, const Track& track)
{
    const std::string_view name = track.name.valid() ? model.text(track.name) : std::string_view();
    const std::string tid = track.tidLabel.valid() ? std::string(model.text(track.tidLabel))
                                                   : std::to_string(track.tid);
    return name.empty() ? "thread " + tid : std::string(name) + " (" + tid + ")";
}

}  // namespace

CallTree computeCallTree(const TraceModel& model)
{
    CallTree tree;
    tree.nodes.emplace_back();
    tree.nodes[0].name = "all threads";
    std::vector<std::unordered_map<uint32_t, int32_t>> childByName(1);
    auto childOf = [&](int32_t parent, uint32_t key, std::string_view name, Category category) {
        const auto [it, added] =
            childByName[parent].try_emplace(key, static_cast<int32_t>(tree.nodes.size()));
        const int32_t index = it->second;  // read before childByName grows
        if (added) {
            CallNode node;
            node.name = std::string(name);
            node.category = category;
            node.parent = parent;
            tree.nodes.push_back(std::move(node));
            childByName.emplace_back();
        }
        return index;
    };

    // nodeOf: the node of an event's innermost frame (itself, when it is one), or its
    // thread's node. On a track a parent precedes its children, so one pass suffices.
    const auto events = model.events();
    std::vector<int32_t> nodeOf(events.size(), -1);
    const auto tracks = model.tracks();
    for (size_t t = 0; t < tracks.size(); ++t) {
        const Track& track = tracks[t];
        if (track.kind != TrackKind::CpuThread)
            continue;
        int32_t thread = -1;
        for (uint32_t i = track.firstEvent; i < track.firstEvent + track.eventCount; ++i) {
            const Event& e = events[i];
            if (!isFrame(e.category) && thread < 0)
                continue;  // a thread with only runtime calls gets a node at its first frame
            if (thread < 0)
                thread =
                    childOf(0, std::numeric_limits<uint32_t>::max() - 1 - static_cast<uint32_t>(t),
                            threadName(model, track), Category::Other);
            const int32_t above =
                e.parent.valid() && nodeOf[e.parent.value] >= 0 ? nodeOf[e.parent.value] : thread;
            if (!isFrame(e.category)) {
                nodeOf[i] = above;
                continue;
            }
            const std::string_view name = model.text(e.name);
            const bool step = name.starts_with("ProfilerStep#");
            const int32_t node = childOf(above, step ? kFoldedStep : e.name.value,
                                         step ? "ProfilerStep#*" : name, e.category);
            nodeOf[i] = node;
            ++tree.nodes[node].calls;
            tree.nodes[node].hostNs += e.durationNs;
            if (above == thread)
                tree.nodes[thread].hostNs += e.durationNs;
            tree.hasPythonFrames |= e.category == Category::PythonFunction;
        }
    }

    for (const Event& e : events) {
        if (!isDeviceWork(e.category))
            continue;
        const EventId launch = e.correlated.valid() ? e.correlated : e.op;
        if (launch.valid() && nodeOf[launch.value] >= 0)
            tree.nodes[nodeOf[launch.value]].deviceSelfNs += e.durationNs;
    }
    // Children were created after their parents: a reverse pass sums the inclusive times.
    for (CallNode& node : tree.nodes)
        node.deviceNs += node.deviceSelfNs;
    for (size_t k = tree.nodes.size(); k-- > 1;) {
        CallNode& node = tree.nodes[k];
        tree.nodes[node.parent].deviceNs += node.deviceNs;
        tree.nodes[node.parent].children.push_back(static_cast<int32_t>(k));
        if (node.parent == 0)
            tree.nodes[0].hostNs += node.hostNs;
    }
    for (CallNode& node : tree.nodes)
        sortHeaviestFirst(node.children, tree.nodes, &CallNode::deviceNs, &CallNode::hostNs);
    return tree;
}

}  // namespace kinetoscope::analysis
