#include "core/trace/event_parser.h"

#include "core/trace/event_parser_backend.h"
#include "core/trace/event_scanner.h"
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

bool integerFromText(std::string_view text, int64_t& out)
{
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && ptr == text.data() + text.size();
}

ProcessOrThread processOrThreadFromText(std::string_view text)
{
    ProcessOrThread result;
    result.present = true;
    if (!text.empty() && integerFromText(text, result.number))
        return result;
    if (text.starts_with("stream ") && text.size() > 7 &&
        integerFromText(text.substr(7), result.number)) {
        result.streamPrefix = true;
        return result;
    }
    result.label = text;
    return result;
}

EventField eventFieldOf(std::string_view key)
{
    switch (key.size()) {
    case 2:
        if (key == "ph")
            return EventField::Phase;
        if (key == "ts")
            return EventField::Ts;
        if (key == "id")
            return EventField::Id;
        if (key == "bp")
            return EventField::Bp;
        break;
    case 3:
        if (key == "cat")
            return EventField::Cat;
        if (key == "dur")
            return EventField::Dur;
        if (key == "pid")
            return EventField::Pid;
        if (key == "tid")
            return EventField::Tid;
        break;
    case 4:
        if (key == "name")
            return EventField::Name;
        if (key == "args")
            return EventField::Args;
        break;
    default:
        break;
    }
    return EventField::Other;
}

ArgField argFieldOf(std::string_view key)
{
    switch (key.size()) {
    case 3:
        if (key == "cid")
            return ArgField::Correlation;
        break;
    case 4:
        if (key == "grid")
            return ArgField::Grid;
        if (key == "name")
            return ArgField::Name;
        if (key == "Addr")
            return ArgField::Address;
        break;
    case 5:
        if (key == "block")
            return ArgField::Block;
        if (key == "bytes")
            return ArgField::CopyBytes;
        if (key == "Bytes")
            return ArgField::MemBytes;
        break;
    case 6:
        if (key == "device")
            return ArgField::DeviceId;
        if (key == "labels")
            return ArgField::Labels;
        break;
    case 9:
        if (key == "Device Id")
            return ArgField::DeviceId;
        break;
    case 10:
        if (key == "Input Dims" || key == "Input dims")
            return ArgField::InputDims;
        if (key == "sort_index")
            return ArgField::SortIndex;
        break;
    case 11:
        if (key == "correlation")
            return ArgField::Correlation;
        if (key == "External id" || key == "external id")
            return ArgField::ExternalId;
        if (key == "Device Type")
            return ArgField::DeviceType;
        break;
    case 12:
        if (key == "warps per SM")
            return ArgField::WarpsPerSm;
        break;
    case 13:
        if (key == "shared memory")
            return ArgField::SharedMemory;
        if (key == "blocks per SM")
            return ArgField::BlocksPerSm;
        break;
    case 14:
        if (key == "Total Reserved")
            return ArgField::TotalReserved;
        break;
    case 15:
        if (key == "Total Allocated")
            return ArgField::TotalAllocated;
        break;
    case 20:
        if (key == "registers per thread")
            return ArgField::RegistersPerThread;
        break;
    case 23:
        if (key == "memory bandwidth (GB/s)")
            return ArgField::Bandwidth;
        break;
    case 25:
        if (key == "est. achieved occupancy %")
            return ArgField::Occupancy;
        break;
    default:
        break;
    }
    return ArgField::Other;
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

EventParser::EventParser(ParserBackendChoice choice, bool scanFirst)
    : m_backend(makeEventParserBackend(choice)), m_scanFirst(scanFirst)
{
}
EventParser::~EventParser() = default;

bool EventParser::parseArray(std::string_view text, size_t readableAfter,
                             std::vector<BatchEvent>& out)
{
    m_lastArrayScanned = m_scanFirst && scanEventArray(text, readableAfter, out);
    if (m_lastArrayScanned)
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
