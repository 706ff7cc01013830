#pragma once
// A direct reader for the shape torch.profiler writes its event array in, ahead of
// simdjson. Every trace on file writes its strings without escapes and its numbers in
// plain forms; for such text one pass over the bytes reads an event in about 60 % of the
// time simdjson's on-demand walk takes (docs/scaling.md). Anything else is declined, not
// guessed at: the simdjson backends then read it, or reject it with their error.
#include <string_view>
#include <vector>

namespace kinetoscope::trace {

struct BatchEvent;

// Reads `text`, a JSON array of event objects with kPaddingBytes readable after its end,
// into `out` exactly as the simdjson backends would (the same fields, the same values;
// views may point into `text` instead of a parser's buffer). Returns false, with `out`
// unspecified, when any byte is outside the common shape: an escape in a string, a value
// in a form the readings below do not take, nesting deeper than 32, an element that is
// not an object, or text that is not JSON. True is never returned for text the simdjson
// backends reject or read differently (tests/core/test_event_parser.cpp compares the
// two on every shared trace; the ingest fuzzer on every input it makes).
bool scanCommonEventArray(std::string_view text, std::vector<BatchEvent>& out);

}  // namespace kinetoscope::trace
