#include "core/trace/trace_loader.h"

#include "core/format/format.h"
#include "core/parallel/thread_count.h"
#include "core/trace/byte_source.h"
#include "core/trace/event_parser.h"
#include "core/trace/event_parser_backend.h"
#include "core/trace/json_scan.h"
#include "core/trace/metadata_reader.h"
#include "core/trace/other_outputs.h"
#include "core/trace/parallel_events.h"
#include "core/trace/printable.h"
#include "core/trace/trace_builder.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <new>
#include <vector>

namespace kinetoscope::trace {

std::string_view loadStatusName(LoadStatus status)
{
    switch (status) {
    case LoadStatus::Ok:
        return "ok";
    case LoadStatus::Truncated:
        return "truncated";
    case LoadStatus::Malformed:
        return "malformed";
    case LoadStatus::NotATrace:
        return "not-a-trace";
    case LoadStatus::Empty:
        return "empty";
    case LoadStatus::NotFound:
        return "not-found";
    case LoadStatus::ReadError:
        return "read-error";
    case LoadStatus::Cancelled:
        return "cancelled";
    case LoadStatus::OutOfMemory:
        return "out-of-memory";
    }
    return "unknown";
}

namespace {

using json_scan::Scan;

// Walks the JSON text of a trace with a sliding window over the byte source: the
// top-level object (or bare array) by hand, and each element of the event array handed
// to the EventParser as soon as it is complete in the window.
class StreamingReader
{
public:
    // `entriesSeen` (may be null) follows the count of entries read, chunk by chunk, for a
    // message when the load fails on memory and the reader is gone.
    StreamingReader(ByteSource& source, const LoadOptions& options, uint64_t fileBytes,
                    uint64_t* entriesSeen)
        : m_source(source), m_options(options), m_fileBytes(fileBytes), m_entriesSeen(entriesSeen),
          m_threads(parallel::resolveThreads(options.threads)), m_parser(options.parser)
    {
        // A window no larger than the data (when its size is known): a small trace does
        // not pay for zero-filling megabytes it never uses.
        size_t window = std::max<size_t>(options.limits.windowBytes, 64);
        if (fileBytes > 0 && fileBytes < window)
            window = static_cast<size_t>(fileBytes) + 1;
        m_buffer.resize(window + kPaddingBytes);
    }

    LoadResult run(TraceSource traceSource);

private:
    // The size of the data read, when known: a plain file's (a gzip file's is not).
    uint64_t dataBytes() const { return m_source.compressed() ? 0 : m_fileBytes; }

    // Outcome of the walk; Ok means the JSON structure was complete.
    struct Stop
    {
        LoadStatus status = LoadStatus::Ok;
        std::string message;
        uint64_t offset = 0;
    };

    size_t capacity() const { return m_buffer.size() - kPaddingBytes; }
    std::string_view window() const { return {m_buffer.data() + m_pos, m_end - m_pos}; }
    uint64_t absolute(size_t index) const { return m_base + index; }

    bool refill();
    size_t readBytes(char* into, size_t capacity);
    bool skipWhitespace();
    Scan scanValue(size_t& length, size_t limit = std::string_view::npos);
    Stop stopAtEnd(const char* where);
    Stop malformed(const std::string& what, size_t index);
    Stop malformedAt(const std::string& what, uint64_t offset);

    Stop readDocument();
    Stop readTopObject();
    Stop readEventArray();
    bool readEvent(size_t length);
    bool skipUnreadableEvent(std::string reason, bool misplacedSeparator = false);
    void noteMalformed(uint64_t offset, std::string reason);
    bool readEventBatch();
    size_t findBatchEnd(size_t from, size_t to) const;
    bool readEventsOnThreads();

    ByteSource& m_source;
    const LoadOptions& m_options;
    uint64_t m_fileBytes;
    uint64_t* m_entriesSeen = nullptr;
    std::vector<char> m_buffer;
    size_t m_pos = 0;     // next unread byte in m_buffer
    size_t m_end = 0;     // end of valid bytes in m_buffer
    uint64_t m_base = 0;  // absolute offset of m_buffer[0]
    bool m_cancelled = false;
    bool m_sawEvents = false;
    // Bytes handed back by the parallel read, read again before the source's next bytes.
    std::vector<char> m_pending;
    size_t m_pendingPos = 0;

    unsigned m_threads = 1;
    uint64_t m_parallelFrom = 0;  // absolute offset from which the parallel read is tried again
    int m_parallelFailures = 0;
    EventParser m_parser;
    ParsedEvent m_event;
    std::vector<BatchEvent> m_batch;
    uint64_t m_slowUntil = 0;  // absolute offset up to which batches are not tried
    TraceBuilder m_builder;
    uint64_t m_malformedEvents = 0;
    uint64_t m_firstMalformedOffset = 0;
    std::string m_firstMalformedReason;
    std::vector<std::string> m_badTopLevelKeys;
    std::string m_head;  // the data's first bytes: what a file that is no trace is
};

size_t StreamingReader::readBytes(char* into, size_t capacity)
{
    if (m_pendingPos < m_pending.size()) {
        const size_t got = std::min(capacity, m_pending.size() - m_pendingPos);
        std::memcpy(into, m_pending.data() + m_pendingPos, got);
        m_pendingPos += got;
        if (m_pendingPos == m_pending.size())
            m_pending = {};
        return got;
    }
    if (m_source.status() != ByteSource::Status::Ok)
        return 0;
    return m_source.read(into, capacity);
}

bool StreamingReader::refill()
{
    if (m_cancelled || (m_pending.empty() && m_source.status() != ByteSource::Status::Ok))
        return false;
    // Keep one byte before m_pos: the batch parser borrows it for a '['.
    if (m_pos > 1) {
        const size_t drop = m_pos - 1;
        std::memmove(m_buffer.data(), m_buffer.data() + drop, m_end - drop);
        m_base += drop;
        m_end -= drop;
        m_pos = 1;
    }
    if (m_end == capacity())  // one value larger than the window: grow it
        m_buffer.resize(capacity() * 2 + kPaddingBytes);
    if (m_entriesSeen)
        *m_entriesSeen = m_builder.stats().entries;
    const size_t got = readBytes(m_buffer.data() + m_end, capacity() - m_end);
    m_end += got;
    if (m_options.progress && !m_options.progress(m_base + m_end))
        m_cancelled = true;
    return got > 0;
}

bool StreamingReader::skipWhitespace()
{
    for (;;) {
        m_pos = json_scan::skipWhitespace(std::string_view(m_buffer.data(), m_end), m_pos);
        if (m_pos < m_end)
            return true;
        if (!refill())
            return false;
    }
}

// `limit`: a value not complete within so many bytes is Invalid, with length npos.
Scan StreamingReader::scanValue(size_t& length, size_t limit)
{
    for (;;) {
        const auto result = json_scan::scanValue(window());
        if (result.status != Scan::NeedMore) {
            length = result.length;
            return result.status;
        }
        if (m_end - m_pos > limit) {
            length = std::string_view::npos;  // (not a byte of it is wrong)
            return Scan::Invalid;
        }
        if (!refill())
            return Scan::NeedMore;
    }
}

StreamingReader::Stop StreamingReader::stopAtEnd(const char* where)
{
    if (m_cancelled)
        return {LoadStatus::Cancelled, "loading cancelled", absolute(m_end)};
    const uint64_t end = absolute(m_end);
    if (m_source.status() == ByteSource::Status::Error)
        return {LoadStatus::ReadError,
                m_source.error() + " (after " + std::to_string(end) +
                    " bytes of decompressed data)",
                end};
    const std::string cause =
        m_source.status() == ByteSource::Status::Truncated ? m_source.error() : "the file ends";
    return {LoadStatus::Truncated,
            "truncated trace: " + cause + " at byte " + std::to_string(end) + " " + where, end};
}

StreamingReader::Stop StreamingReader::malformed(const std::string& what, size_t index)
{
    return malformedAt(what, absolute(index));
}

StreamingReader::Stop StreamingReader::malformedAt(const std::string& what, uint64_t offset)
{
    return {LoadStatus::Malformed, "malformed JSON at byte " + std::to_string(offset) + ": " + what,
            offset};
}

// The event of `length` bytes at m_pos; false (and nothing added) when it is not JSON.
bool StreamingReader::readEvent(size_t length)
{
    const std::string_view text(m_buffer.data() + m_pos, length);
    const size_t readableAfter = m_buffer.size() - (m_pos + length);
    switch (m_parser.parse(text, readableAfter, m_event)) {
    case EventParser::Result::Repaired:
        ++m_builder.stats().repairedEvents;
        [[fallthrough]];
    case EventParser::Result::Ok:
        m_builder.addEvent(m_event, absolute(m_pos));
        return true;
    case EventParser::Result::Malformed:
        break;
    }
    return false;
}

void StreamingReader::noteMalformed(uint64_t offset, std::string reason)
{
    m_builder.skip("malformed event JSON");
    if (m_malformedEvents++ == 0) {
        m_firstMalformedOffset = offset;
        m_firstMalformedReason = std::move(reason);
    }
}

// At m_pos, an element of the event array that could not be read (or, with
// `misplacedSeparator`, a byte where a ',' should be): moves m_pos to the next event, so one
// bad event costs itself and not the rest of the file. Once the next event is found, the
// bad one is read again within its own bytes, where a quote torch left unescaped can be
// mended (counted as repaired, as is an event read whole after a lost ','); else it is
// counted as malformed. False when no event follows (the caller stops there).
bool StreamingReader::skipUnreadableEvent(std::string reason, bool misplacedSeparator)
{
    const uint64_t bad = absolute(m_pos);
    const bool anEvent = m_buffer[m_pos] == '{';
    // The next event opens with the bad one's first key ("ph" in Kineto's events), so a
    // '}, {' inside the bad event's args (an array of objects) is no boundary. Within
    // maxEventBytes of it; past that, or at the end of the data, any element will do.
    std::string key{anEvent ? json_scan::firstKey(window()) : std::string_view()};
    uint64_t from = bad + 1;
    for (;;) {
        const size_t next = json_scan::nextElementStart(std::string_view(m_buffer.data(), m_end),
                                                        static_cast<size_t>(from - m_base), key);
        if (next != std::string_view::npos) {
            size_t end = next;  // one past the bad event's '}'
            while (m_buffer[end - 1] != '}')
                --end;
            const bool whole = absolute(m_pos) == bad;
            if (anEvent && whole && readEvent(end - m_pos)) {
                if (misplacedSeparator)
                    ++m_builder.stats().repairedEvents;
            } else {
                noteMalformed(bad, std::move(reason));
            }
            m_pos = next;
            return true;
        }
        const bool pastEvent = m_end - m_pos > m_options.limits.maxEventBytes;
        if (!key.empty() && pastEvent) {
            key.clear();  // the bytes from the bad event on are all still here
            from = bad + 1;
            continue;
        }
        // Not in the window: read on. The bad event's bytes are kept while it may still be
        // one event; past that, only a tail that may hold the start of a boundary.
        constexpr size_t kTailBytes = 256;
        from = std::max(bad + 1, m_base + std::max<size_t>(m_end, kTailBytes) - kTailBytes);
        if (pastEvent)
            m_pos = std::max(m_pos, static_cast<size_t>(from - m_base));
        if (!refill()) {
            if (!key.empty() && !m_cancelled) {
                key.clear();
                from = bad + 1;
                continue;
            }
            noteMalformed(bad, std::move(reason));
            return false;
        }
    }
}

size_t StreamingReader::findBatchEnd(size_t from, size_t to) const
{
    return json_scan::lastElementEnd(std::string_view(m_buffer.data(), to), from,
                                     m_options.limits.batchLookBackBytes);
}

bool StreamingReader::readEventBatch()
{
    // Many events in one simdjson document: the byte before the first event (a '[' or
    // ',' or whitespace) becomes '[' and the byte after the last becomes ']' for the
    // duration of the parse. (Several threads read blocks instead: readEventsOnThreads.)
    if (m_pos == 0 || absolute(m_pos) < m_slowUntil || m_buffer[m_pos] != '{')
        return false;
    const size_t end = findBatchEnd(m_pos, m_end);
    if (end == std::string_view::npos)
        return false;
    char* const p = m_buffer.data();
    const char before = p[m_pos - 1];
    const char after = p[end];
    p[m_pos - 1] = '[';
    p[end] = ']';
    const std::string_view text(p + m_pos - 1, end - m_pos + 2);
    const bool parsed = m_parser.parseArray(text, m_buffer.size() - (end + 1), m_batch);
    p[m_pos - 1] = before;
    p[end] = after;
    if (!parsed) {
        m_slowUntil = absolute(end);
        return false;
    }
    m_builder.addBatch(m_batch, absolute(m_pos - 1));
    m_builder.expectTotal(absolute(end), dataBytes());
    m_pos = end;
    return true;
}

bool StreamingReader::readEventsOnThreads()
{
    // The window's bytes from the one before this event go first, then the source's.
    ParallelEventsInput input;
    input.start = std::string_view(m_buffer.data() + m_pos - 1, m_end - (m_pos - 1));
    input.startOffset = absolute(m_pos - 1);
    input.totalBytes = dataBytes();
    input.read = [this](char* into, size_t capacity) { return readBytes(into, capacity); };
    input.progress = [this](uint64_t bytesRead) {
        if (m_entriesSeen)
            *m_entriesSeen = m_builder.stats().entries;
        return !m_options.progress || m_options.progress(bytesRead);
    };
    input.threads = m_threads;
    input.blockBytes = std::max<size_t>(m_options.limits.parallelBlockBytes, 64);
    input.lookBackBytes = m_options.limits.batchLookBackBytes;
    input.parser = m_options.parser;
    ParallelEventsOutcome outcome = readEventsInParallel(input, m_parser, m_builder);
    if (outcome.cancelled) {
        m_cancelled = true;
        return false;
    }
    if (outcome.failedBlockEnd > 0) {
        m_slowUntil = outcome.failedBlockEnd;  // the serial reader goes one event at a time there
        ++m_parallelFailures;
    }
    // Not tried again within the bytes handed back: they end the array, or hold what
    // did not parse.
    m_parallelFrom = outcome.restOffset + outcome.rest.size();
    // The window restarts at the handed-back bytes, the byte before the resume point first.
    m_pending = std::move(outcome.rest);
    m_pendingPos = 0;
    m_base = outcome.restOffset;
    m_pos = 0;
    m_end = 0;
    refill();
    m_pos = std::min<size_t>(1, m_end);
    return outcome.appendedAny;
}

StreamingReader::Stop StreamingReader::readEventArray()
{
    m_sawEvents = true;
    ++m_pos;  // '['
    for (;;) {
        if (!skipWhitespace())
            return stopAtEnd("inside the event array");
        if (m_buffer[m_pos] == ']') {
            ++m_pos;
            return {};
        }
        // Blocks of events on several threads; a failed block is read here, one at a time.
        constexpr int kParallelAttempts = 8;
        bool afterEvent = false;
        if (m_threads > 1 && m_buffer[m_pos] == '{' && m_pos > 0 &&
            absolute(m_pos) >= m_parallelFrom && m_parallelFailures < kParallelAttempts) {
            afterEvent = readEventsOnThreads();
            if (m_cancelled)
                return stopAtEnd("inside the event array");
            if (!afterEvent && !skipWhitespace())
                return stopAtEnd("inside the event array");
        }
        // (After blocks, what follows is the ',' or ']' after their last event.)
        if (!afterEvent && !readEventBatch()) {
            size_t length = 0;
            Scan scan = scanValue(length, m_options.limits.maxEventBytes);
            if (scan == Scan::NeedMore) {
                // The data ends inside this event, or its quotes are broken and the scan
                // ran to the end: then an event follows it, or the array ends after it.
                if (json_scan::nextElementStart(window(), 1) == std::string_view::npos) {
                    const size_t close = json_scan::arrayEndAfter(window(), 1);
                    if (close == std::string_view::npos)
                        return stopAtEnd("inside the event array");
                    ++m_builder.stats().entries;
                    size_t end = close;  // one past the last event's '}'
                    while (m_buffer[m_pos + end - 1] != '}')
                        --end;
                    if (!readEvent(end))
                        noteMalformed(absolute(m_pos), "the last event's strings do not end (a "
                                                       "quote not escaped?)");
                    m_pos += close;
                    continue;
                }
                scan = Scan::Invalid;
                length = std::string_view::npos;
            }
            ++m_builder.stats().entries;
            if (scan == Scan::Invalid || (m_buffer[m_pos] == '{' && !readEvent(length))) {
                std::string reason =
                    scan == Scan::Complete ? m_parser.lastError()
                    : length != std::string_view::npos
                        ? "unexpected '" +
                              printableExcerpt(std::string_view(&m_buffer[m_pos + length], 1)) +
                              "' in an event"
                        : std::string("an event whose strings do not end (a quote "
                                      "not escaped?)");
                const uint64_t at = absolute(m_pos);
                if (!skipUnreadableEvent(reason))
                    return m_cancelled
                               ? stopAtEnd("inside the event array")
                               : malformedAt("expected an event object (" + reason + ")", at);
                continue;
            }
            if (m_buffer[m_pos] != '{')
                m_builder.skip("array element is not an object");
            m_pos += length;
        }
        if (!skipWhitespace())
            return stopAtEnd("inside the event array");
        if (m_buffer[m_pos] == ',') {
            ++m_pos;
        } else if (m_buffer[m_pos] != ']') {
            const std::string reason = "expected ',' or ']' after an event, found '" +
                                       printableExcerpt(std::string_view(&m_buffer[m_pos], 1)) +
                                       "'";
            const uint64_t at = absolute(m_pos);
            ++m_builder.stats().entries;  // the event after the bad byte goes with it
            if (!skipUnreadableEvent(reason, true))
                return m_cancelled ? stopAtEnd("inside the event array") : malformedAt(reason, at);
        }
    }
}

StreamingReader::Stop StreamingReader::readTopObject()
{
    m_builder.metadata().container = TraceContainer::EventsObject;
    ++m_pos;  // '{'
    for (bool first = true;; first = false) {
        if (!skipWhitespace())
            return stopAtEnd("inside the top-level object");
        if (m_buffer[m_pos] == '}' && first) {
            ++m_pos;
            return {};
        }
        if (m_buffer[m_pos] != '"')
            return malformed("expected a key in the top-level object", m_pos);
        size_t length = 0;
        if (scanValue(length) != Scan::Complete)
            return stopAtEnd("inside the top-level object");
        const std::string key(m_buffer.data() + m_pos + 1, length - 2);
        m_pos += length;
        if (!skipWhitespace())
            return stopAtEnd("inside the top-level object");
        if (m_buffer[m_pos] != ':')
            return malformed("expected ':' after key \"" + printableExcerpt(key) + "\"", m_pos);
        ++m_pos;
        if (!skipWhitespace())
            return stopAtEnd("inside the top-level object");
        if (key == "traceEvents" && m_buffer[m_pos] == '[') {
            if (Stop stop = readEventArray(); stop.status != LoadStatus::Ok)
                return stop;
        } else {
            const Scan scan = scanValue(length);
            if (scan == Scan::NeedMore)
                return stopAtEnd("inside the top-level object");
            if (scan == Scan::Invalid)
                return malformed("unexpected character in the value of \"" + printableExcerpt(key) +
                                     "\"",
                                 m_pos + length);
            if (!readTopLevelValue(key, std::string_view(m_buffer.data() + m_pos, length),
                                   m_builder.metadata()))
                m_badTopLevelKeys.push_back(key);
            m_pos += length;
        }
        if (!skipWhitespace())
            return stopAtEnd("inside the top-level object");
        if (m_buffer[m_pos] == '}') {
            ++m_pos;
            return {};
        }
        if (m_buffer[m_pos] != ',')
            return malformed("expected ',' or '}' in the top-level object", m_pos);
        ++m_pos;
    }
}

StreamingReader::Stop StreamingReader::readDocument()
{
    if (!skipWhitespace()) {
        if (m_source.status() == ByteSource::Status::EndOfData)
            return {LoadStatus::Empty,
                    absolute(m_end) == 0 ? "empty file" : "the file holds only whitespace", 0};
        return stopAtEnd("before any JSON");
    }
    m_head.assign(window().substr(0, 4096));
    // A UTF-8 byte order mark is tolerated.
    if (window().starts_with("\xEF\xBB\xBF")) {
        m_pos += 3;
        if (!skipWhitespace())
            return {LoadStatus::Empty, "the file holds only a byte order mark", 0};
    }
    const char first = m_buffer[m_pos];
    if (first == '[' || first == '{') {
        if (first == '[')
            m_builder.metadata().container = TraceContainer::BareArray;
        if (Stop stop = first == '[' ? readEventArray() : readTopObject();
            stop.status != LoadStatus::Ok)
            return stop;
        // After the trace, whitespace only (and NUL bytes: a file preallocated, or cut on a
        // file system that pads it): more (two traces written into one file) would
        // otherwise go unread without a word, as Python's json calls it "Extra data".
        while (skipWhitespace()) {
            if (m_buffer[m_pos] != '\0')
                return malformed("the file goes on after the trace's end (two traces in one "
                                 "file?); what follows is not read",
                                 m_pos);
            ++m_pos;
        }
        return {};
    }
    const bool printable = first >= 0x20 && first < 0x7f;
    return {LoadStatus::NotATrace,
            std::string("not a JSON trace: the data starts with ") +
                (printable ? std::string("'") + first + "'" : std::string("a binary byte")) +
                " instead of '{' or '['",
            absolute(m_pos)};
}

LoadResult StreamingReader::run(TraceSource traceSource)
{
    const auto started = std::chrono::steady_clock::now();
    Stop stop = readDocument();
    LoadResult result;
    // Problems in the middle of the data keep every event read before them.
    const bool structural = stop.status == LoadStatus::Truncated ||
                            stop.status == LoadStatus::Malformed ||
                            (stop.status == LoadStatus::ReadError && m_builder.stats().entries > 0);
    if (stop.status == LoadStatus::Ok && !m_sawEvents) {
        stop = {LoadStatus::NotATrace, "not a trace: the JSON object has no \"traceEvents\" array",
                0};
    }
    const uint64_t entries = m_builder.stats().entries;
    if (stop.status == LoadStatus::Ok && entries > 0 && m_builder.eventCount() == 0 &&
        m_builder.stats().skippedTotal() == entries) {
        stop = {LoadStatus::NotATrace,
                "not a trace: none of the " + format::count(entries) +
                    " elements of the event array is a trace event",
                0};
    }
    if (stop.status == LoadStatus::Ok && m_sawEvents && entries == 0)
        stop = {LoadStatus::Empty, "no events: the trace's event array is empty", 0};
    // One of torch.profiler's other outputs: said by name, with what to open.
    if (stop.status == LoadStatus::NotATrace)
        if (const std::string other = otherTorchOutput(m_head); !other.empty())
            stop.message = "not a trace: " + other + "; " + std::string(kOpenTheTraceInstead);
    if (stop.status == LoadStatus::Ok && m_malformedEvents > 0) {
        stop = {LoadStatus::Malformed,
                "malformed JSON at byte " + std::to_string(m_firstMalformedOffset) + " (" +
                    m_firstMalformedReason + "): " + format::count(m_malformedEvents) +
                    " malformed event(s) skipped, the other " +
                    format::count(entries - m_malformedEvents) + " entries read",
                m_firstMalformedOffset};
    }
    if (structural)
        stop.message += "; recovered " + format::count(entries) + " events before it";
    if (stop.status == LoadStatus::Ok && !m_badTopLevelKeys.empty()) {
        // Unreadable metadata is not worth failing the load: count it like a skipped event.
        for (const std::string& key : m_badTopLevelKeys)
            m_builder.skip("unreadable top-level value \"" + printableExcerpt(key) + "\"");
    }
    for (const std::string& field : m_builder.metadata().rejectedValues)
        m_builder.skip("metadata value out of range: " + printableExcerpt(field));

    const bool keepModel =
        stop.status == LoadStatus::Ok || structural || stop.status == LoadStatus::Malformed;
    IngestStats& stats = m_builder.stats();
    stats.bytesRead = absolute(m_end);
    stats.fileBytes = m_fileBytes;
    if (structural)
        stats.partlyRead = stop.message;
    if (keepModel)
        result.model = std::make_shared<const TraceModel>(
            m_builder.finish(std::move(traceSource), started, m_threads));
    result.status = stop.status;
    result.message = std::move(stop.message);
    result.errorOffset = stop.offset;
    return result;
}

}  // namespace

namespace {

// Runs a load; when memory runs out, everything it built is freed first (the reader and
// its model are gone by the time the message is made) and one line says so.
template <typename Load>
LoadResult loadWithinMemory(const Load& load)
{
    uint64_t bytesRead = 0;
    uint64_t entries = 0;
    try {
        return load(bytesRead, entries);
    } catch (const std::bad_alloc&) {
        return {LoadStatus::OutOfMemory,
                "out of memory after reading " + format::bytes(double(bytesRead)) +
                    " of the trace (" + format::counted(entries, "event") +
                    "): free memory, or close other traces, and open it again",
                bytesRead, nullptr};
    }
}

}  // namespace

LoadResult loadTraceFile(const std::filesystem::path& path, const LoadOptions& options)
{
    return loadWithinMemory([&](uint64_t& bytesRead, uint64_t& entries) -> LoadResult {
        std::string error;
        auto source = openFileSource(path, error);
        if (!source)
            return {LoadStatus::NotFound, error, 0, nullptr};
        std::error_code ec;
        const auto fileBytes = std::filesystem::file_size(path, ec);
        LoadOptions counted = options;
        counted.progress = [&](uint64_t bytes) {
            bytesRead = bytes;
            return options.progress ? options.progress(bytes) : true;
        };
        StreamingReader reader(*source, counted, ec ? 0 : fileBytes, &entries);
        // The gzip index fills while the reader decompresses; it is complete when run() ends.
        LoadResult result = reader.run(TraceSource{path, nullptr, source->gzipIndex()});
        if (result.status == LoadStatus::Empty && source->compressed())
            result.message = "empty file (the gzip stream holds no data)";
        return result;
    });
}

LoadResult loadTraceText(std::string text, const LoadOptions& options)
{
    return loadWithinMemory([&](uint64_t& bytesRead, uint64_t& entries) -> LoadResult {
        auto shared = std::make_shared<const std::string>(std::move(text));
        auto source = memorySource(*shared);
        LoadOptions counted = options;
        counted.progress = [&](uint64_t bytes) {
            bytesRead = bytes;
            return options.progress ? options.progress(bytes) : true;
        };
        StreamingReader reader(*source, counted, shared->size(), &entries);
        return reader.run(TraceSource{{}, shared, nullptr});
    });
}

}  // namespace kinetoscope::trace
