#include "core/trace/event_scanner.h"

#include "core/trace/event_parser_backend.h"
#include "core/trace/json_scan.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <simdjson.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kinetoscope::trace {

namespace {

// Nesting of what the scanner reads: the array, an event, its args. Values below are
// skipped with their own depth counted on from there.
constexpr int kEventDepth = 2;
constexpr int kArgsDepth = 3;

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

bool isHexDigit(char c)
{
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool startsNumber(char c)
{
    return c == '-' || isDigit(c);
}

// Every member that reads a value expects m_p at its first byte and leaves m_p just past
// it. A false return means "not the shape this scanner reads": the caller gives up on
// the whole array, so nothing needs undoing.
class Scanner
{
public:
    Scanner(std::string_view text, size_t readableAfter)
        : m_begin(text.data()), m_p(text.data()), m_end(text.data() + text.size()),
          m_readableEnd(m_end + readableAfter)
    {
    }

    bool eventArray(std::vector<BatchEvent>& out);

private:
    void skipWhitespace()
    {
        // Bytes above ' ' are never whitespace: the common case, a token right here, costs
        // one comparison.
        while (m_p < m_end && static_cast<unsigned char>(*m_p) <= ' ' &&
               json_scan::isWhitespace(*m_p))
            ++m_p;
    }
    // The next byte after whitespace ('\0' at the end), which m_p is left at.
    char peek()
    {
        skipWhitespace();
        return m_p < m_end ? *m_p : '\0';
    }
    bool take(char c)
    {
        if (peek() != c)
            return false;
        ++m_p;
        return true;
    }

    const char* stringStop(const char* p) const;
    bool string(std::string_view& content, bool& escaped);
    bool plainString(std::string_view& content);
    bool number(std::string_view& token, bool& isInteger);
    bool literal(std::string_view word);
    bool skipValue(int depth);
    bool skipContainer(char close, int depth);
    template <typename ReadValue>
    bool members(ReadValue readValue);

    bool integer(int64_t& out, bool& read, int depth);
    template <typename Int>
    bool integerAs(Int& out, int depth);
    bool floatValue(float& out, int depth);
    bool stringValue(std::string_view& out, int depth);
    bool time(int64_t& out, bool& present, bool& invalid, bool& outOfRange);
    bool processOrThread(ProcessOrThread& out);
    bool triple(int32_t (&out)[3]);
    bool event(ParsedEvent& out);
    bool eventField(EventField field, ParsedEvent& out);
    bool args(ParsedEvent& out);
    bool argField(ArgField field, ParsedEvent& out);

    const char* const m_begin;
    const char* m_p;
    const char* const m_end;
    const char* const m_readableEnd;  // reads for speed may look this far, never further
};

// The first '"', '\\' or control character at or after `p`; at or past m_end when there is
// none before it.
const char* Scanner::stringStop(const char* p) const
{
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i lastControl = _mm_set1_epi8(0x1f);
    while (m_readableEnd - p >= 16) {
        const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(bytes, lastControl), bytes);
        const __m128i stop = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(bytes, quote), _mm_cmpeq_epi8(bytes, backslash)), control);
        if (const int mask = _mm_movemask_epi8(stop))
            return p + __builtin_ctz(static_cast<unsigned>(mask));
        p += 16;
    }
#endif
    while (p < m_end && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20)
        ++p;
    return p;
}

// A string at m_p, its content as written; `escaped` when it holds an escape (all valid).
bool Scanner::string(std::string_view& content, bool& escaped)
{
    const char* const begin = m_p + 1;
    const char* p = begin;
    escaped = false;
    for (;;) {
        p = stringStop(p);
        if (p >= m_end || *p != '\\') {
            if (p >= m_end || *p != '"')
                return false;  // unterminated, or a control character
            break;
        }
        escaped = true;
        if (m_end - p < 2)
            return false;
        switch (p[1]) {
        case '"':
        case '\\':
        case '/':
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't':
            p += 2;
            break;
        case 'u':
            if (m_end - p < 6 || !isHexDigit(p[2]) || !isHexDigit(p[3]) || !isHexDigit(p[4]) ||
                !isHexDigit(p[5]))
                return false;
            p += 6;
            break;
        default:
            return false;
        }
    }
    content = std::string_view(begin, static_cast<size_t>(p - begin));
    m_p = p + 1;
    return true;
}

// A string that is kept: one with escapes would need unescaping, which simdjson does.
bool Scanner::plainString(std::string_view& content)
{
    bool escaped = false;
    return string(content, escaped) && !escaped;
}

// A number by JSON's grammar; `isInteger` when it has neither fraction nor exponent.
bool Scanner::number(std::string_view& token, bool& isInteger)
{
    const char* p = m_p;
    if (p < m_end && *p == '-')
        ++p;
    if (p >= m_end || !isDigit(*p))
        return false;
    if (*p == '0')
        ++p;
    else
        while (p < m_end && isDigit(*p))
            ++p;
    isInteger = true;
    if (p < m_end && *p == '.') {
        isInteger = false;
        if (++p >= m_end || !isDigit(*p))
            return false;
        while (p < m_end && isDigit(*p))
            ++p;
    }
    if (p < m_end && (*p == 'e' || *p == 'E')) {
        isInteger = false;
        if (++p < m_end && (*p == '+' || *p == '-'))
            ++p;
        if (p >= m_end || !isDigit(*p))
            return false;
        while (p < m_end && isDigit(*p))
            ++p;
    }
    token = std::string_view(m_p, static_cast<size_t>(p - m_p));
    m_p = p;
    return true;
}

bool Scanner::literal(std::string_view word)
{
    if (static_cast<size_t>(m_end - m_p) < word.size() ||
        std::string_view(m_p, word.size()) != word)
        return false;
    m_p += word.size();
    return true;
}

// An object at m_p: `readValue(key)` reads each member's value, the key as written.
template <typename ReadValue>
bool Scanner::members(ReadValue readValue)
{
    ++m_p;
    if (take('}'))
        return true;
    for (;;) {
        std::string_view key;
        bool escaped = false;
        if (peek() != '"' || !string(key, escaped) || !take(':'))
            return false;
        skipWhitespace();
        if (!readValue(key))
            return false;
        if (!take(','))
            return take('}');
    }
}

bool Scanner::skipValue(int depth)
{
    switch (peek()) {
    case '"': {
        std::string_view content;
        bool escaped = false;
        return string(content, escaped);
    }
    case '{':
        return skipContainer('}', depth);
    case '[':
        return skipContainer(']', depth);
    case 't':
        return literal("true");
    case 'f':
        return literal("false");
    case 'n':
        return literal("null");
    default: {
        std::string_view token;
        bool isInteger = false;
        return number(token, isInteger);
    }
    }
}

bool Scanner::skipContainer(char close, int depth)
{
    if (depth >= kMaxScanDepth)
        return false;
    if (close == '}')
        return members([&](std::string_view) { return skipValue(depth + 1); });
    ++m_p;
    if (take(']'))
        return true;
    for (;;) {
        if (!skipValue(depth + 1))
            return false;
        if (!take(','))
            return take(']');
    }
}

// A value as the simdjson parser's readInt reads it: `read` when it held an integer (a
// plain one, or a string of one). A number that is not a plain integer of at most 18
// digits (one that would be rounded, or might not fit) is left to simdjson.
bool Scanner::integer(int64_t& out, bool& read, int depth)
{
    read = false;
    const char c = peek();
    if (c == '"') {
        std::string_view text;
        if (!plainString(text))
            return false;
        read = integerFromText(text, out);
        return true;
    }
    if (!startsNumber(c))
        return skipValue(depth);
    std::string_view token;
    bool isInteger = false;
    if (!number(token, isInteger) || !isInteger)
        return false;
    const bool negative = token[0] == '-';
    const std::string_view digits = token.substr(negative ? 1 : 0);
    if (digits.size() > 18)
        return false;
    int64_t value = 0;
    for (const char digit : digits)
        value = value * 10 + (digit - '0');
    out = negative ? -value : value;
    read = true;
    return true;
}

// An integer that `Int` holds; one beyond its range is not read (`out` keeps its value).
template <typename Int>
bool Scanner::integerAs(Int& out, int depth)
{
    int64_t value = 0;
    bool read = false;
    if (!integer(value, read, depth))
        return false;
    if (read && value >= std::numeric_limits<Int>::min() &&
        value <= std::numeric_limits<Int>::max())
        out = static_cast<Int>(value);
    return true;
}

// A finite number within float's range, as readFloat reads it. Exponents and long tokens
// are left to simdjson, whose rules for underflow this does not repeat.
bool Scanner::floatValue(float& out, int depth)
{
    if (!startsNumber(peek()))
        return skipValue(depth);
    std::string_view token;
    bool isInteger = false;
    if (!number(token, isInteger) || token.size() > 24 ||
        token.find_first_of("eE") != std::string_view::npos)
        return false;
    double value = 0;
    const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (ec != std::errc() || ptr != token.data() + token.size())
        return false;
    if (std::isfinite(value) && std::fabs(value) <= 3.0e38)
        out = static_cast<float>(value);
    return true;
}

// A string kept as it is written (readString); any other value leaves `out` alone.
bool Scanner::stringValue(std::string_view& out, int depth)
{
    if (peek() != '"')
        return skipValue(depth);
    return plainString(out);
}

bool Scanner::time(int64_t& out, bool& present, bool& invalid, bool& outOfRange)
{
    const char c = peek();
    std::string_view token;
    if (startsNumber(c)) {
        bool isInteger = false;
        if (!number(token, isInteger))
            return false;
    } else if (c == '"') {
        if (!plainString(token))
            return false;
    } else {
        invalid = c != 'n';  // null is no time, and no error either
        return skipValue(kEventDepth);
    }
    readTimeToken(token, out, present, invalid, outOfRange);
    return true;
}

bool Scanner::processOrThread(ProcessOrThread& out)
{
    ProcessOrThread result;
    const char c = peek();
    if (c == '"') {
        std::string_view text;
        if (!plainString(text))
            return false;
        out = processOrThreadFromText(text);
        return true;
    }
    if (!integer(result.number, result.present, kEventDepth))
        return false;
    out = result;
    return true;
}

// `grid` and `block`: the first three elements of an array, each read as an int32.
bool Scanner::triple(int32_t (&out)[3])
{
    if (peek() != '[')
        return skipValue(kArgsDepth);
    ++m_p;
    if (take(']'))
        return true;
    for (int index = 0;; ++index) {
        if (!(index < 3 ? integerAs(out[index], kArgsDepth + 1) : skipValue(kArgsDepth + 1)))
            return false;
        if (!take(','))
            return take(']');
    }
}

bool Scanner::event(ParsedEvent& out)
{
    return members([&](std::string_view key) { return eventField(eventFieldOf(key), out); });
}

bool Scanner::eventField(EventField field, ParsedEvent& out)
{
    switch (field) {
    case EventField::Phase: {
        if (peek() != '"')
            return skipValue(kEventDepth);
        std::string_view phase;
        if (!plainString(phase))
            return false;
        if (!phase.empty())
            out.phase = phase[0];
        return true;
    }
    case EventField::Name:
        return stringValue(out.name, kEventDepth);
    case EventField::Cat:
        out.hasCat = peek() == '"';
        return out.hasCat ? plainString(out.cat) : skipValue(kEventDepth);
    case EventField::Ts:
        return time(out.tsNs, out.hasTs, out.invalidTime, out.timeOutOfRange);
    case EventField::Dur:
        return time(out.durNs, out.hasDur, out.invalidTime, out.timeOutOfRange);
    case EventField::Pid:
        return processOrThread(out.pid);
    case EventField::Tid:
        return processOrThread(out.tid);
    case EventField::Id: {
        int64_t id = 0;
        if (!integer(id, out.hasFlowId, kEventDepth))
            return false;
        out.flowId = static_cast<uint64_t>(id);
        return true;
    }
    case EventField::Bp: {
        out.bindEnclosing = false;
        if (peek() != '"')
            return skipValue(kEventDepth);
        std::string_view bp;
        if (!plainString(bp))
            return false;
        out.bindEnclosing = bp == "e";
        return true;
    }
    case EventField::Args:
        return peek() == '{' ? args(out) : skipValue(kEventDepth);
    case EventField::Other:
        return skipValue(kEventDepth);
    }
    return false;
}

bool Scanner::args(ParsedEvent& out)
{
    return members([&](std::string_view key) { return argField(argFieldOf(key), out); });
}

bool Scanner::argField(ArgField field, ParsedEvent& out)
{
    switch (field) {
    case ArgField::Correlation:
        return integerAs(out.correlation, kArgsDepth);
    case ArgField::ExternalId:
        return integerAs(out.externalId, kArgsDepth);
    case ArgField::Grid:
        return triple(out.kernel.grid);
    case ArgField::Block:
        return triple(out.kernel.block);
    case ArgField::Name:
        return stringValue(out.metaName, kArgsDepth);
    case ArgField::Labels:
        return stringValue(out.metaLabels, kArgsDepth);
    case ArgField::Address: {
        int64_t address = 0;
        bool read = false;
        if (!integer(address, read, kArgsDepth))
            return false;
        if (read)
            out.address = static_cast<uint64_t>(address);
        return true;
    }
    case ArgField::CopyBytes:
        return integerAs(out.copy.bytes, kArgsDepth);
    case ArgField::MemBytes:
        return integer(out.memBytes, out.hasMemBytes, kArgsDepth);
    case ArgField::DeviceId:
        return integerAs(out.deviceId, kArgsDepth);
    case ArgField::DeviceType:
        return integerAs(out.deviceType, kArgsDepth);
    case ArgField::InputDims: {
        // simdjson's raw_json() of an array runs to the next token: trailing whitespace
        // included. Anything but an array is an error there; simdjson reports it.
        const char* const begin = m_p;
        if (peek() != '[' || !skipValue(kArgsDepth))
            return false;
        skipWhitespace();
        out.inputDims = std::string_view(begin, static_cast<size_t>(m_p - begin));
        return true;
    }
    case ArgField::SortIndex:
        return integer(out.sortIndex, out.hasSortIndex, kArgsDepth);
    case ArgField::WarpsPerSm:
        return floatValue(out.kernel.warpsPerSm, kArgsDepth);
    case ArgField::BlocksPerSm:
        return floatValue(out.kernel.blocksPerSm, kArgsDepth);
    case ArgField::SharedMemory:
        return integerAs(out.kernel.sharedMemoryBytes, kArgsDepth);
    case ArgField::RegistersPerThread:
        return integerAs(out.kernel.registersPerThread, kArgsDepth);
    case ArgField::TotalReserved:
        return integerAs(out.totalReserved, kArgsDepth);
    case ArgField::TotalAllocated:
        return integerAs(out.totalAllocated, kArgsDepth);
    case ArgField::Bandwidth:
        return floatValue(out.copy.bandwidthGBps, kArgsDepth);
    case ArgField::Occupancy:
        return floatValue(out.kernel.occupancyPercent, kArgsDepth);
    case ArgField::Other:
        return skipValue(kArgsDepth);
    }
    return false;
}

bool Scanner::eventArray(std::vector<BatchEvent>& out)
{
    out.clear();
    if (!simdjson::validate_utf8(m_begin, static_cast<size_t>(m_end - m_begin)) || !take('['))
        return false;
    if (!take(']')) {
        for (;;) {
            if (peek() != '{')
                return false;  // simdjson reads other elements, and says what they are
            BatchEvent& element = appendBatchEvent(out);
            element.offset = static_cast<size_t>(m_p - m_begin);
            element.isObject = true;
            if (!event(element.event))
                return false;
            if (!take(','))
                break;
        }
        if (!take(']'))
            return false;
    }
    skipWhitespace();
    return m_p == m_end;
}

}  // namespace

bool scanEventArray(std::string_view text, size_t readableAfter, std::vector<BatchEvent>& out)
{
    return Scanner(text, readableAfter).eventArray(out);
}

}  // namespace kinetoscope::trace
