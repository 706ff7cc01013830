#include "core/trace/trace_builder.h"

#include "core/parallel/parallel_for.h"
#include "core/trace/event_parser_backend.h"
#include "core/trace/id_index.h"
#include "core/trace/printable.h"

#include <algorithm>
#include <numeric>

namespace kinetoscope::trace {

namespace {

size_t mix(size_t seed, uint64_t value)
{
    // 64-bit finaliser (splitmix64): pids and tids are small and clustered.
    value += 0x9e3779b97f4a7c15ULL + seed;
    value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
    value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<size_t>(value ^ (value >> 31));
}

constexpr uint8_t kFlagInstant = 1;
constexpr std::string_view kTimeOutOfRange =
    "ts or dur beyond the times the model holds (1934 to 2116, durations to 36 years)";

// Bounds that keep every sum the analysis makes inside int64: no real trace comes near.
constexpr int64_t kMaxBytes = int64_t(1) << 50;  // one copy, allocation or total: a petabyte
// Events (and samples, and flow points) farther than this from the median start are
// left out: no profiling window lasts days, and sums over tracks of per-track spans
// stay far inside int64 (2^15 tracks of 2^48 ns).
constexpr int64_t kMaxDistanceFromMedianNs = int64_t(1) << 47;  // about 39 hours
// Every sum of durations, or of bytes, over any set of events stays within this.
constexpr int64_t kTotalBudget = int64_t(1) << 62;

// A value of an activity's args outside what the hardware or the model holds becomes
// absent (-1); returns whether it was.
template <typename Int>
bool bound(Int& value, int64_t high)
{
    if (value < -1 || value > high) {
        value = -1;
        return true;
    }
    return false;
}

// `time` + `base`, clamped to the model's range; `clamped` counts the times moved.
int64_t shifted(int64_t time, int64_t base, uint64_t& clamped)
{
    // Both lie in [kMinTimeNs, kMaxTimeNs]: a sum can only overflow upwards.
    int64_t sum = 0;
    if (__builtin_add_overflow(time, base, &sum) || sum > kMaxTimeNs) {
        ++clamped;
        return kMaxTimeNs;
    }
    if (sum < kMinTimeNs) {
        ++clamped;
        return kMinTimeNs;
    }
    return sum;
}

}  // namespace

size_t TraceBuilder::TrackKeyHash::operator()(const TrackKey& k) const noexcept
{
    return mix(mix(mix(k.pidLabel, static_cast<uint64_t>(k.pid)), static_cast<uint64_t>(k.tid)),
               k.tidLabel);
}

size_t TraceBuilder::ProcessKeyHash::operator()(const ProcessKey& k) const noexcept
{
    return mix(k.pidLabel, static_cast<uint64_t>(k.pid));
}

TraceBuilder::TraceBuilder(Part part) : m_part(part) {}

void TraceBuilder::addBatch(const std::vector<BatchEvent>& batch, uint64_t textOffset)
{
    for (const BatchEvent& element : batch) {
        ++m_model.m_stats.entries;
        if (element.isObject)
            addEvent(element.event, textOffset + element.offset);
        else
            skip("array element is not an object");
    }
}

void TraceBuilder::skip(std::string_view reason)
{
    ++m_model.m_stats.skipped[std::string(reason)];
}

TraceBuilder::TrackKey TraceBuilder::keyOf(const ProcessOrThread& pid, const ProcessOrThread& tid)
{
    TrackKey key{pid.number, tid.number, 0, 0};
    if (!pid.label.empty())
        key.pidLabel = m_model.m_strings.intern(pid.label).value;
    if (!tid.label.empty())
        key.tidLabel = m_model.m_strings.intern(tid.label).value;
    return key;
}

TrackId TraceBuilder::trackFor(const TrackKey& key)
{
    if (m_lastTrack != UINT32_MAX && key == m_lastTrackKey)
        return TrackId{m_lastTrack};
    auto [it, inserted] = m_trackIndex.try_emplace(key, static_cast<uint32_t>(m_trackKeys.size()));
    if (inserted) {
        m_trackKeys.push_back(key);
        Track track;
        track.pid = key.pid;
        track.tid = key.tid;
        track.pidLabel = key.pidLabel ? StringId{key.pidLabel} : StringId{};
        track.tidLabel = key.tidLabel ? StringId{key.tidLabel} : StringId{};
        m_model.m_tracks.push_back(track);
    }
    m_lastTrackKey = key;
    m_lastTrack = it->second;
    return TrackId{it->second};
}

void TraceBuilder::addEvent(const ParsedEvent& e, uint64_t sourceOffset)
{
    IngestStats& stats = m_model.m_stats;
    const StringId catId = e.hasCat ? m_model.m_strings.intern(e.cat) : StringId{0};
    if (catId.value >= m_rawCategoryCounts.size())
        m_rawCategoryCounts.resize(catId.value + 1);
    ++m_rawCategoryCounts[catId.value];

    switch (e.phase) {
    case 'M':
        ++stats.metadataEvents;
        addMetadata(e);
        return;
    case 'X':
    case 'i':
    case 'I':
        break;
    case 's':
    case 't':
    case 'f': {
        ++stats.flowEvents;
        if (e.hasFlowId && (e.timeOutOfRange || (e.hasTs && !isHeldTime(e.tsNs)))) {
            skip(kTimeOutOfRange);
            return;
        }
        if (!e.hasFlowId || !e.hasTs) {
            skip(e.hasFlowId ? "flow event without ts" : "flow event without id");
            return;
        }
        const TrackId track = trackFor(keyOf(e.pid, e.tid));
        m_flowPoints.push_back({e.flowId, e.tsNs, track,
                                classifyFlow(e.cat).value_or(FlowKind::Other), e.phase,
                                e.bindEnclosing});
        return;
    }
    case '\0':
        skip("event without ph");
        return;
    default:
        skip("unsupported phase '" + printableExcerpt(std::string_view(&e.phase, 1)) + "'");
        return;
    }

    if (e.invalidTime) {
        skip("ts or dur is not a number");
        return;
    }
    if (e.timeOutOfRange || (e.hasTs && !isHeldTime(e.tsNs)) ||
        (e.hasDur && e.durNs > kMaxDurationNs)) {
        skip(kTimeOutOfRange);
        return;
    }
    if (!e.hasTs) {
        skip("event without ts");
        return;
    }
    const bool instant = e.phase != 'X';
    if (instant && e.name == "[memory]") {
        addMemorySample(e);
        return;
    }
    if (!instant && e.hasDur && e.durNs < 0) {
        skip("negative duration");
        return;
    }

    const TrackKey key = keyOf(e.pid, e.tid);
    const TrackId trackId = trackFor(key);
    Track& track = m_model.m_tracks[trackId.value];

    Event event;
    event.startNs = e.tsNs;
    event.durationNs = instant || !e.hasDur ? 0 : e.durNs;
    event.name = m_model.m_strings.intern(e.name);
    event.track = trackId;
    event.flags = instant ? kFlagInstant : 0;
    if (instant) {
        event.category = e.hasCat ? classifyCategory(e.cat, true, {}) : Category::Instant;
        if (event.category == Category::Other)
            event.category = Category::Instant;
        ++stats.instantEvents;
    } else {
        event.category =
            refineDeviceActivity(classifyCategory(e.cat, e.hasCat, e.pid.label), e.name);
        ++stats.completeEvents;
    }

    if (isGpuActivity(event.category) || e.tid.streamPrefix)
        track.kind = TrackKind::GpuStream;
    else if (track.kind == TrackKind::Other && e.pid.label.empty())
        track.kind = TrackKind::CpuThread;

    const auto index = EventId{static_cast<uint32_t>(m_events.size())};
    if (event.category == Category::Kernel) {
        // CUDA's limits: grid x < 2^31, y and z <= 65535, 1024 threads per block.
        KernelInfo kernel = e.kernel;
        int outOfRange = bound(kernel.grid[0], INT32_MAX) + bound(kernel.grid[1], 65535) +
                         bound(kernel.grid[2], 65535) + bound(kernel.registersPerThread, 65536) +
                         bound(kernel.sharedMemoryBytes, INT32_MAX);
        for (int32_t& b : kernel.block)
            outOfRange += bound(b, 1024);
        stats.valuesOutOfRange += outOfRange > 0;
        m_kernels.emplace_back(index, kernel);
    } else if (event.category == Category::Memcpy || event.category == Category::Memset) {
        CopyInfo copy = e.copy;
        bool outOfRange = bound(copy.bytes, kMaxBytes);
        if (m_part == Part::Whole)  // a chunk's copies are counted when it is appended
            outOfRange |= keepWithinCopyBudget(copy);
        stats.valuesOutOfRange += outOfRange;
        m_copies.emplace_back(index, copy);
    }
    if (!e.inputDims.empty())
        m_inputShapes.emplace_back(index, m_model.m_strings.intern(e.inputDims));
    m_events.push_back(event);
    m_offsets.push_back(sourceOffset);
    m_correlation.push_back(e.correlation);
    m_externalId.push_back(e.externalId);
}

bool TraceBuilder::keepWithinCopyBudget(CopyInfo& copy)
{
    // The sizes of all copies together must fit int64: the first copies, in file order,
    // keep theirs.
    if (copy.bytes > 0 && m_copyBytes > kTotalBudget - copy.bytes) {
        copy.bytes = -1;
        return true;
    }
    m_copyBytes += std::max<int64_t>(copy.bytes, 0);
    return false;
}

void TraceBuilder::expectTotal(uint64_t bytesRead, uint64_t totalBytes)
{
    constexpr uint64_t kEstimateAfterBytes = uint64_t(16) << 20;
    if (m_sizedForTotal || bytesRead < kEstimateAfterBytes || totalBytes <= bytesRead)
        return;
    m_sizedForTotal = true;
    const double factor = 1.1 * static_cast<double>(totalBytes) / static_cast<double>(bytesRead);
    auto room = [factor](auto& column) {
        column.reserve(static_cast<size_t>(static_cast<double>(column.size()) * factor));
    };
    // The columns the finish rebuilds or consumes; the side tables the model keeps as
    // they are (kernels, copies, shapes, memory samples) grow as before, so that the
    // model holds no room it does not use.
    room(m_events);
    room(m_offsets);
    room(m_correlation);
    room(m_externalId);
    room(m_flowPoints);
}

void TraceBuilder::append(TraceBuilder&& chunk)
{
    // Strings in the chunk's id order: the order they were first met, so each new one
    // gets the id a serial read gives it. Mended raw texts are counted once, globally.
    StringTable& strings = m_model.m_strings;
    const StringTable& chunkStrings = chunk.m_model.m_strings;
    std::vector<StringId> stringOf(chunkStrings.size());
    for (size_t i = 0; i < chunkStrings.size(); ++i)
        stringOf[i] = strings.intern(chunkStrings.view(StringId{static_cast<uint32_t>(i)}));
    for (const std::string_view raw : chunkStrings.mendedTexts())
        if (!strings.find(raw))
            strings.intern(raw);
    const auto label = [&](uint32_t id) { return stringOf[id].value; };
    const auto keyHere = [&](const TrackKey& key) {
        return TrackKey{key.pid, key.tid, label(key.pidLabel), label(key.tidLabel)};
    };

    // Tracks in the chunk's order of first use; a kind found in any chunk sticks.
    std::vector<TrackId> trackOf(chunk.m_trackKeys.size());
    for (size_t t = 0; t < trackOf.size(); ++t) {
        trackOf[t] = trackFor(keyHere(chunk.m_trackKeys[t]));
        Track& track = m_model.m_tracks[trackOf[t].value];
        const TrackKind kind = chunk.m_model.m_tracks[t].kind;
        if (kind == TrackKind::GpuStream ||
            (kind == TrackKind::CpuThread && track.kind == TrackKind::Other))
            track.kind = kind;
    }

    const auto base = static_cast<uint32_t>(m_events.size());
    for (Event event : chunk.m_events) {
        event.name = stringOf[event.name.value];
        event.track = trackOf[event.track.value];
        m_events.push_back(event);
    }
    m_offsets.insert(m_offsets.end(), chunk.m_offsets.begin(), chunk.m_offsets.end());
    m_correlation.insert(m_correlation.end(), chunk.m_correlation.begin(),
                         chunk.m_correlation.end());
    m_externalId.insert(m_externalId.end(), chunk.m_externalId.begin(), chunk.m_externalId.end());
    for (const auto& [id, kernel] : chunk.m_kernels)
        m_kernels.emplace_back(EventId{base + id.value}, kernel);
    IngestStats& stats = m_model.m_stats;
    for (auto [id, copy] : chunk.m_copies) {
        stats.valuesOutOfRange += keepWithinCopyBudget(copy);
        m_copies.emplace_back(EventId{base + id.value}, copy);
    }
    for (const auto& [id, shapes] : chunk.m_inputShapes)
        m_inputShapes.emplace_back(EventId{base + id.value}, stringOf[shapes.value]);
    for (FlowPoint point : chunk.m_flowPoints) {
        point.track = trackOf[point.track.value];
        m_flowPoints.push_back(point);
    }
    for (MemorySample sample : chunk.m_model.m_memory) {
        sample.track = trackOf[sample.track.value];
        m_model.m_memory.push_back(sample);
    }
    for (MetadataRow row : chunk.m_metadataRows) {
        row.key = keyHere(row.key);
        if (row.text.valid())  // sort index rows have no text
            row.text = stringOf[row.text.value];
        m_metadataRows.push_back(row);
    }
    for (uint32_t category = 0; category < chunk.m_rawCategoryCounts.size(); ++category) {
        const uint32_t here = stringOf[category].value;
        if (chunk.m_rawCategoryCounts[category] == 0)
            continue;
        if (here >= m_rawCategoryCounts.size())
            m_rawCategoryCounts.resize(here + 1);
        m_rawCategoryCounts[here] += chunk.m_rawCategoryCounts[category];
    }

    const IngestStats& counted = chunk.m_model.m_stats;
    stats.entries += counted.entries;
    stats.completeEvents += counted.completeEvents;
    stats.instantEvents += counted.instantEvents;
    stats.memorySamples += counted.memorySamples;
    stats.flowEvents += counted.flowEvents;
    stats.metadataEvents += counted.metadataEvents;
    stats.repairedEvents += counted.repairedEvents;
    stats.valuesOutOfRange += counted.valuesOutOfRange;
    ++stats.blocksOnThreads;
    for (const auto& [reason, count] : counted.skipped)
        stats.skipped[reason] += count;
    chunk = TraceBuilder(Part::Chunk);
}

void TraceBuilder::addMetadata(const ParsedEvent& e)
{
    // The strings are interned in the order the rows name them, as the tracks' are.
    const uint32_t pidLabel = e.pid.label.empty() ? 0 : m_model.m_strings.intern(e.pid.label).value;
    const TrackKey processKey{e.pid.number, 0, pidLabel, 0};
    MetadataRow row{};
    if (e.name == "process_name") {
        row = {MetadataRow::ProcessName, processKey, m_model.m_strings.intern(e.metaName)};
    } else if (e.name == "process_labels") {
        row = {MetadataRow::ProcessLabels, processKey, m_model.m_strings.intern(e.metaLabels)};
    } else if (e.name == "process_sort_index") {
        row = {MetadataRow::ProcessSortIndex, processKey, StringId{}, e.sortIndex};
    } else if (e.name == "thread_name") {
        const TrackKey key = keyOf(e.pid, e.tid);
        row = {MetadataRow::ThreadName, key, m_model.m_strings.intern(e.metaName)};
    } else if (e.name == "thread_sort_index") {
        row = {MetadataRow::ThreadSortIndex, keyOf(e.pid, e.tid), StringId{}, e.sortIndex};
    } else {
        return;  // other metadata rows (e.g. process_uptime) carry nothing the model keeps
    }
    m_metadataRows.push_back(row);
}

void TraceBuilder::addMemorySample(const ParsedEvent& e)
{
    ++m_model.m_stats.memorySamples;
    MemorySample sample;
    sample.timeNs = e.tsNs;
    sample.bytes = e.memBytes;
    sample.totalAllocated = e.totalAllocated;
    sample.totalReserved = e.totalReserved;
    if (sample.bytes < -kMaxBytes || sample.bytes > kMaxBytes) {
        skip("memory sample of more than 2^50 bytes");
        return;
    }
    const int outOfRange =
        bound(sample.totalAllocated, kMaxBytes) + bound(sample.totalReserved, kMaxBytes);
    m_model.m_stats.valuesOutOfRange += outOfRange > 0;
    sample.address = e.address;
    sample.track = trackFor(keyOf(e.pid, e.tid));
    sample.deviceId = static_cast<int16_t>(std::clamp<int64_t>(e.deviceId, -1, INT16_MAX));
    sample.deviceType = static_cast<int8_t>(std::clamp<int64_t>(e.deviceType, 0, INT8_MAX));
    Track& track = m_model.m_tracks[sample.track.value];
    if (track.kind == TrackKind::Other)
        track.kind = TrackKind::CpuThread;
    m_model.m_memory.push_back(sample);
}

TraceModel TraceBuilder::finish(TraceSource source, std::chrono::steady_clock::time_point started,
                                unsigned threads)
{
    const auto finishing = std::chrono::steady_clock::now();
    m_model.m_source = std::move(source);
    IngestStats& stats = m_model.m_stats;
    for (uint32_t catId = 0; catId < m_rawCategoryCounts.size(); ++catId)
        if (m_rawCategoryCounts[catId] > 0)
            stats.byRawCategory[std::string(m_model.m_strings.view(StringId{catId}))] +=
                m_rawCategoryCounts[catId];

    applyTimeBase();
    keepWithinBounds();
    const std::vector<uint32_t> order = layoutTracks(threads);

    // Apply the new order to every staging column.
    std::vector<uint32_t> newIndex(order.size());
    for (uint32_t i = 0; i < order.size(); ++i)
        newIndex[order[i]] = i;
    auto permute = [&](auto& column) {
        std::remove_reference_t<decltype(column)> sorted(column.size());
        for (uint32_t i = 0; i < order.size(); ++i)
            sorted[i] = column[order[i]];
        column.swap(sorted);
    };
    parallel::parallelFor(4, threads, [&](size_t column) {
        switch (column) {
        case 0:
            return permute(m_events);
        case 1:
            return permute(m_offsets);
        case 2:
            return permute(m_correlation);
        default:
            return permute(m_externalId);
        }
    });
    auto remapSide = [&](auto& side) {
        for (auto& entry : side)
            entry.first = EventId{newIndex[entry.first.value]};
        std::sort(side.begin(), side.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
    };
    remapSide(m_kernels);
    remapSide(m_copies);
    remapSide(m_inputShapes);
    newIndex = {};

    m_model.m_events = std::move(m_events);
    m_model.m_sourceOffsets = std::move(m_offsets);
    m_model.m_kernels = std::move(m_kernels);
    m_model.m_copies = std::move(m_copies);
    m_model.m_inputShapes = std::move(m_inputShapes);
    computeNesting(threads);
    // Three jobs that share no output: the launch and op links (in that order: a device
    // activity takes the op of its launch), the flows, and the memory samples' order.
    // They read the events' times and parents and write other fields.
    parallel::parallelFor(3, threads, [&](size_t job) {
        if (job == 0) {
            linkLaunches(m_correlation);
            linkOps(m_externalId);
        } else if (job == 1) {
            resolveFlows(threads > 2 ? threads - 2 : 1);
        } else {
            const auto byTime = [](const MemorySample& a, const MemorySample& b) {
                return a.timeNs < b.timeNs;
            };
            auto& memory = m_model.m_memory;
            if (!std::is_sorted(memory.begin(), memory.end(), byTime))
                std::stable_sort(memory.begin(), memory.end(), byTime);
        }
    });
    m_correlation = {};
    m_externalId = {};
    applyTrackNames();
    computeSpan();
    stats.mendedStrings = m_model.m_strings.mendedCount();
    const auto finished = std::chrono::steady_clock::now();
    stats.loadSeconds = std::chrono::duration<double>(finished - started).count();
    stats.finishSeconds = std::chrono::duration<double>(finished - finishing).count();

    TraceModel model = std::move(m_model);
    *this = TraceBuilder();
    return model;
}

void TraceBuilder::applyTimeBase()
{
    // From PyTorch 2.4, ts is relative to baseTimeNanoseconds; shift everything onto the
    // absolute clock so traces of several ranks line up.
    // A start pushed past the range is clamped to its edge (and counted), so that ends
    // and spans stay inside int64.
    const auto& base = m_model.m_metadata.baseTimeNs;
    if (!base)
        return;
    uint64_t& clamped = m_model.m_stats.clampedTimes;
    for (Event& e : m_events)
        e.startNs = shifted(e.startNs, *base, clamped);
    for (FlowPoint& f : m_flowPoints)
        f.timeNs = shifted(f.timeNs, *base, clamped);
    for (MemorySample& m : m_model.m_memory)
        m.timeNs = shifted(m.timeNs, *base, clamped);
}

void TraceBuilder::keepWithinBounds()
{
    // The median start, from at most 65536 evenly spaced events (or samples).
    std::vector<int64_t> starts;
    const size_t total = m_events.size() + m_model.m_memory.size();
    const size_t stride = total / 65536 + 1;
    for (size_t i = 0; i < m_events.size(); i += stride)
        starts.push_back(m_events[i].startNs);
    for (size_t i = 0; i < m_model.m_memory.size(); i += stride)
        starts.push_back(m_model.m_memory[i].timeNs);
    if (starts.empty())
        return;
    std::nth_element(starts.begin(), starts.begin() + starts.size() / 2, starts.end());
    const int64_t median = starts[starts.size() / 2];
    const auto near = [median](int64_t t) {  // |t - median| within the bound, no overflow
        return t >= median - kMaxDistanceFromMedianNs && t <= median + kMaxDistanceFromMedianNs;
    };
    constexpr std::string_view kFar = "more than 39 hours from the rest of the trace";

    // Events: near the median, and within the budget of all durations together.
    std::vector<uint32_t> newIndex(m_events.size(), UINT32_MAX);
    int64_t durations = 0;
    size_t kept = 0;
    for (size_t i = 0; i < m_events.size(); ++i) {
        const Event& e = m_events[i];
        if (!near(e.startNs) || !near(e.endNs())) {
            skip(kFar);
            continue;
        }
        if (durations > kTotalBudget - e.durationNs) {
            skip("durations together beyond 2^62 ns");
            continue;
        }
        durations += e.durationNs;
        newIndex[i] = static_cast<uint32_t>(kept);
        m_events[kept] = e;
        m_offsets[kept] = m_offsets[i];
        m_correlation[kept] = m_correlation[i];
        m_externalId[kept] = m_externalId[i];
        ++kept;
    }
    if (kept < m_events.size()) {
        m_events.resize(kept);
        m_offsets.resize(kept);
        m_correlation.resize(kept);
        m_externalId.resize(kept);
        auto remap = [&](auto& side) {
            std::erase_if(
                side, [&](const auto& entry) { return newIndex[entry.first.value] == UINT32_MAX; });
            for (auto& entry : side)
                entry.first = EventId{newIndex[entry.first.value]};
        };
        remap(m_kernels);
        remap(m_copies);
        remap(m_inputShapes);
    }
    std::erase_if(m_flowPoints, [&](const FlowPoint& f) {
        const bool far = !near(f.timeNs);
        if (far)
            skip(kFar);
        return far;
    });
    // Memory samples: near the median, and the bytes of all of them within the budget.
    int64_t bytes = 0;
    std::erase_if(m_model.m_memory, [&](const MemorySample& m) {
        const int64_t size = m.bytes < 0 ? -m.bytes : m.bytes;
        if (!near(m.timeNs)) {
            skip(kFar);
            return true;
        }
        if (bytes > kTotalBudget - size) {
            skip("memory sample bytes together beyond 2^62");
            return true;
        }
        bytes += size;
        return false;
    });
}

std::vector<uint32_t> TraceBuilder::layoutTracks(unsigned threads)
{
    // Bucket events by track (counting sort, stable), then sort each track by start time,
    // longer events first at equal starts so parents precede children. Most tracks come
    // out of Kineto already in order; those are detected and left alone.
    std::vector<Track>& tracks = m_model.m_tracks;
    for (const Event& e : m_events)
        ++tracks[e.track.value].eventCount;
    uint32_t offset = 0;
    for (Track& track : tracks) {
        track.firstEvent = offset;
        offset += track.eventCount;
    }
    std::vector<uint32_t> order(m_events.size());
    std::vector<uint32_t> cursor(tracks.size());
    for (size_t t = 0; t < tracks.size(); ++t)
        cursor[t] = tracks[t].firstEvent;
    for (uint32_t i = 0; i < m_events.size(); ++i)
        order[cursor[m_events[i].track.value]++] = i;

    const auto before = [this](uint32_t a, uint32_t b) {
        const Event& x = m_events[a];
        const Event& y = m_events[b];
        if (x.startNs != y.startNs)
            return x.startNs < y.startNs;
        if (x.durationNs != y.durationNs)
            return x.durationNs > y.durationNs;
        return a < b;
    };
    parallel::parallelFor(tracks.size(), threads, [&](size_t t) {
        auto first = order.begin() + tracks[t].firstEvent;
        auto last = first + tracks[t].eventCount;
        auto breakAt = std::is_sorted_until(first, last, before);
        if (breakAt != last)
            std::sort(first, last, before);
    });
    return order;
}

void TraceBuilder::computeNesting(unsigned threads)
{
    // Track by track; each counts its partial overlaps, summed in track order.
    std::vector<Event>& events = m_model.m_events;
    std::vector<uint64_t> overlaps(m_model.m_tracks.size());
    parallel::parallelFor(m_model.m_tracks.size(), threads, [&](size_t t) {
        Track& track = m_model.m_tracks[t];
        std::vector<uint32_t> stack;
        const uint32_t end = track.firstEvent + track.eventCount;
        for (uint32_t i = track.firstEvent; i < end; ++i) {
            Event& e = events[i];
            // Pop what ended before this event starts, and any sibling that overlaps it
            // without containing it (ranges that intersect: counted, not nested).
            while (!stack.empty()) {
                const Event& top = events[stack.back()];
                if (top.endNs() <= e.startNs) {
                    stack.pop_back();
                } else if (top.endNs() < e.endNs()) {
                    ++overlaps[t];
                    stack.pop_back();
                } else {
                    break;
                }
            }
            if (!stack.empty())
                e.parent = EventId{stack.back()};
            e.depth = static_cast<uint16_t>(std::min<size_t>(stack.size(), UINT16_MAX));
            track.maxDepth = std::max(track.maxDepth, e.depth);
            if (e.durationNs > 0)
                stack.push_back(i);
        }
    });
    for (const uint64_t count : overlaps)
        m_model.m_stats.partialOverlaps += count;
}

void TraceBuilder::linkLaunches(const std::vector<int64_t>& correlation)
{
    std::vector<Event>& events = m_model.m_events;
    IdIndex launchByCorrelation(events.size() / 4);
    for (uint32_t i = 0; i < events.size(); ++i)
        if (isLaunchCall(events[i].category) && correlation[i] >= 0)
            launchByCorrelation.emplace(correlation[i], i);

    std::vector<std::pair<EventId, EventId>> pairs;  // (launch, activity)
    for (uint32_t i = 0; i < events.size(); ++i) {
        Event& activity = events[i];
        if (!isGpuActivity(activity.category) || activity.category == Category::GpuUserAnnotation)
            continue;
        const uint32_t* launch = launchByCorrelation.find(correlation[i]);
        if (launch == nullptr) {
            ++m_model.m_stats.activitiesWithoutLaunch;
            continue;
        }
        activity.correlated = EventId{*launch};
        pairs.emplace_back(EventId{*launch}, EventId{i});
    }
    // A launch points at its earliest activity; all of them are in the CSR lists.
    std::sort(pairs.begin(), pairs.end(), [&](const auto& a, const auto& b) {
        if (a.first != b.first)
            return a.first < b.first;
        return events[a.second.value].startNs < events[b.second.value].startNs;
    });
    for (const auto& [launch, activity] : pairs) {
        if (m_model.m_launchCalls.empty() || m_model.m_launchCalls.back() != launch) {
            m_model.m_launchCalls.push_back(launch);
            m_model.m_launchOffsets.push_back(
                static_cast<uint32_t>(m_model.m_launchTargets.size()));
            events[launch.value].correlated = activity;
        }
        m_model.m_launchTargets.push_back(activity);
    }
    m_model.m_launchOffsets.push_back(static_cast<uint32_t>(m_model.m_launchTargets.size()));
}

void TraceBuilder::linkOps(const std::vector<int64_t>& externalId)
{
    // A launch call belongs to the CPU op with the same External id; where that op is not
    // in the trace, to the innermost CPU op that encloses it on its thread (what the
    // TensorBoard plugin did). A device activity inherits the op of its launch call.
    std::vector<Event>& events = m_model.m_events;
    IdIndex opByExternalId(events.size() / 4);
    for (uint32_t i = 0; i < events.size(); ++i) {
        const Category c = events[i].category;
        if ((c == Category::CpuOp || c == Category::UserAnnotation) && externalId[i] > 0) {
            auto [op, inserted] = opByExternalId.emplace(externalId[i], i);
            if (!inserted && c == Category::CpuOp && events[*op].category != Category::CpuOp)
                *op = i;  // prefer the operator over an annotation with the same id
        }
    }
    auto enclosingOp = [&](uint32_t i) {
        EventId p = events[i].parent;
        while (p.valid() && events[p.value].category != Category::CpuOp)
            p = events[p.value].parent;
        return p;
    };
    std::vector<std::pair<EventId, EventId>> pairs;  // (op, launch call)
    for (uint32_t i = 0; i < events.size(); ++i) {
        if (!isLaunchCall(events[i].category))
            continue;
        const uint32_t* op = externalId[i] > 0 ? opByExternalId.find(externalId[i]) : nullptr;
        events[i].op = op != nullptr ? EventId{*op} : enclosingOp(i);
        if (events[i].op.valid())
            pairs.emplace_back(events[i].op, EventId{i});
    }
    // Launch calls are visited in event order, so each op's list is already time-sorted
    // within a thread; a stable sort by op keeps that.
    std::stable_sort(pairs.begin(), pairs.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [op, launch] : pairs) {
        if (m_model.m_opsWithLaunches.empty() || m_model.m_opsWithLaunches.back() != op) {
            m_model.m_opsWithLaunches.push_back(op);
            m_model.m_opLaunchOffsets.push_back(static_cast<uint32_t>(m_model.m_opLaunches.size()));
        }
        m_model.m_opLaunches.push_back(launch);
    }
    m_model.m_opLaunchOffsets.push_back(static_cast<uint32_t>(m_model.m_opLaunches.size()));
    for (uint32_t i = 0; i < events.size(); ++i) {
        Event& e = events[i];
        if (!isGpuActivity(e.category))
            continue;
        if (e.correlated.valid()) {
            e.op = events[e.correlated.value].op;
        } else if (externalId[i] > 0) {
            if (const uint32_t* op = opByExternalId.find(externalId[i]))
                e.op = EventId{*op};
        }
    }
}

void TraceBuilder::resolveFlows(unsigned threads)
{
    // A flow's start and end are points (track, time); the event they belong to is the
    // innermost slice containing that point (`bp: e` and Kineto's own flow starts), or
    // else the next slice on the track.
    std::stable_sort(m_flowPoints.begin(), m_flowPoints.end(),
                     [](const FlowPoint& a, const FlowPoint& b) {
                         if (a.kind != b.kind)
                             return a.kind < b.kind;
                         return a.id < b.id;
                     });
    // One id: normally one start and one end; intermediate steps (`t`) are ignored.
    std::vector<size_t> groupStart;
    for (size_t i = 0; i < m_flowPoints.size(); ++i)
        if (i == 0 || m_flowPoints[i].kind != m_flowPoints[i - 1].kind ||
            m_flowPoints[i].id != m_flowPoints[i - 1].id)
            groupStart.push_back(i);
    groupStart.push_back(m_flowPoints.size());

    struct Resolved
    {
        Flow flow;
        bool any = false;
        bool halfOpen = false;
        uint8_t unresolved = 0;
    };
    const size_t groups = groupStart.size() - 1;
    std::vector<Resolved> resolved(groups);
    constexpr size_t kGroupsPerTask = 4096;
    parallel::parallelFor(
        (groups + kGroupsPerTask - 1) / kGroupsPerTask, threads, [&](size_t task) {
            const size_t last = std::min(groups, (task + 1) * kGroupsPerTask);
            for (size_t g = task * kGroupsPerTask; g < last; ++g) {
                Resolved& out = resolved[g];
                const auto resolve = [&](const FlowPoint& point) {
                    EventId id = m_model.innermostEventAt(point.track, point.timeNs);
                    if (!id.valid() && !point.bindEnclosing)
                        id = m_model.firstEventAtOrAfter(point.track, point.timeNs);
                    out.unresolved += !id.valid();
                    return id;
                };
                const FlowPoint* start = nullptr;
                const FlowPoint* end = nullptr;
                for (size_t k = groupStart[g]; k < groupStart[g + 1]; ++k) {
                    if (m_flowPoints[k].phase == 's' && !start)
                        start = &m_flowPoints[k];
                    else if (m_flowPoints[k].phase == 'f' && !end)
                        end = &m_flowPoints[k];
                }
                out.flow.id = m_flowPoints[groupStart[g]].id;
                out.flow.kind = m_flowPoints[groupStart[g]].kind;
                if (start)
                    out.flow.from = resolve(*start);
                if (end)
                    out.flow.to = resolve(*end);
                out.halfOpen = !start || !end;
                out.any = start || end;
            }
        });
    IngestStats& stats = m_model.m_stats;
    for (const Resolved& r : resolved) {
        stats.unresolvedFlowEnds += r.unresolved;
        stats.halfOpenFlows += r.halfOpen;
        if (r.any)
            m_model.m_flows.push_back(r.flow);
    }
    m_flowPoints = {};
}

void TraceBuilder::applyTrackNames()
{
    std::unordered_map<ProcessKey, ProcessNames, ProcessKeyHash> processNames;
    std::unordered_map<TrackKey, std::pair<StringId, int64_t>, TrackKeyHash> threadNames;
    for (const MetadataRow& row : m_metadataRows) {
        const ProcessKey process{row.key.pid, row.key.pidLabel};
        switch (row.field) {
        case MetadataRow::ProcessName:
            processNames[process].name = row.text;
            break;
        case MetadataRow::ProcessLabels:
            processNames[process].label = row.text;
            break;
        case MetadataRow::ProcessSortIndex:
            processNames[process].sortIndex = row.sortIndex;
            break;
        case MetadataRow::ThreadName:
            threadNames[row.key].first = row.text;
            break;
        case MetadataRow::ThreadSortIndex:
            threadNames[row.key].second = row.sortIndex;
            break;
        }
    }
    for (size_t t = 0; t < m_model.m_tracks.size(); ++t) {
        Track& track = m_model.m_tracks[t];
        const TrackKey& key = m_trackKeys[t];
        if (auto it = processNames.find(ProcessKey{key.pid, key.pidLabel});
            it != processNames.end()) {
            track.processName = it->second.name;
            track.processLabel = it->second.label;
            track.sortIndex = it->second.sortIndex;
        }
        if (auto it = threadNames.find(key); it != threadNames.end()) {
            track.name = it->second.first;
            if (it->second.second != 0)
                track.sortIndex = it->second.second;
        }
        // A track created by flow events alone is still Other; its process may have no
        // labels row (processLabel invalid).
        if (track.kind == TrackKind::Other && !track.pidLabel.valid() &&
            track.processLabel.valid() &&
            m_model.m_strings.view(track.processLabel).starts_with("GPU"))
            track.kind = TrackKind::GpuStream;
    }
}

void TraceBuilder::computeSpan()
{
    int64_t begin = INT64_MAX;
    int64_t end = INT64_MIN;
    for (const Event& e : m_model.m_events) {
        if (e.category == Category::ProfilerSpan)
            continue;  // the profiler's own window may start long before the first op
        begin = std::min(begin, e.startNs);
        end = std::max(end, e.endNs());
    }
    for (const MemorySample& m : m_model.m_memory) {
        begin = std::min(begin, m.timeNs);
        end = std::max(end, m.timeNs);
    }
    if (begin > end)
        begin = end = 0;
    m_model.m_beginNs = begin;
    m_model.m_endNs = end;
}

}  // namespace kinetoscope::trace
