#pragma once
// The interface between EventParser and its simdjson-specific implementations (see
// event_parser_body.inc). Kept free of simdjson types so each backend can be compiled
// with its own instruction set.
#include "core/trace/event_parser.h"

#include <memory>
#include <string_view>
#include <vector>

namespace kinetoscope::trace {

// simdjson reads up to this many bytes past the end of a document.
inline constexpr size_t kPaddingBytes = 64;

struct BatchEvent
{
    ParsedEvent event;
    size_t offset = 0;  // of the element, from the start of the parsed text
    bool isObject = false;
};

// `batch.emplace_back()`, compiled once, in a file built for every CPU. The AVX2 backend
// calls this rather than growing the vector itself: a growth path instantiated in its
// AVX2-compiled file could be the copy the linker keeps for the whole program (see
// core/trace/CMakeLists.txt), and the portable backend would then run AVX2 code.
BatchEvent& appendBatchEvent(std::vector<BatchEvent>& batch);

// How a value is read when written in a form other than the common one. Shared by the
// simdjson backends and the common-shape scanner (core/trace/event_array_scan.h), so the
// two read every value alike.
//
// A pid or tid written as a string: a number ("25738"), a GPU stream ("stream 7") or a
// label. A partly numeric label ("12ab") keeps the number read from its start.
ProcessOrThread processOrThreadFromText(std::string_view text);
// An integer written as a string: true when the whole text reads; on false `out` may
// hold what its start read (std::from_chars).
bool integerFromText(std::string_view text, int64_t& out);
// A number written with a fraction or an exponent, rounded to the nearest integer; false
// (out untouched) when it is not finite or beyond int64.
bool integerFromDouble(double value, int64_t& out);
// A finite number within float's range; false (out untouched) otherwise.
bool floatFromDouble(double value, float& out);
// A ts or dur: a number token, or a string's contents, in microseconds. Sets `present`
// when it reads, else `outOfRange` (a number beyond int64 nanoseconds) or `invalid`.
void readTimeToken(std::string_view token, int64_t& out, bool& present, bool& invalid,
                   bool& outOfRange);

class EventParserBackend
{
public:
    virtual ~EventParserBackend() = default;
    // Returns 0 on success, else a simdjson error code. `capacity` >= length + padding.
    virtual int parse(const char* data, size_t length, size_t capacity, ParsedEvent& out) = 0;
    // Parses a JSON array of events in one go (far cheaper than one document per
    // event). All views in `out` stay valid until the next call. Returns 0 or an error;
    // on error `out` is partial and must be discarded.
    virtual int parseArray(const char* data, size_t length, size_t capacity,
                           std::vector<BatchEvent>& out) = 0;
    virtual const char* errorMessage(int code) const = 0;
    virtual const char* implementation() const = 0;
};

std::unique_ptr<EventParserBackend> makeGenericEventParserBackend();
std::unique_ptr<EventParserBackend> makeAvx2EventParserBackend();
// The backend chosen, or the fastest this CPU can run.
std::unique_ptr<EventParserBackend> makeEventParserBackend(ParserBackendChoice choice);

}  // namespace kinetoscope::trace
