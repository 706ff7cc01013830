#include "core/timeline/timeline_index.h"

#include "core/analysis/breakdown.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <numeric>

namespace kinetoscope::timeline {

using trace::EventId;
using trace::TrackId;

namespace {

// Devices first (what the step waits on), then CPU threads, then the rest.
int groupOf(trace::TrackKind kind)
{
    switch (kind) {
    case trace::TrackKind::GpuStream:
        return 0;
    case trace::TrackKind::CpuThread:
        return 1;
    case trace::TrackKind::Other:
        return 2;
    }
    return 2;
}

// More rows than this at one depth is a pathological file, not a trace: the rest share
// the last row, so laying out stays O(events x kMaxOverlapRows).
constexpr uint16_t kMaxOverlapRows = 64;

// Each event's row within its depth: the first whose last event has ended by its start.
std::vector<uint16_t> overlapRowsOf(const trace::TraceModel& model, const trace::Track& track,
                                    std::vector<uint16_t>& rowsPerDepth)
{
    std::vector<std::vector<int64_t>> rowEnds(size_t(track.maxDepth) + 1);
    std::vector<uint16_t> rows(track.eventCount, 0);
    for (uint32_t i = 0; i < track.eventCount; ++i) {
        const trace::Event& e = model.events()[track.firstEvent + i];
        std::vector<int64_t>& ends = rowEnds[std::min<uint16_t>(e.depth, track.maxDepth)];
        size_t row = 0;
        while (row < ends.size() && ends[row] > e.startNs)
            ++row;
        if (row == ends.size()) {
            if (ends.size() < kMaxOverlapRows)
                ends.push_back(e.endNs());
            else
                row = ends.size() - 1;
        }
        ends[row] = std::max(ends[row], e.endNs());
        rows[i] = uint16_t(row);
    }
    rowsPerDepth.resize(rowEnds.size());
    for (size_t d = 0; d < rowEnds.size(); ++d)
        rowsPerDepth[d] = uint16_t(std::max<size_t>(1, rowEnds[d].size()));
    return rows;
}

}  // namespace

TimelineIndex::TimelineIndex(const trace::TraceModel& model, TrackId leadThread)
    : m_model(model), m_leadThread(leadThread)
{
    const auto tracks = model.tracks();
    const bool lead = leadThread.valid() && leadThread.value < tracks.size();
    const int64_t leadPid = lead ? tracks[leadThread.value].pid : 0;
    std::vector<uint32_t> order(tracks.size());
    std::iota(order.begin(), order.end(), 0u);
    auto key = [&](uint32_t t) {
        const trace::Track& x = tracks[t];
        const bool cpu = x.kind == trace::TrackKind::CpuThread;
        const int leadProcess = lead && cpu && x.pid == leadPid ? 0 : 1;
        const int leadTrack = lead && t == leadThread.value ? 0 : 1;
        return std::tuple(groupOf(x.kind), leadProcess, x.pid, leadTrack, x.sortIndex, x.tid);
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
    m_firstDepthOfTrack.assign(tracks.size(), 0);
    std::vector<uint16_t> rowsPerDepth;
    std::vector<uint32_t> firstLaneOfDepth;
    for (uint32_t t : order) {
        const trace::Track& track = tracks[t];
        const std::vector<uint16_t> rows = overlapRowsOf(model, track, rowsPerDepth);
        m_firstDepthOfTrack[t] = uint32_t(m_depthLanes.size());
        firstLaneOfDepth.clear();
        for (uint16_t d = 0; d <= track.maxDepth; ++d) {
            m_depthLanes.push_back(uint32_t(m_lanes.size()));
            firstLaneOfDepth.push_back(uint32_t(m_lanes.size()));
            for (uint16_t r = 0; r < rowsPerDepth[d]; ++r)
                m_lanes.push_back(Lane{TrackId{t}, d, r, {}, {}});
        }
        for (uint32_t i = 0; i < track.eventCount; ++i) {
            const uint32_t e = track.firstEvent + i;
            const trace::Event& event = model.events()[e];
            const uint32_t laneIndex =
                firstLaneOfDepth[std::min<uint16_t>(event.depth, track.maxDepth)] + rows[i];
            Lane& lane = m_lanes[laneIndex];
            const int64_t end = event.endNs();
            lane.maxEndNs.push_back(lane.maxEndNs.empty() ? end
                                                          : std::max(lane.maxEndNs.back(), end));
            lane.events.emplace_back(e);
            if (rows[i] > 0)
                m_extraRowLane.emplace(e, laneIndex);
        }
    }
    for (Lane& lane : m_lanes) {
        lane.events.shrink_to_fit();
        lane.maxEndNs.shrink_to_fit();
    }
}

size_t TimelineIndex::memoryBytes() const
{
    size_t bytes = m_lanes.capacity() * sizeof(Lane) +
                   (m_depthLanes.capacity() + m_firstDepthOfTrack.capacity()) * sizeof(uint32_t) +
                   m_extraRowLane.size() * (2 * sizeof(uint32_t) + 2 * sizeof(void*));
    for (const Lane& lane : m_lanes)
        bytes +=
            lane.events.capacity() * sizeof(EventId) + lane.maxEndNs.capacity() * sizeof(int64_t);
    return bytes;
}

void TimelineIndex::buildDrawList(const Viewport& view, float minPx, std::vector<DrawItem>& out,
                                  uint32_t firstLane, uint32_t lastLane) const
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
        size_t i =
            size_t(std::upper_bound(lane.maxEndNs.begin(), lane.maxEndNs.end(), windowBegin) -
                   lane.maxEndNs.begin());
        // One past the last event starting at or before the window's right edge.
        const auto stopIt =
            std::upper_bound(lane.events.begin(), lane.events.end(), windowEnd,
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
            // Fold: every following slice starting within minPx of this one joins the run,
            // up to the first that reaches 2 minPx past its start: that one is wide (it
            // starts within minPx), and is drawn on its own, with its name. A lane's slices
            // do not overlap, so their running maximum end finds it by binary search.
            const int64_t foldUntil = e.startNs + int64_t(std::ceil(minNs));
            size_t j =
                size_t(std::lower_bound(
                           lane.events.begin() + std::ptrdiff_t(i) + 1, stopIt, foldUntil,
                           [&](EventId id, int64_t t) { return events[id.value].startNs < t; }) -
                       lane.events.begin());
            const int64_t wideFrom = e.startNs + int64_t(std::ceil(2 * minNs));
            if (lane.maxEndNs[j - 1] > wideFrom)
                j = size_t(std::upper_bound(lane.maxEndNs.begin() + std::ptrdiff_t(i) + 1,
                                            lane.maxEndNs.begin() + std::ptrdiff_t(j), wideFrom) -
                           lane.maxEndNs.begin());
            const double runEnd = view.xOf(lane.maxEndNs[j - 1]);
            out.push_back(
                {clip(x0), clip(std::max(runEnd, x0 + minPx)), l, lane.events[i], uint32_t(j - i)});
            i = j;
        }
    }
}

EventId TimelineIndex::hitTest(uint32_t laneIndex, const Viewport& view, double x,
                               double tolerancePx) const
{
    if (laneIndex >= m_lanes.size())
        return {};
    const Lane& lane = m_lanes[laneIndex];
    const auto events = m_model.events();
    // Offsets from the left edge in (fractional) ns: a 1 ns slice spans its pixels
    // [start, end) however far the zoom goes, at any distance from the epoch.
    const double at = x * view.nsPerPixel, slack = tolerancePx * view.nsPerPixel;
    const int64_t latestStart = view.beginNs + int64_t(std::floor(at + slack));
    auto last =
        std::upper_bound(lane.events.begin(), lane.events.end(), latestStart,
                         [&](int64_t time, EventId id) { return time < events[id.value].startNs; });
    EventId best;
    double bestDistance = slack;
    for (auto it = last; it != lane.events.begin();) {
        --it;
        if (double(lane.maxEndNs[size_t(it - lane.events.begin())] - view.beginNs) < at - slack)
            break;  // nothing at or before here reaches the cursor
        const trace::Event& e = events[it->value];
        const double start = double(e.startNs - view.beginNs),
                     end = double(e.endNs() - view.beginNs);
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
    if (const auto extra = m_extraRowLane.find(event.value); extra != m_extraRowLane.end())
        return extra->second;
    const trace::Event& e = m_model.event(event);
    return m_depthLanes.at(m_firstDepthOfTrack.at(e.track.value) +
                           std::min<uint16_t>(e.depth, m_model.track(e.track).maxDepth));
}

EventId TimelineIndex::overlappedBy(EventId event) const
{
    const uint32_t laneIndex = laneOf(event);
    const Lane& own = m_lanes[laneIndex];
    const trace::Event& e = m_model.event(event);
    const auto events = m_model.events();
    // The depth's earlier rows are the lanes just before this one.
    for (uint32_t l = laneIndex - own.overlapRow; l < laneIndex; ++l) {
        const Lane& lane = m_lanes[l];
        auto it =
            std::lower_bound(lane.events.begin(), lane.events.end(), e.endNs(),
                             [&](EventId id, int64_t t) { return events[id.value].startNs < t; });
        while (it != lane.events.begin()) {
            --it;
            if (lane.maxEndNs[size_t(it - lane.events.begin())] <= e.startNs)
                break;
            if (events[it->value].endNs() > e.startNs)
                return *it;
        }
    }
    return {};
}

TrackId leadThreadOf(const trace::TraceModel& model, std::string_view stepMarker)
{
    const auto tracks = model.tracks();
    // Per CPU track: landmarks (step markers, DataLoader calls), launches, events.
    std::vector<std::array<uint64_t, 3>> counts(tracks.size(), {0, 0, 0});
    std::vector<int8_t> landmark(model.strings().size(), -1);  // by string id, -1 unknown
    for (const trace::Event& e : model.events()) {
        if (model.track(e.track).kind != trace::TrackKind::CpuThread)
            continue;
        std::array<uint64_t, 3>& c = counts[e.track.value];
        ++c[2];
        if (trace::isLaunchCall(e.category))
            ++c[1];
        int8_t& known = landmark[e.name.value];
        if (known < 0) {
            const std::string_view name = model.text(e.name);
            known = (!stepMarker.empty() && name.starts_with(stepMarker)) ||
                            analysis::isDataLoaderOp(name)
                        ? 1
                        : 0;
        }
        c[0] += uint64_t(known);
    }
    // Lexicographic: landmarks decide, then launches, then events.
    TrackId best;
    for (uint32_t t = 0; t < tracks.size(); ++t)
        if (counts[t][2] > 0 && (!best.valid() || counts[t] > counts[best.value]))
            best = TrackId{t};
    return best;
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
            matches.emplace_back(i);
    }
    std::stable_sort(matches.begin(), matches.end(), [&](EventId a, EventId b) {
        return events[a.value].startNs < events[b.value].startNs;
    });
    return matches;
}

EventId nextMatch(const trace::TraceModel& model, const std::vector<EventId>& matches,
                  int64_t timeNs, bool forward)
{
    if (matches.empty())
        return {};
    const auto events = model.events();
    if (forward) {
        auto it =
            std::upper_bound(matches.begin(), matches.end(), timeNs,
                             [&](int64_t t, EventId id) { return t < events[id.value].startNs; });
        return it == matches.end() ? matches.front() : *it;
    }
    auto it = std::lower_bound(matches.begin(), matches.end(), timeNs,
                               [&](EventId id, int64_t t) { return events[id.value].startNs < t; });
    return it == matches.begin() ? matches.back() : *(it - 1);
}

}  // namespace kinetoscope::timeline
