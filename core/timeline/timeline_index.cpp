#include "core/timeline/timeline_index.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>

namespace kinetoscope::timeline {

using trace::EventId;
using trace::TrackId;

namespace {

// CPU threads first, then GPU devices with their streams, then the rest; within a group
// by process, sort index and thread/stream.
int groupOf(trace::TrackKind kind)
{
    switch (kind) {
    case trace::TrackKind::CpuThread: return 0;
    case trace::TrackKind::GpuStream: return 1;
    case trace::TrackKind::Other: return 2;
    }
    return 2;
}

}  // namespace

TimelineIndex::TimelineIndex(const trace::TraceModel& model) : m_model(model)
{
    const auto tracks = model.tracks();
    std::vector<uint32_t> order(tracks.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        const trace::Track &x = tracks[a], &y = tracks[b];
        return std::tuple(groupOf(x.kind), x.pid, x.sortIndex, x.tid) < std::tuple(groupOf(y.kind), y.pid, y.sortIndex, y.tid);
    });
    m_firstLaneOfTrack.assign(tracks.size(), 0);
    for (uint32_t t : order) {
        const trace::Track& track = tracks[t];
        m_firstLaneOfTrack[t] = uint32_t(m_lanes.size());
        const size_t first = m_lanes.size();
        for (uint16_t d = 0; d <= track.maxDepth; ++d)
            m_lanes.push_back(Lane{TrackId{t}, d, {}, {}});
        for (uint32_t e = track.firstEvent; e < track.firstEvent + track.eventCount; ++e) {
            const trace::Event& event = model.events()[e];
            Lane& lane = m_lanes[first + std::min<uint16_t>(event.depth, track.maxDepth)];
            const int64_t end = event.endNs();
            lane.maxEndNs.push_back(lane.maxEndNs.empty() ? end : std::max(lane.maxEndNs.back(), end));
            lane.events.push_back(EventId{e});
        }
    }
    for (Lane& lane : m_lanes) {
        lane.events.shrink_to_fit();
        lane.maxEndNs.shrink_to_fit();
    }
}

size_t TimelineIndex::memoryBytes() const
{
    size_t bytes = m_lanes.capacity() * sizeof(Lane) + m_firstLaneOfTrack.capacity() * sizeof(uint32_t);
    for (const Lane& lane : m_lanes)
        bytes += lane.events.capacity() * sizeof(EventId) + lane.maxEndNs.capacity() * sizeof(int64_t);
    return bytes;
}

void TimelineIndex::buildDrawList(const Viewport& view, float minPx, std::vector<DrawItem>& out, uint32_t firstLane,
                                  uint32_t lastLane) const
{
    const auto events = m_model.events();
    const int64_t windowBegin = view.beginNs, windowEnd = view.endNs();
    const double minNs = double(minPx) * view.nsPerPixel;
    const float width = float(view.widthPx);
    auto clip = [&](double x) { return float(std::clamp(x, -1.0, double(width) + 1.0)); };
    lastLane = std::min<uint32_t>(lastLane, uint32_t(m_lanes.size()));
    for (uint32_t l = firstLane; l < lastLane; ++l) {
        const Lane& lane = m_lanes[l];
        // The first event ending after windowBegin: every event before it ends at or
        // before the window's left edge (maxEndNs is a running maximum).
        size_t i = size_t(std::upper_bound(lane.maxEndNs.begin(), lane.maxEndNs.end(), windowBegin) - lane.maxEndNs.begin());
        // One past the last event starting at or before the window's right edge.
        const auto stopIt = std::upper_bound(lane.events.begin(), lane.events.end(), windowEnd,
                                             [&](int64_t t, EventId id) { return t < events[id.value].startNs; });
        const size_t stop = size_t(stopIt - lane.events.begin());
        while (i < stop) {
            const trace::Event& e = events[lane.events[i].value];
            const double x0 = view.xOf(e.startNs), x1 = view.xOf(e.endNs());
            if (x1 - x0 >= minPx) {
                out.push_back({clip(x0), clip(x1), l, lane.events[i], 1});
                ++i;
                continue;
            }
            // Fold: every following slice starting within minPx of this one joins the run.
            const int64_t foldUntil = e.startNs + int64_t(std::ceil(minNs));
            size_t j = size_t(std::lower_bound(lane.events.begin() + std::ptrdiff_t(i) + 1, stopIt, foldUntil,
                                               [&](EventId id, int64_t t) { return events[id.value].startNs < t; }) -
                              lane.events.begin());
            const double runEnd = view.xOf(lane.maxEndNs[j - 1]);
            out.push_back({clip(x0), clip(std::max(runEnd, x0 + minPx)), l, lane.events[i], uint32_t(j - i)});
            i = j;
        }
    }
}

EventId TimelineIndex::hitTest(uint32_t laneIndex, const Viewport& view, double x, double tolerancePx) const
{
    if (laneIndex >= m_lanes.size())
        return {};
    const Lane& lane = m_lanes[laneIndex];
    const auto events = m_model.events();
    // Offsets from the left edge in (fractional) ns: a 1 ns slice spans its pixels
    // [start, end) however far the zoom goes, at any distance from the epoch.
    const double at = x * view.nsPerPixel, slack = tolerancePx * view.nsPerPixel;
    const int64_t latestStart = view.beginNs + int64_t(std::floor(at + slack));
    auto last = std::upper_bound(lane.events.begin(), lane.events.end(), latestStart,
                                 [&](int64_t time, EventId id) { return time < events[id.value].startNs; });
    EventId best;
    double bestDistance = slack;
    for (auto it = last; it != lane.events.begin();) {
        --it;
        if (double(lane.maxEndNs[size_t(it - lane.events.begin())] - view.beginNs) < at - slack)
            break;  // nothing at or before here reaches the cursor
        const trace::Event& e = events[it->value];
        const double start = double(e.startNs - view.beginNs), end = double(e.endNs() - view.beginNs);
        const double distance = at < start ? start - at : (at >= end ? at - end : 0.0);
        if (distance <= bestDistance && (!best || distance < bestDistance)) {
            best = *it;
            bestDistance = distance;
            if (distance == 0.0)
                break;
        }
    }
    return best;
}

uint32_t TimelineIndex::laneOf(EventId event) const
{
    const trace::Event& e = m_model.event(event);
    return m_firstLaneOfTrack.at(e.track.value) + std::min<uint16_t>(e.depth, m_model.track(e.track).maxDepth);
}

std::vector<EventId> searchByName(const trace::TraceModel& model, std::string_view query)
{
    std::vector<EventId> matches;
    if (query.empty())
        return matches;
    auto lower = [](char c) { return char(std::tolower(static_cast<unsigned char>(c))); };
    std::string needle(query);
    std::transform(needle.begin(), needle.end(), needle.begin(), lower);
    // Match each distinct name once, then collect the events carrying a matching name.
    std::vector<int8_t> nameMatches;  // by string id: -1 unknown, 0 no, 1 yes
    const auto events = model.events();
    for (uint32_t i = 0; i < events.size(); ++i) {
        const uint32_t name = events[i].name.value;
        if (name >= nameMatches.size())
            nameMatches.resize(size_t(name) + 1, -1);
        if (nameMatches[name] < 0) {
            std::string text(model.text(events[i].name));
            std::transform(text.begin(), text.end(), text.begin(), lower);
            nameMatches[name] = text.find(needle) != std::string::npos ? 1 : 0;
        }
        if (nameMatches[name] == 1)
            matches.push_back(EventId{i});
    }
    std::stable_sort(matches.begin(), matches.end(),
                     [&](EventId a, EventId b) { return events[a.value].startNs < events[b.value].startNs; });
    return matches;
}

EventId nextMatch(const trace::TraceModel& model, const std::vector<EventId>& matches, int64_t timeNs, bool forward)
{
    if (matches.empty())
        return {};
    const auto events = model.events();
    if (forward) {
        auto it = std::upper_bound(matches.begin(), matches.end(), timeNs,
                                   [&](int64_t t, EventId id) { return t < events[id.value].startNs; });
        return it == matches.end() ? matches.front() : *it;
    }
    auto it = std::lower_bound(matches.begin(), matches.end(), timeNs,
                               [&](EventId id, int64_t t) { return events[id.value].startNs < t; });
    return it == matches.begin() ? matches.back() : *(it - 1);
}

}  // namespace kinetoscope::timeline
