#include "core/trace/event_parser.h"

#include "core/trace/event_parser_backend.h"
#include "core/trace/json_scan.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace kinetoscope::trace {

BatchEvent& appendBatchEvent(std::vector<BatchEvent>& batch)
{
    return batch.emplace_back();
}

bool microsecondsToNanoseconds(std::string_view token, int64_t& nanoseconds)
{
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
