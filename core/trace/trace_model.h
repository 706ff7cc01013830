#pragma once
// The in-memory form of one profiler trace: tracks, time-sorted events, the links between
// them, flows, memory samples and the trace's metadata. Built once by the loader
// (trace_loader.h), immutable afterwards, and shared by analysis, the CLI and the GUI.
//
// Time: every timestamp and duration is int64 nanoseconds on one absolute clock
// (Unix epoch where the trace says so). Kineto writes microseconds; the loader converts.
#include "core/trace/activity_info.h"
#include "core/trace/category.h"
#include "core/trace/gzip_index.h"
#include "core/trace/ids.h"
#include "core/trace/ingest_stats.h"
#include "core/trace/string_table.h"
#include "core/trace/trace_metadata.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace kinetoscope::trace {

// The times the model holds, in nanoseconds: every start (and memory sample, and flow
// point) within [kMinTimeNs, kMaxTimeNs], every duration within [0, kMaxDurationNs]. So
// ends, spans and the difference of any two times stay inside int64 (2^62 + 2^60 < 2^63);
// the ingest skips or clamps what lies outside, and counts it.
inline constexpr int64_t kMinTimeNs = -(int64_t(1) << 60);   // about 36 years before 1970
inline constexpr int64_t kMaxTimeNs = int64_t(1) << 62;      // about the year 2116
inline constexpr int64_t kMaxDurationNs = int64_t(1) << 60;  // about 36 years
constexpr bool isHeldTime(int64_t ns)
{
    return ns >= kMinTimeNs && ns <= kMaxTimeNs;
}

// The hot struct: one per complete (`X`) or instant event. Its size is the model's cost
// per event, hence the static_assert. Rare fields live in side tables; `args` are read
// back from the file on demand (readArgs in core/trace/event_args.h).
struct Event
{
    int64_t startNs = 0;
    int64_t durationNs = 0;  // 0 for instants
    StringId name;
    TrackId track;
    EventId parent;      // innermost enclosing event on the same track
    EventId correlated;  // launch call <-> device activity (`correlation`); for a launch
                         // that started several activities, the first of them
    EventId op;          // the CPU op behind a launch call or device activity
    uint16_t depth = 0;  // nesting depth within the track, 0 = top level
    Category category = Category::Other;
    uint8_t flags = 0;

    int64_t endNs() const { return startNs + durationNs; }
};
static_assert(sizeof(Event) == 40, "Event is the per-event memory cost: keep it at 40 bytes");

enum class TrackKind : uint8_t
{
    CpuThread,
    GpuStream,
    Other
};

struct Track
{
    TrackKind kind = TrackKind::Other;
    int64_t pid = 0;        // process id; for GPU tracks the device index
    int64_t tid = 0;        // thread id; for GPU tracks the stream
    StringId pidLabel;      // pid as written when it was not a number ("Spans", "Traces")
    StringId tidLabel;      // tid as written when it was not a number
    StringId name;          // thread_name metadata, if any
    StringId processName;   // process_name metadata, if any
    StringId processLabel;  // process_labels metadata ("CPU", "GPU 0"), if any
    int64_t sortIndex = 0;
    uint32_t firstEvent = 0;  // the track's events are [firstEvent, firstEvent + eventCount)
    uint32_t eventCount = 0;
    uint16_t maxDepth = 0;
};

struct Flow
{
    uint64_t id = 0;
    EventId from;  // invalid for a flow whose start is not in the trace (half-open)
    EventId to;    // invalid for a flow whose end is not in the trace
    FlowKind kind = FlowKind::Other;
};

// One `[memory]` instant event: an allocation (bytes > 0) or a free (bytes < 0) and,
// from 2022 on, the allocator's totals after it. Absent totals are -1.
struct MemorySample
{
    int64_t timeNs = 0;
    int64_t bytes = 0;
    int64_t totalAllocated = -1;
    int64_t totalReserved = -1;
    uint64_t address = 0;
    TrackId track;          // the CPU thread that allocated
    int16_t deviceId = -1;  // -1 for host memory
    int8_t deviceType = 0;  // 0 CPU, 1 CUDA (c10::DeviceType)
};

// Where a model's events came from, so that their `args` can be read back on demand.
struct TraceSource
{
    std::filesystem::path path;                  // a file (plain or gzip), or
    std::shared_ptr<const std::string> text;     // the JSON text itself
    std::shared_ptr<const GzipIndex> gzipIndex;  // a gzip file's access points, or null
};

class TraceModel
{
public:
    TraceModel() = default;
    TraceModel(TraceModel&&) noexcept = default;
    TraceModel& operator=(TraceModel&&) noexcept = default;
    TraceModel(const TraceModel&) = delete;
    TraceModel& operator=(const TraceModel&) = delete;

    const StringTable& strings() const { return m_strings; }
    std::string_view text(StringId id) const { return m_strings.view(id); }

    std::span<const Track> tracks() const { return m_tracks; }
    const Track& track(TrackId id) const { return m_tracks[id.value]; }

    std::span<const Event> events() const { return m_events; }
    const Event& event(EventId id) const { return m_events[id.value]; }
    // The events of one track, sorted by start time (longer first at equal starts, so a
    // parent precedes its children).
    std::span<const Event> events(TrackId id) const;
    EventId idOf(const Event& event) const
    {
        return EventId{static_cast<uint32_t>(&event - m_events.data())};
    }

    // First event of the track starting at or after `timeNs`; invalid when none.
    EventId firstEventAtOrAfter(TrackId track, int64_t timeNs) const;
    // Innermost event of the track whose [start, end] contains `timeNs`; invalid if none.
    EventId innermostEventAt(TrackId track, int64_t timeNs) const;
    // Every device activity started by a launch call (a CUDA graph launch starts many).
    std::span<const EventId> activitiesLaunchedBy(EventId launchCall) const;

    // Every launch call made on behalf of a CPU op (the reverse of Event::op).
    std::span<const EventId> launchCallsOf(EventId op) const;

    // The `Input Dims` of an op as written (e.g. "[[4, 8], [8, 16]]"); invalid if none.
    StringId inputShapes(EventId op) const;

    const KernelInfo* kernelInfo(EventId kernel) const;
    const CopyInfo* copyInfo(EventId copy) const;

    std::span<const Flow> flows() const { return m_flows; }
    std::span<const MemorySample> memorySamples() const { return m_memory; }  // by time
    const TraceMetadata& metadata() const { return m_metadata; }
    const IngestStats& stats() const { return m_stats; }

    // Earliest start and latest end over all events and memory samples.
    int64_t beginNs() const { return m_beginNs; }
    int64_t endNs() const { return m_endNs; }

    // Where the event's JSON object begins in the (decompressed) trace, in bytes.
    uint64_t sourceOffset(EventId id) const { return m_sourceOffsets[id.value]; }
    const TraceSource& source() const { return m_source; }

    // Bytes held by the model's columns and side tables (strings included).
    size_t memoryBytes() const;
    size_t stringBytes() const { return m_strings.memoryBytes(); }

private:
    friend class TraceBuilder;

    StringTable m_strings;
    std::vector<Track> m_tracks;
    std::vector<Event> m_events;
    std::vector<uint64_t> m_sourceOffsets;  // per event: byte offset of its JSON object in
                                            // the (decompressed) file, for readArgs()
    std::vector<EventId> m_launchTargets;   // activities, grouped by launch
    std::vector<uint32_t> m_launchOffsets;  // into m_launchTargets
    std::vector<EventId> m_launchCalls;     // launch calls with activities
    // The same shape for op -> launch calls: ops with launches, offsets, launch calls.
    std::vector<EventId> m_opsWithLaunches;
    std::vector<uint32_t> m_opLaunchOffsets;
    std::vector<EventId> m_opLaunches;
    std::vector<std::pair<EventId, KernelInfo>> m_kernels;    // sorted by event
    std::vector<std::pair<EventId, CopyInfo>> m_copies;       // sorted by event
    std::vector<std::pair<EventId, StringId>> m_inputShapes;  // sorted by event
    std::vector<Flow> m_flows;
    std::vector<MemorySample> m_memory;
    TraceMetadata m_metadata;
    IngestStats m_stats;
    TraceSource m_source;
    int64_t m_beginNs = 0;
    int64_t m_endNs = 0;
};

}  // namespace kinetoscope::trace
