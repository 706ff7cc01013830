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
    int64_t whole = 0;
    size_t digits = 0;
    for (; i < token.size() && token[i] >= '0' && token[i] <= '9'; ++i, ++digits) {
        if (whole > (INT64_MAX / 10000))  // would overflow once scaled to ns
            return false;
        whole = whole * 10 + (token[i] - '0');
    }
    if (digits == 0)
        return false;
    int64_t fractionNs = 0;
    if (i < token.size() && token[i] == '.') {
        ++i;
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
        fractionNs += roundUp ? 1 : 0;
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
    const int64_t value = whole * 1000 + fractionNs;
    nanoseconds = negative ? -value : value;
    return true;
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

std::unique_ptr<EventParserBackend> makeEventParserBackend()
{
#if KINETOSCOPE_HAVE_AVX2_PARSER
    static const bool avx2 = cpuHasAvx2();
    if (avx2)
        return makeAvx2EventParserBackend();
#endif
    return makeGenericEventParserBackend();
}

EventParser::EventParser() : m_backend(makeEventParserBackend()) {}
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
