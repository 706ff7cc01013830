#pragma once
// An event's `args`, typed: read back from the trace source on demand (the model does not
// keep them: a seek in a plain file, or gzip decompression from the nearest access point),
// parsed into key/value pairs. Nobody downstream parses JSON: the analysis asks for a key,
// the timeline shows the pairs.
#include "core/trace/trace_model.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kinetoscope::trace {

struct Arg;

struct ArgValue
{
    using Array = std::vector<ArgValue>;
    using Object = std::vector<Arg>;  // nested objects keep their key order
    // null, bool, integer, unsigned integer beyond int64, other number, string, array, object
    std::variant<std::monostate, bool, int64_t, uint64_t, double, std::string, Array, Object> value;

    // An int64, or a number with an integral value inside int64; nullopt otherwise.
    std::optional<int64_t> integer() const;
    const std::string* string() const;  // null unless a string
    const Array* array() const;         // null unless an array
};

struct Arg
{
    std::string key;
    ArgValue value;
};

// The event's args, in file order; empty when it has none. nullopt when the source can
// no longer be read (the file moved or changed) or the event's object is not valid JSON.
std::optional<std::vector<Arg>> readArgs(const TraceModel& model, EventId id);

// The args of many events (out[i] for ids[i]), read in file order with one reader, so that
// a gzip file is inflated at most once over rather than once per event.
std::vector<std::optional<std::vector<Arg>>> readArgsOf(const TraceModel& model,
                                                        std::span<const EventId> ids);

// The first arg named `key`, or null.
const ArgValue* findArg(std::span<const Arg> args, std::string_view key);

// For people: a string as it is; a number in its shortest exact form; arrays and objects
// as JSON with ", " and ": " between items ([[4, 8], [8, 16]]).
std::string argText(const ArgValue& value);
// The whole object the same way: {"key": value, ...} (strings quoted).
std::string argsText(std::span<const Arg> args);

}  // namespace kinetoscope::trace
