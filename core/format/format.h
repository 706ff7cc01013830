#pragma once
// One convention for every number people read, in every output (CLI text and Markdown,
// findings, widgets, the report). Qt-free, locale-independent (a GUI's locale never turns
// "1.5 ms" into "1,5 ms"), UTF-8.
//
// The convention: a space before every unit; three significant digits; the unit chosen
// after rounding (999.96 µs is "1.00 ms", not "1000 µs"; 1016 KiB is "0.992 MiB", not four
// digits); time in ns, µs, ms, s, then min, h, d; bytes in binary units (B, KiB, MiB, GiB,
// TiB: the units GPU memory is sized in); shares as percent with one decimal; ratios with
// "×", and so is a change to ten times or more; counts grouped by thousands with ",". A
// figure that does not exist (a part without TF32) is said in words, never as a zero rate.
// Not-a-number, infinities and the "not available" sentinel (a negative byte count) read
// "n/a".
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace kinetoscope::format {

// Nanoseconds, auto-scaled: "812 ns", "1.23 µs", "45.6 ms", "8.30 s", "999 s"; from 1000 s
// minutes, hours and days: "16.7 min", "19.4 h", "3.50 d" (days take the rest: "18,519 d").
std::string duration(double ns);
std::string seconds(double s);  // the same, from seconds

enum class TimeUnit
{
    Nanoseconds,
    Microseconds,
    Milliseconds,
    Seconds,
};
// A fixed unit and number of decimals, for aligned columns and axes: durationIn(1.5e6,
// Milliseconds, 2) is "1.50" (withUnit: "1.50 ms").
std::string durationIn(double ns, TimeUnit unit, int decimals, bool withUnit = false);
const char* unitName(TimeUnit unit);  // "ns", "µs", "ms", "s"

// Bytes, binary units: "512 B", "812 KiB", "1.23 GiB"; from 1000 of a unit, the next one
// ("0.992 MiB", not "1016 KiB"); negative: "n/a".
std::string bytes(double value);
// A rate of bytes: "12.3 GiB/s".
std::string byteRate(double bytesPerSecond);
// GiB for axes and columns that pick one unit.
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Rates in decimal units, as datasheets state peaks: flopRate(3.12e14) is "312 TFLOP/s",
// bandwidth(3.35e12) is "3.35 TB/s" (bytes: 1 GB/s = 1e9 B/s, unlike byteRate's GiB/s).
std::string flopRate(double flopsPerSecond);
std::string bandwidth(double bytesPerSecond);

// A share given as a fraction (0.333): "33.3 %".
std::string percent(double fraction);
// A ratio: "1.85×", "12.3×".
std::string ratio(double value);
// Changes, signed with "+" or "−" (U+2212), zero unsigned: "+1.23 ms", "−59.0 ms",
// "−33.3 %", "+12" (a count that may be a mean: "−4.50"). A relative change to ten times
// the before or more is the ratio of after to before: percentChange(105.74) is "107×",
// never "+10574.0 %".
std::string durationChange(double ns);
std::string percentChange(double fraction);
inline constexpr double kChangeAsRatioFrom = 10.0;  // after / before
std::string countChange(double value);
// A count: "1,234,567" (negative: "-1,234").
std::string count(uint64_t value);
std::string count(int64_t value);
// Any other integer type, by its sign.
template <std::integral T>
requires(!std::same_as<T, uint64_t> && !std::same_as<T, int64_t> &&
         !std::same_as<T, bool>) std::string count(T value)
{
    if constexpr (std::is_signed_v<T>)
        return count(static_cast<int64_t>(value));
    else
        return count(static_cast<uint64_t>(value));
}
// A count that may be a mean (per step): "12", "4.50", "1,235".
std::string count(double value);
// Something per second: rate(1234.5, "samples") is "1,235 samples/s".
std::string rate(double perSecond, std::string_view what);
// A plain number, three significant digits: "0.0123", "4.56", "789", "12,346".
std::string number(double value);
// A count with its noun, singular for one: counted(1, "call") is "1 call", counted(3,
// "call") "3 calls", counted(2, "device activity", "device activities") "2 device activities".
std::string counted(uint64_t value, std::string_view singular, std::string_view plural = {});

// Text columns. UTF-8 text is as wide as its characters, not its bytes ("1.23 µs" is 7
// wide, 8 bytes): padding counts characters, so a column with µ, × or − stays aligned.
size_t displayWidth(std::string_view utf8);
std::string padLeft(std::string_view utf8, size_t width);   // right-aligned in `width`
std::string padRight(std::string_view utf8, size_t width);  // left-aligned in `width`
// The first `width` characters (never half a character).
std::string clip(std::string_view utf8, size_t width);

}  // namespace kinetoscope::format
