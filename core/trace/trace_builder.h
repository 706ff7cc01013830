#pragma once
// Collects parsed events in file order and turns them into a TraceModel: tracks laid out
// contiguously and time-sorted, nesting, launch/op links, flows and memory samples.
#include "core/trace/event_parser.h"
#include "core/trace/trace_model.h"

#include <chrono>
#include <unordered_map>

namespace kinetoscope::trace {

class TraceBuilder
{
public:
    // A Whole builder makes the model. A Chunk builder collects the events of one block of
    // the event array on a worker thread, with its own string and track tables; append()
    // then adds it to the Whole one as if its events had been added there, in order (the
    // ids of strings and tracks come out as a serial read gives them).
    enum class Part
    {
        Whole,
        Chunk
    };
    explicit TraceBuilder(Part part = Part::Whole);

    // One element of the event array, starting at `sourceOffset` in the decompressed file.
    void addEvent(const ParsedEvent& event, uint64_t sourceOffset);
    // The elements of one batch parsed at `textOffset` (each counted as an entry).
    void addBatch(const std::vector<struct BatchEvent>& batch, uint64_t textOffset);
    void skip(std::string_view reason);
    // Adds a Chunk builder's events, strings, tracks, counts and metadata after those
    // already here. The chunk is left empty.
    void append(TraceBuilder&& chunk);
    // Told, after events are added, how far into the data (`bytesRead` of `totalBytes`,
    // 0 when unknown) they reach: once 16 MiB are in, the per-event columns get room for
    // the whole at the same bytes per event, and 10 % more. A column that grows by
    // doubling copies itself into pages never touched, each a fault and the kernel's
    // zeroing. Room left unused costs address space, not memory, and the finish's
    // permutation sizes the columns it rebuilds to what they hold.
    void expectTotal(uint64_t bytesRead, uint64_t totalBytes);
    TraceMetadata& metadata() { return m_model.m_metadata; }
    IngestStats& stats() { return m_model.m_stats; }
    uint64_t eventCount() const { return m_events.size(); }

    // Builds the model; the builder is empty afterwards. The model's load time is
    // measured from `started` to the end of this call. The per-track work runs on up to
    // `threads` threads; the model is the same whatever the number.
    TraceModel finish(TraceSource source, std::chrono::steady_clock::time_point started,
                      unsigned threads = 1);

private:
    struct TrackKey
    {
        int64_t pid;
        int64_t tid;
        uint32_t pidLabel;
        uint32_t tidLabel;
        bool operator==(const TrackKey&) const = default;
    };
    struct TrackKeyHash
    {
        size_t operator()(const TrackKey& k) const noexcept;
    };
    struct ProcessKey
    {
        int64_t pid;
        uint32_t pidLabel;
        bool operator==(const ProcessKey&) const = default;
    };
    struct ProcessKeyHash
    {
        size_t operator()(const ProcessKey& k) const noexcept;
    };
    // A `process_*` or `thread_*` metadata row, replayed in file order when the tracks
    // are named (the last row of a kind wins).
    struct MetadataRow
    {
        enum Field : uint8_t
        {
            ProcessName,
            ProcessLabels,
            ProcessSortIndex,
            ThreadName,
            ThreadSortIndex
        };
        Field field;
        TrackKey key;  // the process's rows use pid and pidLabel only
        StringId text;
        int64_t sortIndex = 0;
    };
    struct ProcessNames
    {
        StringId name;
        StringId label;
        int64_t sortIndex = 0;
    };
    struct FlowPoint
    {
        uint64_t id;
        int64_t timeNs;
        TrackId track;
        FlowKind kind;
        char phase;
        bool bindEnclosing;
    };

    TrackKey keyOf(const ProcessOrThread& pid, const ProcessOrThread& tid);
    TrackId trackFor(const TrackKey& key);
    void addMetadata(const ParsedEvent& event);
    void addMemorySample(const ParsedEvent& event);
    // Whether the copy's bytes had to be left unset (-1) to keep the sum of all copies'
    // bytes within int64; counts the bytes kept.
    bool keepWithinCopyBudget(CopyInfo& copy);

    void applyTimeBase();
    // Leaves out (and counts) events, samples and flow points far from the rest of the
    // trace, and what would push sums of durations or bytes past int64.
    void keepWithinBounds();
    std::vector<uint32_t> layoutTracks(unsigned threads);
    void computeNesting(unsigned threads);
    void linkLaunches(const std::vector<int64_t>& correlation);
    void linkOps(const std::vector<int64_t>& externalId);
    void resolveFlows(unsigned threads);
    void applyTrackNames();
    void computeSpan();

    Part m_part = Part::Whole;
    TraceModel m_model;
    std::unordered_map<TrackKey, uint32_t, TrackKeyHash> m_trackIndex;
    std::vector<TrackKey> m_trackKeys;
    // The track trackFor() found last: runs of events on one thread or stream are the
    // rule, so most lookups end here.
    TrackKey m_lastTrackKey{};
    uint32_t m_lastTrack = UINT32_MAX;
    std::vector<MetadataRow> m_metadataRows;
    std::vector<uint64_t> m_rawCategoryCounts;  // by the `cat` StringId (0: no `cat`)

    // Staging columns, in file order until finish() sorts them.
    bool m_sizedForTotal = false;  // expectTotal made room for the whole
    std::vector<Event> m_events;
    std::vector<uint64_t> m_offsets;
    std::vector<int64_t> m_correlation;
    std::vector<int64_t> m_externalId;
    std::vector<std::pair<EventId, KernelInfo>> m_kernels;
    std::vector<std::pair<EventId, CopyInfo>> m_copies;
    std::vector<std::pair<EventId, StringId>> m_inputShapes;
    std::vector<FlowPoint> m_flowPoints;
    int64_t m_copyBytes = 0;  // the sizes of the copies kept, together (Whole builders only)
};

}  // namespace kinetoscope::trace
