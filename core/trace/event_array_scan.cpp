#include "core/trace/event_array_scan.h"

#include "core/trace/event_parser_backend.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <simdjson.h>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kinetoscope::trace {

namespace {

constexpr int kMaxDepth = 32;  // the event object is depth 1, its args depth 2

// Where the plain string starting at p ends: its closing quote, when no backslash,
// control character or non-ASCII byte comes first; else end (the caller looks again,
// byte by byte). Reads up to 15 bytes past `end`, which the padding allows.
const char* findPlainStringEnd(const char* p, const char* end)
{
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);
    for (; p < end; p += 16) {
        const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const auto quotes = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, quote)));
        // A signed compare: bytes from 0x80 up are negative, so below the space as well.
        const auto others = static_cast<unsigned>(_mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(bytes, backslash), _mm_cmplt_epi8(bytes, space))));
        if ((quotes | others) == 0)
            continue;
        const unsigned firstQuote = quotes & (0u - quotes);  // its bit alone, 0 when none
        if (firstQuote == 0 || (others & (firstQuote - 1)) != 0)
            return end;  // something else first
        return std::min(p + __builtin_ctz(quotes), end);
    }
    return end;
#else
    for (; p < end; ++p) {
        const auto c = static_cast<unsigned char>(*p);
        if (c == '"')
            return p;
        if (c == '\\' || c < 0x20 || c >= 0x80)
            return end;
    }
    return end;
#endif
}

// How many ASCII digits start at p, before end; 8 bytes a time (the padding allows reading
// up to 7 past end). Per byte: high nibble 3, and low nibble under 10 (no carry out of 6
// added to it). A byte past the first non-digit may be misjudged; it is never looked at.
size_t digitRun(const char* p, const char* end)
{
    const char* const start = p;
    if constexpr (std::endian::native != std::endian::little) {
        while (p < end && *p >= '0' && *p <= '9')
            ++p;
        return static_cast<size_t>(p - start);
    }
    constexpr uint64_t kHigh = 0xF0F0F0F0F0F0F0F0ull;
    constexpr uint64_t kThrees = 0x3030303030303030ull;
    for (; p < end; p += 8) {
        uint64_t bytes = 0;
        std::memcpy(&bytes, p, sizeof bytes);
        const uint64_t notDigit =
            ((bytes & kHigh) ^ kThrees) | (((bytes + 0x0606060606060606ull) & kHigh) ^ kThrees);
        if (notDigit != 0) {
            p += __builtin_ctzll(notDigit) / 8;  // little-endian: the first byte is the lowest
            break;
        }
    }
    return static_cast<size_t>(std::min(p, end) - start);
}

uint64_t load64(const char* p)
{
    uint64_t word = 0;
    std::memcpy(&word, p, sizeof word);
    return word;
}

// A key's name as a template argument, so that its words are constants.
template <size_t N>
struct KeyName
{
    constexpr KeyName(const char (&name)[N])
    {
        std::copy_n(name, N, text);
    }  // NOLINT: implicit by design
    char text[N] = {};

    static constexpr size_t size = N - 1;
    // `count` bytes from `at`, as a little-endian word.
    constexpr uint64_t word(size_t at, size_t count) const
    {
        uint64_t value = 0;
        for (size_t i = 0; i < count; ++i)
            value |= uint64_t(static_cast<unsigned char>(text[at + i])) << (8 * i);
        return value;
    }
};

// Whether a key is `target`, compared a word at a time against constants. A key shorter
// than a word is read a word long: it lies in the text, before its closing quote and the
// value, with the padding after the text.
template <KeyName target>
[[gnu::always_inline]] inline bool keyIs(std::string_view key)
{
    constexpr size_t n = target.size;
    if constexpr (std::endian::native != std::endian::little) {
        return key == std::string_view(target.text, n);
    } else if constexpr (n < 8) {
        constexpr uint64_t mask = (uint64_t(1) << (8 * n)) - 1;
        constexpr uint64_t word = target.word(0, n);
        return key.size() == n && (load64(key.data()) & mask) == word;
    } else {
        if (key.size() != n)
            return false;
        uint64_t differ = 0;
        // Whole words, then the last 8 bytes (overlapping the one before).
        [&]<size_t... i>(std::index_sequence<i...>)
        {
            ((differ |= load64(key.data() + 8 * i) ^ target.word(8 * i, 8)), ...);
        }
        (std::make_index_sequence<(n - 1) / 8>{});
        constexpr uint64_t last = target.word(n - 8, 8);
        return (differ | (load64(key.data() + n - 8) ^ last)) == 0;
    }
}

// A JSON number with a fraction or an exponent, as double, where simdjson 3.0.1 reads it
// correctly rounded too. It does not past 19 significant characters (the mantissa's after
// its leading zeros and point): where an integer is asked for, it reads such a number as
// 0; as a double, "0." and 20 digits or more wrap its 64-bit mantissa. And it rejects an
// exponent of 20 digits or more. Those numbers are declined, for simdjson to read its way.
bool toDouble(std::string_view token, double& out)
{
    const size_t sign = token[0] == '-' ? 1 : 0;
    const size_t exponent = token.find_first_of("eE");
    const std::string_view mantissa =
        token.substr(sign, (exponent == std::string_view::npos ? token.size() : exponent) - sign);
    const size_t leading = mantissa.find_first_not_of("0.");
    if (leading != std::string_view::npos && mantissa.size() - leading > 19)
        return false;
    if (exponent != std::string_view::npos) {
        size_t digits = token.size() - exponent - 1;
        if (token[exponent + 1] == '+' || token[exponent + 1] == '-')
            --digits;
        if (digits > 19)
            return false;
    }
    const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), out);
    return ec == std::errc() && ptr == token.data() + token.size();
}

enum class Kind
{
    String,
    Number,
    Boolean,
    Null,
    Container  // an object or an array
};

struct Value
{
    Kind kind = Kind::Null;
    std::string_view text;  // a string's contents, a number's token, a container's text
    bool integer = false;   // a number without fraction or exponent
};

// The readings of event_parser_body.inc, on a scanned value. Each returns false to
// decline (a form whose reading here could differ from simdjson's); `read` says whether
// the value was read.
bool readInteger(const Value& value, int64_t& out, bool& read)
{
    read = false;
    if (value.kind == Kind::String) {
        read = integerFromText(value.text, out);
        return true;
    }
    if (value.kind != Kind::Number)
        return true;
    if (!value.integer) {
        double d = 0;
        if (!toDouble(value.text, d))
            return false;
        read = integerFromDouble(d, out);
        return true;
    }
    const std::string_view token = value.text;
    const bool negative = token[0] == '-';
    uint64_t magnitude = 0;
    const size_t first = negative ? 1 : 0;
    if (token.size() - first <= 19) {  // below 10^19: no overflow
        for (size_t i = first; i < token.size(); ++i)
            magnitude = magnitude * 10 + static_cast<unsigned>(token[i] - '0');
    } else {
        for (size_t i = first; i < token.size(); ++i)
            if (__builtin_mul_overflow(magnitude, 10u, &magnitude) ||
                __builtin_add_overflow(magnitude, static_cast<unsigned>(token[i] - '0'),
                                       &magnitude))
                return false;  // beyond 64 bits
    }
    if (negative && magnitude > (uint64_t(1) << 63))
        return false;  // below INT64_MIN
    // Above INT64_MAX the bits are kept, as simdjson's unsigned reading does (ids are opaque).
    out = static_cast<int64_t>(negative ? 0 - magnitude : magnitude);
    read = true;
    return true;
}

template <typename Int>
bool readIntegerAs(const Value& value, Int& out)
{
    int64_t v = 0;
    bool read = false;
    if (!readInteger(value, v, read))
        return false;
    if (read && v >= std::numeric_limits<Int>::min() && v <= std::numeric_limits<Int>::max())
        out = static_cast<Int>(v);
    return true;
}

bool readFloat(const Value& value, float& out)
{
    if (value.kind != Kind::Number)
        return true;
    double d = 0;
    if (!toDouble(value.text, d))
        return false;
    floatFromDouble(d, out);
    return true;
}

void readTime(const Value& value, int64_t& out, bool& present, bool& invalid, bool& outOfRange)
{
    if (value.kind == Kind::Number || value.kind == Kind::String)
        readTimeToken(value.text, out, present, invalid, outOfRange);
    else if (value.kind != Kind::Null)
        invalid = true;  // a null is no time, but does not undo another field's verdict
}

bool readProcessOrThread(const Value& value, ProcessOrThread& out)
{
    out = ProcessOrThread{};
    if (value.kind == Kind::String) {
        out = processOrThreadFromText(value.text);
        return true;
    }
    return readInteger(value, out.number, out.present);
}

class Scanner
{
public:
    explicit Scanner(std::string_view text)
        : Scanner(text.data(), text.data(), text.data() + text.size())
    {
    }
    Scanner(const char* begin, const char* at, const char* end)
        : m_begin(begin), m_p(at), m_end(end)
    {
    }

    bool eventArray(std::vector<BatchEvent>& out)
    {
        out.clear();
        if (peek() != '[')
            return false;
        const bool read = elements(0, [&](size_t) {
            if (peek() != '{')
                return false;
            BatchEvent& batch = out.emplace_back();  // (this file is built for any CPU)
            batch.offset = static_cast<size_t>(m_p - m_begin);
            batch.isObject = true;
            return members(1, [&](std::string_view key) { return eventField(key, batch.event); });
        });
        return read && peek() == '\0' && m_p == m_end;
    }

private:
    [[gnu::always_inline]] void skipWhitespace()
    {
        if (m_p < m_end && *m_p == ' ')  // the usual: one space
            ++m_p;
        constexpr uint64_t kWhitespace = (uint64_t(1) << ' ') | (uint64_t(1) << '\n') |
                                         (uint64_t(1) << '\r') | (uint64_t(1) << '\t');
        while (m_p < m_end && static_cast<unsigned char>(*m_p) <= ' ' &&
               ((kWhitespace >> static_cast<unsigned char>(*m_p)) & 1) != 0)
            ++m_p;
    }
    // The next byte that is not whitespace, '\0' at the end.
    [[gnu::always_inline]] char peek()
    {
        skipWhitespace();
        return m_p < m_end ? *m_p : '\0';
    }

    // Steps over `c` when it is next, after any whitespace. Kineto writes no whitespace
    // before ':' and ',' and one space after them: those cases cost a comparison or two.
    [[gnu::always_inline]] bool consume(char c)
    {
        if (m_p < m_end && *m_p == c) {
            ++m_p;
            return true;
        }
        if (m_p + 1 < m_end && m_p[0] == ' ' && m_p[1] == c) {
            m_p += 2;
            return true;
        }
        if (peek() != c)
            return false;
        ++m_p;
        return true;
    }

    // The object at m_p: onField(key) is called with m_p at each value, which it consumes.
    template <typename OnField>
    [[gnu::always_inline]] bool members(int depth, OnField&& onField)
    {
        if (depth > kMaxDepth)
            return false;
        ++m_p;  // '{'
        if (consume('}'))
            return true;
        for (;;) {
            std::string_view key;
            if (!consume('"') || !string(key) || !consume(':'))
                return false;
            skipWhitespace();
            if (!onField(key))
                return false;
            if (consume(','))
                continue;
            return consume('}');
        }
    }

    // The array at m_p: onElement(index) is called with m_p at each element.
    template <typename OnElement>
    [[gnu::always_inline]] bool elements(int depth, OnElement&& onElement)
    {
        if (depth > kMaxDepth)
            return false;
        ++m_p;  // '['
        if (consume(']'))
            return true;
        for (size_t index = 0;; ++index) {
            skipWhitespace();
            if (!onElement(index))
                return false;
            if (consume(','))
                continue;
            return consume(']');
        }
    }

    // The string whose opening quote is just before m_p, without its quotes.
    [[gnu::always_inline]] bool string(std::string_view& out)
    {
        const char* const start = m_p;
        const char* p = findPlainStringEnd(start, m_end);
        if (p == m_end) {
            // Not plain ASCII to its quote: UTF-8 text is read; an escape or a control
            // character is declined.
            p = start;
            while (p < m_end && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20)
                ++p;
            if (p == m_end || *p != '"' ||
                !simdjson::validate_utf8(start, static_cast<size_t>(p - start)))
                return false;
        }
        out = std::string_view(start, static_cast<size_t>(p - start));
        m_p = p + 1;
        return true;
    }

    // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
    [[gnu::always_inline]] bool number(Value& out)
    {
        const char* p = m_p;
        auto digits = [&] {
            const size_t run = digitRun(p, m_end);
            p += run;
            return run > 0;
        };
        if (p < m_end && *p == '-')
            ++p;
        if (p < m_end && *p == '0')
            ++p;
        else if (!digits())
            return false;
        out.integer = true;
        if (p < m_end && *p == '.') {
            ++p;
            if (!digits())
                return false;
            out.integer = false;
        }
        if (p < m_end && (*p == 'e' || *p == 'E')) {
            ++p;
            if (p < m_end && (*p == '+' || *p == '-'))
                ++p;
            if (!digits())
                return false;
            out.integer = false;
        }
        out.kind = Kind::Number;
        out.text = std::string_view(m_p, static_cast<size_t>(p - m_p));
        m_p = p;
        return true;
    }

    [[gnu::always_inline]] bool literal(std::string_view word, Kind kind, Value& out)
    {
        if (static_cast<size_t>(m_end - m_p) < word.size() ||
            std::memcmp(m_p, word.data(), word.size()) != 0)
            return false;
        m_p += word.size();
        out.kind = kind;
        return true;
    }

    // Any value at m_p (whitespace before it already skipped); a container is walked (and
    // so validated) to its end.
    [[gnu::always_inline]] bool value(Value& out, int depth)
    {
        switch (m_p < m_end ? *m_p : '\0') {
        case '"':
            ++m_p;
            out.kind = Kind::String;
            return string(out.text);
        case '{':
        case '[':
            return container(out, depth);
        case 't':
            return literal("true", Kind::Boolean, out);
        case 'f':
            return literal("false", Kind::Boolean, out);
        case 'n':
            return literal("null", Kind::Null, out);
        default:
            return number(out);
        }
    }

    // A nested object or array, walked by a scanner of its own, out of line: the recursion
    // goes through here, and the cursor of the scanner that calls stays in a register.
    [[gnu::always_inline]] bool container(Value& out, int depth)
    {
        const char* const end = containerEnd(m_begin, m_p, m_end, depth);
        if (end == nullptr)
            return false;
        out.kind = Kind::Container;
        out.text = std::string_view(m_p, static_cast<size_t>(end - m_p));
        m_p = end;
        return true;
    }

    [[gnu::noinline]] static const char* containerEnd(const char* begin, const char* at,
                                                      const char* end, int depth)
    {
        Scanner nested(begin, at, end);
        auto inner = [&] {
            Value value;
            return nested.value(value, depth + 1);
        };
        const bool read = *at == '{'
                              ? nested.members(depth + 1, [&](std::string_view) { return inner(); })
                              : nested.elements(depth + 1, [&](size_t) { return inner(); });
        return read ? nested.m_p : nullptr;
    }

    [[gnu::always_inline]] bool eventField(std::string_view key, ParsedEvent& out)
    {
        if (keyIs<"args">(key)) {
            if (peek() == '{')
                return members(2, [&](std::string_view k) { return argsField(k, out); });
            Value ignored;  // args that are not an object are not read
            return value(ignored, 1);
        }
        Value v;
        if (!value(v, 1))
            return false;
        if (key.empty())
            return true;
        switch (key[0]) {
        case 'p':
            if (keyIs<"ph">(key)) {
                if (v.kind == Kind::String && !v.text.empty())
                    out.phase = v.text[0];
            } else if (keyIs<"pid">(key)) {
                return readProcessOrThread(v, out.pid);
            }
            break;
        case 'n':
            if (keyIs<"name">(key) && v.kind == Kind::String)
                out.name = v.text;
            break;
        case 'c':
            if (keyIs<"cat">(key)) {
                out.hasCat = v.kind == Kind::String;
                if (out.hasCat)
                    out.cat = v.text;
            }
            break;
        case 't':
            if (keyIs<"ts">(key))
                readTime(v, out.tsNs, out.hasTs, out.invalidTime, out.timeOutOfRange);
            else if (keyIs<"tid">(key))
                return readProcessOrThread(v, out.tid);
            break;
        case 'd':
            if (keyIs<"dur">(key))
                readTime(v, out.durNs, out.hasDur, out.invalidTime, out.timeOutOfRange);
            break;
        case 'i':
            if (keyIs<"id">(key)) {
                int64_t id = 0;
                if (!readInteger(v, id, out.hasFlowId))
                    return false;
                out.flowId = static_cast<uint64_t>(id);
            }
            break;
        case 'b':
            if (keyIs<"bp">(key))
                out.bindEnclosing = v.kind == Kind::String && v.text == "e";
            break;
        default:
            break;
        }
        return true;
    }

    [[gnu::always_inline]] bool triple(int32_t (&out)[3])
    {
        return elements(3, [&](size_t index) {
            Value v;
            if (!value(v, 3))
                return false;
            return index >= 3 || readIntegerAs(v, out[index]);
        });
    }

    [[gnu::always_inline]] bool argsField(std::string_view key, ParsedEvent& out)
    {
        if ((keyIs<"grid">(key) || keyIs<"block">(key)) && peek() == '[')
            return triple(keyIs<"grid">(key) ? out.kernel.grid : out.kernel.block);
        if (keyIs<"Input Dims">(key) || keyIs<"Input dims">(key)) {
            const char* const start = m_p;
            Value dims;
            if (peek() != '[' || !value(dims, 2))
                return false;  // not an array: simdjson fails the event
            skipWhitespace();  // simdjson's raw text runs to the next token
            out.inputDims = std::string_view(start, static_cast<size_t>(m_p - start));
            return true;
        }
        Value v;
        if (!value(v, 2))
            return false;
        if (key.empty())
            return true;
        bool read = false;
        switch (key[0]) {
        case 'c':
            if (keyIs<"cid">(key) || keyIs<"correlation">(key))
                return readIntegerAs(v, out.correlation);
            break;
        case 'E':
            if (keyIs<"External id">(key))
                return readIntegerAs(v, out.externalId);
            break;
        case 'e':
            if (keyIs<"external id">(key))
                return readIntegerAs(v, out.externalId);
            if (keyIs<"est. achieved occupancy %">(key))
                return readFloat(v, out.kernel.occupancyPercent);
            break;
        case 'b':
            if (keyIs<"bytes">(key))
                return readIntegerAs(v, out.copy.bytes);
            if (keyIs<"blocks per SM">(key))
                return readFloat(v, out.kernel.blocksPerSm);
            break;
        case 'n':
            if (keyIs<"name">(key) && v.kind == Kind::String)
                out.metaName = v.text;
            break;
        case 'l':
            if (keyIs<"labels">(key) && v.kind == Kind::String)
                out.metaLabels = v.text;
            break;
        case 'A':
            if (keyIs<"Addr">(key)) {
                int64_t address = 0;
                if (!readInteger(v, address, read))
                    return false;
                if (read)
                    out.address = static_cast<uint64_t>(address);
            }
            break;
        case 'B':
            if (keyIs<"Bytes">(key))
                return readInteger(v, out.memBytes, out.hasMemBytes);
            break;
        case 'd':
            if (keyIs<"device">(key))
                return readIntegerAs(v, out.deviceId);
            break;
        case 'D':
            if (keyIs<"Device Id">(key))
                return readIntegerAs(v, out.deviceId);
            if (keyIs<"Device Type">(key))
                return readIntegerAs(v, out.deviceType);
            break;
        case 's':
            if (keyIs<"sort_index">(key))
                return readInteger(v, out.sortIndex, out.hasSortIndex);
            if (keyIs<"shared memory">(key))
                return readIntegerAs(v, out.kernel.sharedMemoryBytes);
            break;
        case 'w':
            if (keyIs<"warps per SM">(key))
                return readFloat(v, out.kernel.warpsPerSm);
            break;
        case 'T':
            if (keyIs<"Total Reserved">(key))
                return readIntegerAs(v, out.totalReserved);
            if (keyIs<"Total Allocated">(key))
                return readIntegerAs(v, out.totalAllocated);
            break;
        case 'r':
            if (keyIs<"registers per thread">(key))
                return readIntegerAs(v, out.kernel.registersPerThread);
            break;
        case 'm':
            if (keyIs<"memory bandwidth (GB/s)">(key))
                return readFloat(v, out.copy.bandwidthGBps);
            break;
        default:
            break;
        }
        return true;
    }

    const char* const m_begin;
    const char* m_p;
    const char* const m_end;
};

}  // namespace

bool scanCommonEventArray(std::string_view text, std::vector<BatchEvent>& out)
{
    return Scanner(text).eventArray(out);
}

}  // namespace kinetoscope::trace
