#include "core/timeline/track_layout.h"

#include <algorithm>

namespace kinetoscope::timeline {

namespace {

std::string groupKeyOf(const trace::Track& t)
{
    switch (t.kind) {
    case trace::TrackKind::CpuThread:
        return "cpu:" + std::to_string(t.pid);
    case trace::TrackKind::GpuStream:
        return "gpu:" + std::to_string(t.pid);
    case trace::TrackKind::Other:
        return "other:" + std::to_string(t.pid);
    }
    return {};
}

std::string groupLabelOf(const trace::TraceModel& model, const trace::Track& t)
{
    const std::string pid =
        t.pidLabel.valid() ? std::string(model.text(t.pidLabel)) : std::to_string(t.pid);
    if (t.kind == trace::TrackKind::GpuStream)
        return t.processLabel.valid() ? std::string(model.text(t.processLabel)) : "GPU " + pid;
    std::string label = t.pidLabel.valid() ? pid : "Process " + pid;
    if (t.processName.valid() && model.text(t.processName) != label)
        label += " (" + std::string(model.text(t.processName)) + ")";
    return label;
}

GroupRole roleOf(const trace::TraceModel& model, const trace::Track& t, trace::TrackId lead)
{
    switch (t.kind) {
    case trace::TrackKind::GpuStream:
        return GroupRole::Device;
    case trace::TrackKind::CpuThread:
        return lead.valid() && model.track(lead).pid == t.pid ? GroupRole::LeadProcess
                                                              : GroupRole::Process;
    case trace::TrackKind::Other:
        return GroupRole::Other;
    }
    return GroupRole::Other;
}

}  // namespace

const char* groupRoleName(GroupRole role)
{
    switch (role) {
    case GroupRole::Device:
        return "device";
    case GroupRole::LeadProcess:
        return "lead-process";
    case GroupRole::Process:
        return "process";
    case GroupRole::Other:
        return "other";
    }
    return "other";
}

TrackLayout::TrackLayout(const TimelineIndex& index, const std::vector<CounterTrack>& counters,
                         std::vector<FrameFold> folds)
    : m_index(index)
{
    const trace::TraceModel& model = index.model();
    const auto& lanes = index.lanes();
    // Lanes come grouped by kind and process already (TimelineIndex's order).
    for (uint32_t l = 0; l < lanes.size(); ++l) {
        const trace::Track& track = model.track(lanes[l].track);
        const std::string key = groupKeyOf(track);
        if (m_groups.empty() || m_groups.back().key != key)
            m_groups.push_back({key,
                                groupLabelOf(model, track),
                                l,
                                l,
                                {},
                                false,
                                roleOf(model, track, index.leadThread())});
        m_groups.back().lastLane = l + 1;
    }
    m_foldStartingAt.assign(lanes.size(), -1);
    for (FrameFold& fold : folds)
        if (fold.firstLane < fold.lastLane && fold.lastLane <= lanes.size()) {
            m_foldStartingAt[fold.firstLane] = int32_t(m_folds.size());
            m_folds.push_back({std::move(fold), false});
        }
    for (uint32_t c = 0; c < counters.size(); ++c) {
        const std::string& key = counters[c].groupKey;
        // "cpu" (host memory, CPU utilisation) goes with the first process.
        auto it = std::find_if(m_groups.begin(), m_groups.end(), [&](const TrackGroup& g) {
            return g.key == key || (key == "cpu" && g.key.rfind("cpu:", 0) == 0);
        });
        if (it == m_groups.end()) {
            const uint32_t end = uint32_t(lanes.size());
            const bool host = key == "cpu";
            m_groups.push_back({key,
                                host ? "Host" : "GPU " + key.substr(key.find(':') + 1),
                                end,
                                end,
                                {},
                                false,
                                host ? GroupRole::Other : GroupRole::Device});
            it = m_groups.end() - 1;
        }
        it->counters.push_back(c);
    }
    relayout();
}

void TrackLayout::setCollapsed(uint32_t group, bool collapsed)
{
    if (group < m_groups.size() && m_groups[group].collapsed != collapsed) {
        m_groups[group].collapsed = collapsed;
        relayout();
    }
}

void TrackLayout::setExpanded(uint32_t fold, bool expanded)
{
    if (fold < m_folds.size() && m_folds[fold].expanded != expanded) {
        m_folds[fold].expanded = expanded;
        relayout();
    }
}

std::pair<uint32_t, uint32_t> TrackLayout::lanesOf(const LayoutRow& row) const
{
    if (row.kind == RowKind::Lane)
        return {row.index, row.index + 1};
    if (row.kind == RowKind::Fold && !m_folds[row.index].expanded)
        return {m_folds[row.index].firstLane, m_folds[row.index].lastLane};
    return {0, 0};
}

void TrackLayout::relayout()
{
    m_rows.clear();
    m_laneY.assign(m_index.lanes().size(), -1);
    int y = 0;
    for (uint32_t g = 0; g < m_groups.size(); ++g) {
        const TrackGroup& group = m_groups[g];
        m_rows.push_back({RowKind::Group, y, kGroupHeight, g});
        y += kGroupHeight;
        if (group.collapsed)
            continue;
        for (uint32_t l = group.firstLane; l < group.lastLane; ++l) {
            if (const int32_t f = m_foldStartingAt[l]; f >= 0) {
                const LayoutFold& fold = m_folds[size_t(f)];
                m_rows.push_back({RowKind::Fold, y, kLaneHeight, uint32_t(f)});
                if (!fold.expanded) {
                    for (uint32_t folded = fold.firstLane; folded < fold.lastLane; ++folded)
                        m_laneY[folded] = y;
                    y += kLaneHeight;
                    l = fold.lastLane - 1;
                    continue;
                }
                y += kLaneHeight;
            }
            m_laneY[l] = y;
            m_rows.push_back({RowKind::Lane, y, kLaneHeight, l});
            y += kLaneHeight;
        }
        for (uint32_t c : group.counters) {
            m_rows.push_back({RowKind::Counter, y, kCounterHeight, c});
            y += kCounterHeight;
        }
    }
    m_height = y;
}

const LayoutRow* TrackLayout::rowAt(int y) const
{
    auto it = std::upper_bound(m_rows.begin(), m_rows.end(), y,
                               [](int v, const LayoutRow& r) { return v < r.y; });
    if (it == m_rows.begin())
        return nullptr;
    --it;
    return y < it->y + it->height ? &*it : nullptr;
}

std::pair<uint32_t, uint32_t> TrackLayout::lanesIn(int y0, int y1) const
{
    uint32_t first = UINT32_MAX, last = 0;
    auto it = std::upper_bound(m_rows.begin(), m_rows.end(), y0,
                               [](int v, const LayoutRow& r) { return v < r.y; });
    if (it != m_rows.begin())
        --it;
    for (; it != m_rows.end() && it->y < y1; ++it) {
        const auto [a, b] = lanesOf(*it);
        if (a == b || it->y + it->height <= y0)
            continue;
        first = std::min(first, a);
        last = std::max(last, b);
    }
    return first == UINT32_MAX ? std::pair<uint32_t, uint32_t>{0, 0} : std::pair{first, last};
}

std::string TrackLayout::laneLabel(uint32_t lane) const
{
    const Lane& l = m_index.lanes()[lane];
    if (l.overlapRow > 0)
        return "\u21B3 overlapping";
    if (l.depth > 0)
        return {};
    const trace::TraceModel& model = m_index.model();
    const trace::Track& t = model.track(l.track);
    const std::string tid =
        t.tidLabel.valid() ? std::string(model.text(t.tidLabel)) : std::to_string(t.tid);
    if (t.kind == trace::TrackKind::GpuStream)
        return t.tidLabel.valid() ? tid : "Stream " + tid;
    // Kineto's thread names already say the id ("thread 25738 (python)").
    if (t.name.valid() && !model.text(t.name).empty())
        return std::string(model.text(t.name));
    return t.tidLabel.valid() ? tid : "Thread " + tid;
}

}  // namespace kinetoscope::timeline
