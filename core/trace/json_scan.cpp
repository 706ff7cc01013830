#include "core/trace/json_scan.h"

#include "core/trace/printable.h"

#include <cstring>

namespace kinetoscope::trace::json_scan {

size_t skipWhitespace(std::string_view text, size_t from)
{
    while (from < text.size() && isWhitespace(text[from]))
        ++from;
    return from;
}

namespace {

// Given text[open] == '"', returns the index just past the closing quote, or npos.
size_t skipString(std::string_view text, size_t open)
{
    const char* const base = text.data();
    size_t i = open + 1;
    while (i < text.size()) {
        const void* quote = std::memchr(base + i, '"', text.size() - i);
        if (!quote)
            return std::string_view::npos;
        const size_t q = static_cast<size_t>(static_cast<const char*>(quote) - base);
        // The quote is escaped when an odd number of backslashes precede it.
        size_t backslashes = 0;
        while (q - backslashes > open + 1 && base[q - backslashes - 1] == '\\')
            ++backslashes;
        if (backslashes % 2 == 0)
            return q + 1;
        i = q + 1;
    }
    return std::string_view::npos;
}

bool isScalarByte(char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' ||
           (c >= 'a' && c <= 'z');
}

}  // namespace

ScanResult scanValue(std::string_view text)
{
    if (text.empty())
        return {Scan::NeedMore, 0};
    const char first = text[0];
    if (first == '"') {
        const size_t end = skipString(text, 0);
        return end == std::string_view::npos ? ScanResult{Scan::NeedMore, 0}
                                             : ScanResult{Scan::Complete, end};
    }
    if (first != '{' && first != '[') {
        size_t i = 0;
        while (i < text.size() && isScalarByte(text[i]))
            ++i;
        if (i == 0)
            return {Scan::Invalid, 0};
        return i == text.size() ? ScanResult{Scan::NeedMore, 0} : ScanResult{Scan::Complete, i};
    }
    // Object or array: track nesting; brackets inside strings do not count. Mismatched
    // closers are left for the parser to report, only the depth matters here.
    size_t depth = 0;
    size_t i = 0;
    const size_t size = text.size();
    const char* const p = text.data();
    while (i < size) {
        const char c = p[i];
        if (c == '"') {
            i = skipString(text, i);
            if (i == std::string_view::npos)
                return {Scan::NeedMore, 0};
            continue;
        }
        if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (--depth == 0)
                return {Scan::Complete, i + 1};
        }
        ++i;
    }
    return {Scan::NeedMore, 0};
}

bool repairStrings(std::string_view text, std::string& repaired)
{
    repaired.clear();
    repaired.reserve(text.size() + 16);
    bool changed = false;
    bool inString = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (!inString) {
            inString = c == '"';
            repaired.push_back(c);
            continue;
        }
        if (c == '"') {
            // The string's end, unless a byte that cannot follow one comes right after it.
            const char next = i + 1 < text.size() ? text[i + 1] : ',';
            if (isWhitespace(next) || std::strchr(",:}]", next) != nullptr) {
                inString = false;
                repaired.push_back(c);
            } else {
                repaired.append("\\\"");  // a quote of the name, not its end
                changed = true;
            }
        } else if (static_cast<unsigned char>(c) < 0x20) {
            repaired.push_back(' ');
            changed = true;
        } else if (c == '\\') {
            const char next = i + 1 < text.size() ? text[i + 1] : '\0';
            if (std::strchr("\"\\/bfnrtu", next) != nullptr && next != '\0') {
                repaired.push_back(c);
                repaired.push_back(next);
                ++i;
            } else {
                repaired.append("\\\\");
                changed = true;
            }
        } else if (static_cast<unsigned char>(c) >= 0x80) {
            size_t maximal = 0;
            const size_t length = validSequence(text, i, maximal);
            if (length > 0) {
                repaired.append(text.substr(i, length));
                i += length - 1;
            } else {
                repaired.append(kReplacementCharacter);  // not UTF-8: replaced
                i += maximal - 1;
                changed = true;
            }
        } else {
            repaired.push_back(c);
        }
    }
    return changed;
}

namespace {

// From the '{' at text[i] back across whitespace, one ',' and whitespace again, not below
// `floor`: the index just past the element before it (its '}' comes right before it), or
// npos where no ',' is there.
size_t beforeSeparator(std::string_view text, size_t i, size_t floor)
{
    size_t j = i;
    while (j > floor && isWhitespace(text[j - 1]))
        --j;
    if (j == floor || text[j - 1] != ',')
        return std::string_view::npos;
    --j;
    while (j > floor && isWhitespace(text[j - 1]))
        --j;
    return j;
}

}  // namespace

size_t lastElementEnd(std::string_view text, size_t from, size_t lookBack)
{
    const char* const p = text.data();
    const size_t to = text.size();
    const size_t floor = to - from > lookBack ? to - lookBack : from;
    for (size_t i = to; i-- > floor + 1;) {
        if (p[i] != '{')
            continue;
        const size_t j = beforeSeparator(text, i, floor);
        if (j != std::string_view::npos && j > from && p[j - 1] == '}')
            return j;
    }
    return std::string_view::npos;
}

size_t nextElementStart(std::string_view text, size_t from, std::string_view key)
{
    const char* const p = text.data();
    for (size_t i = from; i < text.size(); ++i) {
        if (p[i] != '{')
            continue;
        const size_t first = skipWhitespace(text, i + 1);
        if (first == text.size() || p[first] != '"' ||
            (!key.empty() && text.substr(first, key.size()) != key))
            continue;
        const size_t j = beforeSeparator(text, i, 0);
        if (j != std::string_view::npos && j > 0 && p[j - 1] == '}')
            return i;
    }
    return std::string_view::npos;
}

size_t arrayEndAfter(std::string_view text, size_t from)
{
    for (size_t i = from; i < text.size(); ++i) {
        if (text[i] != ']')
            continue;
        size_t j = i;
        while (j > from && isWhitespace(text[j - 1]))
            --j;
        if (j == from || text[j - 1] != '}')
            continue;
        const size_t after = skipWhitespace(text, i + 1);
        if (after == text.size() || text[after] == ',' || text[after] == '}')
            return i;
    }
    return std::string_view::npos;
}

std::string_view firstKey(std::string_view text, size_t most)
{
    const size_t open = skipWhitespace(text, 1);
    if (open >= text.size() || text[open] != '"')
        return {};
    const size_t close = text.find('"', open + 1);
    if (close == std::string_view::npos || close - open > most)
        return {};
    return text.substr(open, close - open + 1);
}

}  // namespace kinetoscope::trace::json_scan
