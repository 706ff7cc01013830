#pragma once
// The interface between EventParser and its simdjson-specific implementations (see
// event_parser_body.inc). Kept free of simdjson types so each backend can be compiled
// with its own instruction set.
#include "core/trace/event_parser.h"

#include <memory>
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
