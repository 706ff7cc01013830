#include "core/trace/trace_model.h"

#include <algorithm>

namespace kinetoscope::trace {

std::span<const Event> TraceModel::events(TrackId id) const
{
    const Track& t = m_tracks[id.value];
    return std::span<const Event>(m_events).subspan(t.firstEvent, t.eventCount);
}

EventId TraceModel::firstEventAtOrAfter(TrackId track, int64_t timeNs) const
{
    const auto list = events(track);
    const auto it = std::lower_bound(list.begin(), list.end(), timeNs,
                                     [](const Event& e, int64_t t) { return e.startNs < t; });
    return it == list.end() ? EventId{} : idOf(*it);
}

EventId TraceModel::innermostEventAt(TrackId track, int64_t timeNs) const
{
    // The last event starting at or before the time is the innermost candidate; if it
    // ended already, one of its ancestors may still contain the time.
    const auto list = events(track);
    const auto it = std::upper_bound(list.begin(), list.end(), timeNs,
                                     [](int64_t t, const Event& e) { return t < e.startNs; });
    if (it == list.begin())
        return {};
    EventId candidate = idOf(*(it - 1));
    while (candidate.valid() && event(candidate).endNs() < timeNs)
        candidate = event(candidate).parent;
    return candidate;
}

namespace {
// Looks `key` up in a compressed sparse row index: sorted keys, offsets (one more than
// keys) into a flat list of values.
std::span<const EventId> csrLookup(const std::vector<EventId>& keys,
                                   const std::vector<uint32_t>& offsets,
                                   const std::vector<EventId>& values, EventId key)
{
    const auto it = std::lower_bound(keys.begin(), keys.end(), key);
    if (it == keys.end() || *it != key)
        return {};
    const size_t index = static_cast<size_t>(it - keys.begin());
    const uint32_t begin = offsets[index];
    return std::span<const EventId>(values).subspan(begin, offsets[index + 1] - begin);
}
}  // namespace

std::span<const EventId> TraceModel::activitiesLaunchedBy(EventId launchCall) const
{
    return csrLookup(m_launchCalls, m_launchOffsets, m_launchTargets, launchCall);
}

std::span<const EventId> TraceModel::launchCallsOf(EventId op) const
{
    return csrLookup(m_opsWithLaunches, m_opLaunchOffsets, m_opLaunches, op);
}

namespace {
template <typename Info>
const Info* findSide(const std::vector<std::pair<EventId, Info>>& side, EventId id)
{
    const auto it =
        std::lower_bound(side.begin(), side.end(), id,
                         [](const auto& entry, EventId key) { return entry.first < key; });
    return it != side.end() && it->first == id ? &it->second : nullptr;
}

template <typename T>
size_t bytesOf(const std::vector<T>& v)
{
    return v.capacity() * sizeof(T);
}

}  // namespace

StringId TraceModel::inputShapes(EventId op) const
{
    const StringId* shapes = findSide(m_inputShapes, op);
    return shapes ? *shapes : StringId{};
}

const KernelInfo* TraceModel::kernelInfo(EventId kernel) const
{
    return findSide(m_kernels, kernel);
}

const CopyInfo* TraceModel::copyInfo(EventId copy) const
{
    return findSide(m_copies, copy);
}

size_t TraceModel::memoryBytes() const
{
    return m_strings.memoryBytes() + bytesOf(m_tracks) + bytesOf(m_events) +
           bytesOf(m_sourceOffsets) + bytesOf(m_launchTargets) + bytesOf(m_launchOffsets) +
           bytesOf(m_launchCalls) + bytesOf(m_opsWithLaunches) + bytesOf(m_opLaunchOffsets) +
           bytesOf(m_opLaunches) + bytesOf(m_kernels) + bytesOf(m_copies) + bytesOf(m_inputShapes) +
           bytesOf(m_flows) + bytesOf(m_memory) +
           (m_source.gzipIndex ? m_source.gzipIndex->memoryBytes() : 0);
}

}  // namespace kinetoscope::trace
