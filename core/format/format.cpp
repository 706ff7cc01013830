#include "core/format/format.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

namespace kinetoscope::format {

namespace {

constexpr const char* kNotAvailable = "n/a";

// Fixed-point text of `value` with `decimals` decimals, in the C locale's notation.
std::string fixed(double value, int decimals)
{
    std::array<char, 64> text{};
    const auto [end, error] = std::to_chars(text.data(), text.data() + text.size(), value,
                                            std::chars_format::fixed, decimals);
    if (error != std::errc())
        return kNotAvailable;
    std::string s(text.data(), end);
    if (s.starts_with('-') && s.find_first_not_of("0.", 1) == std::string::npos)
        s.erase(0, 1);  // no "-0.00"
    return s;
}

double rounded(double value, int decimals)
{
    const double scale = std::pow(10.0, decimals);
    return std::round(value * scale) / scale;
}

// Three significant digits: 0, 1 or 2 decimals for magnitudes from 100, 10 or below.
int decimalsFor(double magnitude)
{
    return magnitude >= 99.95 ? 0 : magnitude >= 9.995 ? 1 : 2;
}

// Inserts "," every three digits of the integral part.
std::string grouped(std::string s)
{
    const size_t start = s.starts_with('-') ? 1 : 0;
    size_t end = s.find('.');
    if (end == std::string::npos)
        end = s.size();
    for (size_t i = end; i > start + 3; i -= 3)
        s.insert(i - 3, 1, ',');
    return s;
}

struct Scale
{
    double factor;  // units of the base per unit of this scale
    const char* name;
    double from;  // the smallest magnitude (in the base unit) this scale shows
};

// Three significant digits in a scale's own unit; below 1 (0.977 KiB: a binary unit taken
// from 1000 of the one below), three decimals.
int scaledDecimals(double inUnit)
{
    return inUnit < 0.9995 ? 3 : decimalsFor(inUnit);
}

// `value` (in the base unit of `scales`, smallest first) in the largest scale whose `from`
// it reaches after rounding, three significant digits; the last scale takes the rest.
// Each scale after the first starts where the one below would need four digits (1000 µs,
// 1000 KiB, 1000 s), or at a whole unit of its own (60 min, 24 h).
template <size_t N>
std::string scaled(double value, const std::array<Scale, N>& scales, int smallestDecimals)
{
    if (!std::isfinite(value))
        return kNotAvailable;
    const double magnitude = std::fabs(value);
    size_t i = 0;
    while (i + 1 < N && magnitude >= scales[i + 1].from)
        ++i;
    double inUnit = magnitude / scales[i].factor;
    int decimals = i == 0 ? smallestDecimals : scaledDecimals(inUnit);
    // Rounding can carry into the next unit: 999.96 µs is 1.00 ms, 999.6 s is 16.7 min.
    if (const double shown = rounded(inUnit, decimals) * scales[i].factor;
        i + 1 < N && shown >= scales[i + 1].from) {
        ++i;
        inUnit = magnitude / scales[i].factor;
        // What rounded to a whole next unit reads as one ("60.0 min" is "1.00 h", not
        // "0.999 h"); what rounded to 1000 of a binary unit, below one (999.6 B: "0.976 KiB").
        decimals = shown >= scales[i].factor ? decimalsFor(inUnit) : scaledDecimals(inUnit);
    }
    if (i + 1 == N && inUnit >= 1000)
        decimals = 0;
    return (value < 0 ? "-" : "") + grouped(fixed(inUnit, decimals)) + " " + scales[i].name;
}

// TimeUnit indexes the first four.
constexpr std::array<Scale, 7> kTimeScales{{{1, "ns", 0},
                                            {1e3, "µs", 1e3},
                                            {1e6, "ms", 1e6},
                                            {1e9, "s", 1e9},
                                            {60e9, "min", 1000e9},
                                            {3600e9, "h", 3600e9},
                                            {86400e9, "d", 86400e9}}};
constexpr std::array<Scale, 5> kByteScales{{{1, "B", 0},
                                            {1024.0, "KiB", 1000.0},
                                            {1024.0 * 1024, "MiB", 1000.0 * 1024},
                                            {kGiB, "GiB", 1000.0 * 1024 * 1024},
                                            {kGiB * 1024, "TiB", 1000.0 * kGiB}}};

}  // namespace

std::string duration(double ns)
{
    return scaled(ns, kTimeScales, 0);
}

namespace {

// `magnitude` (the text of |value|) with the sign of `value`; no sign when it reads zero.
std::string signedText(double value, const std::string& magnitude)
{
    if (!std::isfinite(value))
        return kNotAvailable;
    if (magnitude.find_first_of("123456789") == std::string::npos)
        return magnitude;
    return (value < 0 ? "\u2212" : "+") + magnitude;
}

}  // namespace

std::string durationChange(double ns)
{
    return signedText(ns, duration(std::fabs(ns)));
}

std::string percentChange(double fraction)
{
    // Ten times the before and more: "+10574.0 %" reads as the ratio it is, "107×".
    if (std::isfinite(fraction) && fraction >= kChangeAsRatioFrom - 1)
        return ratio(1 + fraction);
    return signedText(fraction, percent(std::fabs(fraction)));
}

std::string countChange(double value)
{
    return signedText(value, count(std::fabs(value)));
}

std::string seconds(double s)
{
    return duration(s * 1e9);
}

const char* unitName(TimeUnit unit)
{
    return kTimeScales[size_t(unit)].name;
}

std::string durationIn(double ns, TimeUnit unit, int decimals, bool withUnit)
{
    if (!std::isfinite(ns))
        return kNotAvailable;
    const std::string text = fixed(ns / kTimeScales[size_t(unit)].factor, decimals);
    return withUnit ? text + " " + unitName(unit) : text;
}

std::string bytes(double value)
{
    if (!(value >= 0))  // negative: "not available"; NaN too
        return kNotAvailable;
    return scaled(value, kByteScales, 0);
}

std::string byteRate(double bytesPerSecond)
{
    const std::string text = bytes(bytesPerSecond);
    return text == kNotAvailable ? text : text + "/s";
}

namespace {

// Decimal prefixes for rates stated the way vendors state peaks: "312 TFLOP/s", "3.35 TB/s".
std::string decimalRate(double perSecond, std::string_view unit)
{
    if (!std::isfinite(perSecond) || perSecond < 0)
        return kNotAvailable;
    static constexpr std::pair<double, const char*> kPrefixes[] = {
        {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
    for (const auto& [scale, prefix] : kPrefixes)
        if (perSecond >= scale * 0.9995)
            return number(perSecond / scale) + " " + prefix + std::string(unit) + "/s";
    return number(perSecond) + " " + std::string(unit) + "/s";
}

}  // namespace

std::string flopRate(double flopsPerSecond)
{
    return decimalRate(flopsPerSecond, "FLOP");
}

std::string bandwidth(double bytesPerSecond)
{
    return decimalRate(bytesPerSecond, "B");
}

std::string percent(double fraction)
{
    if (!std::isfinite(fraction))
        return kNotAvailable;
    return fixed(fraction * 100.0, 1) + " %";
}

std::string ratio(double value)
{
    if (!std::isfinite(value))
        return kNotAvailable;
    return number(value) + "×";
}

std::string count(uint64_t value)
{
    return grouped(std::to_string(value));
}

std::string count(int64_t value)
{
    return grouped(std::to_string(value));
}

std::string count(double value)
{
    if (!std::isfinite(value))
        return kNotAvailable;
    if (value == std::floor(value) && std::fabs(value) < 9e15)
        return grouped(fixed(value, 0));
    return number(value);
}

std::string rate(double perSecond, std::string_view what)
{
    return number(perSecond) + " " + std::string(what) + "/s";
}

std::string number(double value)
{
    if (!std::isfinite(value))
        return kNotAvailable;
    const double magnitude = std::fabs(value);
    if (magnitude != 0 && magnitude < 0.995) {
        // Three significant digits below 1: 0.123, 0.0123, 0.00123 ...
        const int decimals = std::min(12, 2 - int(std::floor(std::log10(magnitude))));
        return fixed(value, decimals);
    }
    return grouped(fixed(value, decimalsFor(magnitude)));
}

std::string counted(uint64_t value, std::string_view singular, std::string_view plural)
{
    if (value == 1)
        return "1 " + std::string(singular);
    return count(value) + " " +
           (plural.empty() ? std::string(singular) + "s" : std::string(plural));
}

size_t displayWidth(std::string_view utf8)
{
    // Every byte but a continuation byte (10xxxxxx) starts a character.
    return size_t(std::count_if(utf8.begin(), utf8.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

std::string padLeft(std::string_view utf8, size_t width)
{
    const size_t shown = displayWidth(utf8);
    return std::string(width > shown ? width - shown : 0, ' ') + std::string(utf8);
}

std::string padRight(std::string_view utf8, size_t width)
{
    const size_t shown = displayWidth(utf8);
    return std::string(utf8) + std::string(width > shown ? width - shown : 0, ' ');
}

std::string clip(std::string_view utf8, size_t width)
{
    size_t characters = 0;
    for (size_t i = 0; i < utf8.size(); ++i)
        if ((static_cast<unsigned char>(utf8[i]) & 0xC0) != 0x80 && characters++ == width)
            return std::string(utf8.substr(0, i));
    return std::string(utf8);
}

}  // namespace kinetoscope::format
