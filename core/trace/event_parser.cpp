#include "core/trace/event_parser.h"

#include "core/trace/event_array_scan.h"
#include "core/trace/event_parser_backend.h"
#include "core/trace/json_scan.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace kinetoscope::trace {

BatchEvent& appendBatchEvent(std::vector<BatchEvent>& batch)
{
    return batch.emplace_back();
}

ProcessOrThread processOrThreadFromText(std::string_view text)
{
    ProcessOrThread result;
    result.present = true;
    auto readWhole = [&](std::string_view digits) {
        const auto [ptr, ec] =
            std::from_chars(digits.data(), digits.data() + digits.size(), result.number);
        return ec == std::errc() && ptr == digits.data() + digits.size() && !digits.empty();
    };
    if (readWhole(text))
        return result;
    if (text.starts_with("stream ") && readWhole(text.substr(7))) {
        result.streamPrefix = true;
        return result;
    }
    result.label = text;
    return result;
}

bool integerFromText(std::string_view text, int64_t& out)
{
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && ptr == text.data() + text.size();
}

bool integerFromDouble(double value, int64_t& out)
{
    if (!std::isfinite(value) || std::fabs(value) >= 9.2e18)
        return false;
    out = std::llround(value);
    return true;
}

bool floatFromDouble(double value, float& out)
{
    if (!std::isfinite(value) || std::fabs(value) > 3.0e38)
        return false;
    out = static_cast<float>(value);
    return true;
}

void readTimeToken(std::string_view token, int64_t& out, bool& present, bool& invalid,
                   bool& outOfRange)
{
    present = microsecondsToNanoseconds(token, out);
    if (!present) {
        if (isNumberToken(token))
            outOfRange = true;
        else
            invalid = true;
    }
}

namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// The form every profiler writes: at most 15 whole digits and 3 decimals, which cannot
// overflow (below 10^18 ns). False when the token has another form (not an error).
bool plainMicrosecondsToNanoseconds(std::string_view token, int64_t& nanoseconds)
{
    const size_t n = token.size();
    size_t i = n > 0 && token[0] == '-' ? 1 : 0;
    const size_t wholeStart = i;
    int64_t value = 0;
    for (; i < n && i - wholeStart < 16 && isDigit(token[i]); ++i)
        value = value * 10 + (token[i] - '0');
    const size_t wholeDigits = i - wholeStart;
    if (wholeDigits == 0 || wholeDigits > 15)
        return false;
    value *= 1000;
    if (i < n && token[i] == '.') {
        ++i;
        int64_t scale = 100;
        for (; i < n && scale > 0 && isDigit(token[i]); ++i, scale /= 10)
            value += (token[i] - '0') * scale;
    }
    if (i != n)
        return false;  // a fourth decimal, an exponent, or not a number
    nanoseconds = wholeStart == 1 ? -value : value;
    return true;
}

}  // namespace

bool microsecondsToNanoseconds(std::string_view token, int64_t& nanoseconds)
{
    if (plainMicrosecondsToNanoseconds(token, nanoseconds))
        return true;
    if (token.empty())
        return false;
    size_t i = 0;
    const bool negative = token[0] == '-';
    if (negative)
        i = 1;
    // Whole microseconds, accumulated as nanoseconds so that any overflow is seen.
    int64_t value = 0;
    size_t digits = 0;
    bool overflow = false;
    for (; i < token.size() && token[i] >= '0' && token[i] <= '9'; ++i, ++digits)
        overflow |= __builtin_mul_overflow(value, 10, &value) ||
                    __builtin_add_overflow(value, token[i] - '0', &value);
    if (digits == 0)
        return false;
    overflow |= __builtin_mul_overflow(value, 1000, &value);
    if (i < token.size() && token[i] == '.') {
        ++i;
        int64_t fractionNs = 0;
        int64_t scale = 100;
        bool roundUp = false;
        bool first = true;
        for (; i < token.size() && token[i] >= '0' && token[i] <= '9'; ++i) {
            const int digit = token[i] - '0';
            if (scale > 0) {
                fractionNs += digit * scale;
                scale /= 10;
            } else if (first) {
                roundUp = digit >= 5;  // round half up at the nanosecond
                first = false;
            }
        }
        overflow |= __builtin_add_overflow(value, fractionNs + (roundUp ? 1 : 0), &value);
    }
    if (i != token.size()) {
        // Exponent or other form: fall back to double (loses sub-ns digits only).
        char* end = nullptr;
        const std::string copy(token);
        const double micros = std::strtod(copy.c_str(), &end);
        if (end != copy.c_str() + copy.size() || !std::isfinite(micros) ||
            std::fabs(micros) > 9.2e15)
            return false;
        nanoseconds = std::llround(micros * 1000.0);
        return true;
    }
    if (overflow)
        return false;
    nanoseconds = negative ? -value : value;
    return true;
}

bool isNumberToken(std::string_view token)
{
    if (token.empty() || !(token[0] == '-' || (token[0] >= '0' && token[0] <= '9')))
        return false;
    const std::string copy(token);
    char* end = nullptr;
    (void)std::strtod(copy.c_str(), &end);
    return end == copy.c_str() + copy.size();
}

namespace {
bool cpuHasAvx2()
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
           __builtin_cpu_supports("pclmul");
#else
    return false;
#endif
}
}  // namespace

std::unique_ptr<EventParserBackend> makeEventParserBackend(ParserBackendChoice choice)
{
#if KINETOSCOPE_HAVE_AVX2_PARSER
    static const bool avx2 = cpuHasAvx2();
    if (avx2 && choice != ParserBackendChoice::Generic)
        return makeAvx2EventParserBackend();
#endif
    (void)choice;
    return makeGenericEventParserBackend();
}

EventParser::EventParser(ParserBackendChoice choice) : m_backend(makeEventParserBackend(choice)) {}
EventParser::~EventParser() = default;

bool EventParser::parseArray(std::string_view text, size_t readableAfter,
                             std::vector<BatchEvent>& out)
{
    // The common shape is read directly; what that declines, simdjson reads or rejects.
    if (readableAfter >= kPaddingBytes && scanCommonEventArray(text, out))
        return true;
    return m_backend->parseArray(text.data(), text.size(), text.size() + readableAfter, out) == 0;
}

const char* EventParser::implementation() const
{
    return m_backend->implementation();
}

EventParser::Result EventParser::parse(std::string_view text, size_t readableAfter,
                                       ParsedEvent& out)
{
    const int first = m_backend->parse(text.data(), text.size(), text.size() + readableAfter, out);
    if (first == 0)
        return Result::Ok;
    if (json_scan::repairStrings(text, m_repaired)) {
        const size_t length = m_repaired.size();
        m_repaired.append(kPaddingBytes, ' ');
        if (m_backend->parse(m_repaired.data(), length, m_repaired.size(), out) == 0)
            return Result::Repaired;
    }
    m_lastError = m_backend->errorMessage(first);
    return Result::Malformed;
}

}  // namespace kinetoscope::trace
