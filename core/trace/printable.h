#pragma once
// Text from a trace or a session is untrusted bytes. Names kept in the model are valid
// UTF-8 (invalid sequences replaced, and counted); messages quote at most a short,
// printable excerpt of what they complain about.
#include <cstddef>
#include <string>
#include <string_view>

namespace kinetoscope::trace {

// U+FFFD, written in place of each invalid UTF-8 sequence.
inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";

bool isValidUtf8(std::string_view bytes);
// Length of the valid UTF-8 sequence starting at byte `i` of `s`, or 0 when the bytes
// there do not start one; `maximal` is then the length of the invalid prefix that one
// U+FFFD replaces.
size_t validSequence(std::string_view s, size_t i, size_t& maximal);
// `bytes` with every maximal invalid sequence replaced by U+FFFD (the WHATWG/Unicode
// "maximal subpart" practice); returns how many were replaced through `replaced`.
std::string toValidUtf8(std::string_view bytes, size_t* replaced = nullptr);
// The longest prefix of valid UTF-8 `text` of at most `maxBytes`, cut at a character
// boundary (never inside a multi-byte character).
std::string_view utf8Prefix(std::string_view text, size_t maxBytes);
// At most `maxBytes` of `bytes` for a one-line message: printable ASCII as is, anything
// else (control characters, non-ASCII bytes) as \xNN, and "..." when cut.
std::string printableExcerpt(std::string_view bytes, size_t maxBytes = 40);

}  // namespace kinetoscope::trace
