#pragma once
// Structural scanning of JSON text without parsing it: where does the value that starts
// here end? The loader uses it to cut the event array into single events, which simdjson
// then parses one by one, so no document larger than one event is ever built.
#include <cstddef>
#include <string>
#include <string_view>

namespace kinetoscope::trace::json_scan {

enum class Scan
{
    Complete,
    NeedMore,
    Invalid
};

struct ScanResult
{
    Scan status;
    size_t length;  // bytes of the value when Complete; offset of the bad byte when Invalid
};

inline bool isWhitespace(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Index of the first non-whitespace byte in [from, size), or size.
size_t skipWhitespace(std::string_view text, size_t from);

// Scans the JSON value that starts at text[0] (an object, array, string or scalar).
// NeedMore when the text ends before the value does; for a scalar, a value that runs to
// the end of the text is NeedMore too, since more digits may follow.
ScanResult scanValue(std::string_view text);

// The end (one past the '}') of the last element of an array of objects that ends within
// text[from, text.size()): a '}' followed by ',' and the '{' of the next element, searched
// from the back over at most `lookBack` bytes; npos when there is none. A match inside a
// string or a nested array is possible: a batch cut there is not valid JSON, and its
// parser says so.
size_t lastElementEnd(std::string_view text, size_t from, size_t lookBack);

// The first element of an array of objects that starts at or after `from`: the index of a
// '{' that follows a '}' and a ',' (whitespace between allowed, looked for before `from`
// too) and is followed by a '"' (the element's first key; with `key` ("\"ph\"", quotes
// included), by that key); npos when there is none within the text. The reader resumes
// there after an event it could not read, whatever the quotes before it: one string with a
// quote left unescaped turns every later string inside out for a scan that counts quotes.
size_t nextElementStart(std::string_view text, size_t from, std::string_view key = {});

// The end of an array of objects at or after `from`: the index of a ']' that follows a '}'
// (at or after `from`) and is followed by a ',', a '}' or nothing (whitespace between
// allowed); npos when there is none. Where the last event's quotes are broken, the array
// still ends there.
size_t arrayEndAfter(std::string_view text, size_t from);

// The first key of the object at text[0] ('{'), quotes included ("\"ph\""); "" when it
// has none within `most` bytes.
std::string_view firstKey(std::string_view text, size_t most = 64);

// A copy of `text` with the two string defects that torch.profiler has been seen to
// write mended: raw control characters inside strings become spaces
// (pytorch/pytorch#130622) and a backslash that starts no valid escape is doubled
// (Windows paths, pytorch/kineto#336); bytes that are not UTF-8 (a name in a legacy
// encoding) become U+FFFD; a quote inside a string followed right away by a byte that
// cannot follow a string's end (not whitespace, ',', ':', '}' or ']') is the string's own and
// is escaped (torch wrote a Python frame named `validator.py(0):     """` as it is).
// Returns false when there was nothing to mend. Only text that failed to parse is mended.
// (A quote before whitespace is taken as the end: `"ts" 5`, a lost ':', stays an error.)
bool repairStrings(std::string_view text, std::string& repaired);

}  // namespace kinetoscope::trace::json_scan
