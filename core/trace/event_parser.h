#pragma once
// Parses one trace event (one JSON object of the event array) with simdjson's on-demand
// API into a flat ParsedEvent. Only the fields the model keeps are decoded; the rest of
// `args` is skipped and read again from the file when someone asks (core/trace/event_args.h).
#include "core/trace/activity_info.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope::trace {

// A pid or tid as written: a number, a numeric string ("25738"), a GPU stream
// ("stream 7") or a label ("Spans").
struct ProcessOrThread
{
    int64_t number = 0;
    std::string_view label;  // non-empty when the value was a non-numeric string
    bool present = false;
    bool streamPrefix = false;  // "stream N"

    bool operator==(const ProcessOrThread&) const = default;
};

// Every view points into the parser's buffers and is valid until the next parse().
struct ParsedEvent
{
    char phase = '\0';
    std::string_view name;
    std::string_view cat;
    bool hasCat = false;
    ProcessOrThread pid;
    ProcessOrThread tid;
    int64_t tsNs = 0;
    bool hasTs = false;
    int64_t durNs = 0;
    bool hasDur = false;
    bool invalidTime = false;     // ts or dur present but not a number
    bool timeOutOfRange = false;  // ts or dur a number, but beyond int64 nanoseconds
    uint64_t flowId = 0;
    bool hasFlowId = false;
    bool bindEnclosing = false;  // `"bp": "e"` on a flow end

    // From args; -1 (or NaN-like sentinels) when absent.
    int64_t correlation = -1;
    int64_t externalId = -1;
    std::string_view inputDims;  // args["Input Dims"] (or "Input dims") as raw JSON text
    KernelInfo kernel;           // launch configuration, for kernels
    CopyInfo copy;               // `bytes` and bandwidth, for memcpy/memset
    // `[memory]` instants
    int64_t memBytes = 0;
    bool hasMemBytes = false;
    int64_t totalAllocated = -1;
    int64_t totalReserved = -1;
    uint64_t address = 0;
    int64_t deviceId = -1;
    int64_t deviceType = 0;
    // metadata (`M`) rows
    std::string_view metaName;    // args.name
    std::string_view metaLabels;  // args.labels
    int64_t sortIndex = 0;
    bool hasSortIndex = false;

    // Field by field, views by their text.
    bool operator==(const ParsedEvent&) const = default;
};

// Converts a JSON number token in microseconds to integer nanoseconds without going
// through double where the token is a plain decimal (epoch microseconds need 16 digits).
// False when the token is not a number or its nanoseconds do not fit in int64.
bool microsecondsToNanoseconds(std::string_view token, int64_t& nanoseconds);
// Whether the token reads as a decimal number, of any magnitude (to tell a time that is
// too large for int64 nanoseconds from one that is not a number).
bool isNumberToken(std::string_view token);

// Which simdjson kernels parse: the fastest this CPU runs, or one named (tests and the
// fuzzer run both; Avx2 falls back to Generic on a CPU without AVX2).
enum class ParserBackendChoice
{
    Fastest,
    Generic,
    Avx2
};

class EventParser
{
public:
    explicit EventParser(ParserBackendChoice choice = ParserBackendChoice::Fastest);
    ~EventParser();
    EventParser(const EventParser&) = delete;
    EventParser& operator=(const EventParser&) = delete;

    enum class Result
    {
        Ok,
        Repaired,
        Malformed
    };

    // `text` is one JSON object; `readableAfter` bytes after text.end() may be read
    // (simdjson needs padding). A failure is retried once on a repaired copy.
    Result parse(std::string_view text, size_t readableAfter, ParsedEvent& out);
    // Parses `text`, a JSON array of event objects, into `out` (valid until the next
    // call). Returns false, with `out` unspecified, if any of it is not valid JSON: the
    // caller then falls back to one event at a time to find and skip the bad one.
    bool parseArray(std::string_view text, size_t readableAfter,
                    std::vector<struct BatchEvent>& out);
    // The reason of the last Malformed result.
    const std::string& lastError() const { return m_lastError; }
    // The simdjson kernels in use ("haswell", "fallback", ...).
    const char* implementation() const;

private:
    std::unique_ptr<class EventParserBackend> m_backend;
    std::string m_repaired;
    std::string m_lastError;
};

}  // namespace kinetoscope::trace
