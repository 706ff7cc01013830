#pragma once
// The fast path of the event array: one pass over text of the shape torch.profiler
// writes, straight into BatchEvents, without simdjson's structural index or its on-demand
// walk. It reads every field exactly as the simdjson parser does (event_parser_body.inc;
// the decisions both make are shared in event_parser.h), so the model is the same
// whichever of the two read an array.
//
// It reads a strict part of JSON and gives up, rather than guess, at anything outside
// it: an element that is not an object; a string it keeps that holds an escape; a number
// it keeps that is not a plain integer (or, for a float field, a short plain decimal);
// bytes that are not UTF-8; a control character in a string; nesting deeper than
// kMaxScanDepth; anything that is not valid JSON. The caller then gives the same text to
// simdjson, which decides. Since it accepts only valid JSON, it never reads an array
// that simdjson would refuse.
#include <cstddef>
#include <string_view>
#include <vector>

namespace kinetoscope::trace {

struct BatchEvent;

inline constexpr int kMaxScanDepth = 64;

// Reads `text`, a JSON array of event objects, into `out` (views into `text`); up to
// `readableAfter` bytes after text.end() may be read. False when the text is not of the
// shape it reads, with `out` unspecified.
bool scanEventArray(std::string_view text, size_t readableAfter, std::vector<BatchEvent>& out);

}  // namespace kinetoscope::trace
