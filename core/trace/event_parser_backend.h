#pragma once
// The interface between EventParser and its simdjson-specific implementations (see
// event_parser_body.inc). Kept free of simdjson types so each backend can be compiled
// with its own instruction set.
#include "core/trace/event_parser.h"

#include <memory>

namespace kinetoscope::trace {

// simdjson reads up to this many bytes past the end of a document.
inline constexpr size_t kPaddingBytes = 64;

class EventParserBackend
{
public:
    virtual ~EventParserBackend() = default;
    // Returns 0 on success, else a simdjson error code. `capacity` >= length + padding.
    virtual int parse(const char* data, size_t length, size_t capacity, ParsedEvent& out) = 0;
    virtual const char* errorMessage(int code) const = 0;
    virtual const char* implementation() const = 0;
};

std::unique_ptr<EventParserBackend> makeGenericEventParserBackend();
std::unique_ptr<EventParserBackend> makeAvx2EventParserBackend();
// The fastest backend this CPU can run.
std::unique_ptr<EventParserBackend> makeEventParserBackend();

}  // namespace kinetoscope::trace
