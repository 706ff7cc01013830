#include "core/timeline/selection.h"

#include <algorithm>
#include <unordered_map>

namespace kinetoscope::timeline {

using trace::EventId;

std::vector<FlowLink> linksOf(const trace::TraceModel& model, EventId event, size_t limit)
{
    std::vector<FlowLink> links;
    if (!event.valid())
        return links;
    auto addLaunch = [&](EventId launch) {
        for (EventId activity : model.activitiesLaunchedBy(launch)) {
            if (links.size() >= limit)
                return;
            links.push_back({launch, activity});
        }
    };
    const trace::Event& e = model.event(event);
    if (trace::isGpuActivity(e.category)) {
        if (e.correlated.valid())
            links.push_back({e.correlated, event});
    } else if (trace::isLaunchCall(e.category)) {
        addLaunch(event);
    } else {
        for (EventId launch : model.launchCallsOf(event))
            addLaunch(launch);
    }
    std::stable_sort(links.begin(), links.end(), [&](const FlowLink& a, const FlowLink& b) {
        return model.event(a.to).startNs < model.event(b.to).startNs;
    });
    return links;
}

RangeTotals totalsInRange(const TimelineIndex& index, int64_t beginNs, int64_t endNs,
                          uint32_t firstLane, uint32_t lastLane)
{
    RangeTotals totals;
    totals.beginNs = beginNs;
    totals.endNs = endNs;
    const trace::TraceModel& model = index.model();
    const auto events = model.events();
    std::unordered_map<uint32_t, size_t> rowOfName;  // StringId -> byName index
    lastLane = std::min<uint32_t>(lastLane, uint32_t(index.lanes().size()));
    for (uint32_t l = firstLane; l < lastLane; ++l) {
        const Lane& lane = index.lanes()[l];
        // Same window search as the draw list: first event ending after beginNs, up to the
        // last starting before endNs.
        size_t i = size_t(std::upper_bound(lane.maxEndNs.begin(), lane.maxEndNs.end(), beginNs) -
                          lane.maxEndNs.begin());
        for (; i < lane.events.size(); ++i) {
            const trace::Event& e = events[lane.events[i].value];
            if (e.startNs >= endNs)
                break;
            if (e.endNs() <= beginNs)
                continue;  // ended before the range (maxEndNs only bounds the earlier ones)
            const int64_t clipped = std::min(e.endNs(), endNs) - std::max(e.startNs, beginNs);
            auto [it, added] = rowOfName.try_emplace(e.name.value, totals.byName.size());
            if (added)
                totals.byName.push_back({std::string(model.text(e.name)), e.category, 0, 0});
            RangeTotalsRow& row = totals.byName[it->second];
            ++row.count;
            row.totalNs += std::max<int64_t>(0, clipped);
            ++totals.slices;
            totals.totalNs += std::max<int64_t>(0, clipped);
        }
    }
    std::stable_sort(
        totals.byName.begin(), totals.byName.end(),
        [](const RangeTotalsRow& a, const RangeTotalsRow& b) { return a.totalNs > b.totalNs; });
    return totals;
}

}  // namespace kinetoscope::timeline
