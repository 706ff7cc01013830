#include "core/timeline/time_ruler.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace kinetoscope::timeline {

namespace {

struct Unit
{
    int64_t ns;
    const char* name;
};

// The largest unit not above `magnitude` (ns for anything under a microsecond).
Unit unitFor(int64_t magnitude)
{
    if (magnitude >= 1'000'000'000)
        return {1'000'000'000, "s"};
    if (magnitude >= 1'000'000)
        return {1'000'000, "ms"};
    if (magnitude >= 1'000)
        return {1'000, "µs"};
    return {1, "ns"};
}

// Decimals that make a step of `resolutionNs` visible in `unit`.
int decimalsFor(int64_t resolutionNs, int64_t unitNs)
{
    int decimals = 0;
    for (int64_t r = unitNs; r > resolutionNs && r > 1 && decimals < 9; r /= 10)
        ++decimals;
    return decimals;
}

// Exact fixed-point formatting: integer part and fraction from integer arithmetic, so
// the labels at the end of an hour keep their last nanosecond.
std::string fixed(int64_t ns, int64_t unitNs, int decimals)
{
    const bool negative = ns < 0;
    const uint64_t magnitude = negative ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
    uint64_t whole = magnitude / uint64_t(unitNs), rest = magnitude % uint64_t(unitNs);
    uint64_t scale = 1;
    for (int i = 0; i < decimals; ++i)
        scale *= 10;
    // Round the fraction to `decimals` digits.
    uint64_t fraction = (rest * scale * 2 + uint64_t(unitNs)) / (uint64_t(unitNs) * 2);
    if (fraction >= scale) {
        fraction -= scale;
        ++whole;
    }
    char buffer[64];
    if (decimals > 0)
        std::snprintf(buffer, sizeof buffer, "%s%llu.%0*llu", negative ? "-" : "",
                      static_cast<unsigned long long>(whole), decimals,
                      static_cast<unsigned long long>(fraction));
    else
        std::snprintf(buffer, sizeof buffer, "%s%llu", negative ? "-" : "",
                      static_cast<unsigned long long>(whole));
    return buffer;
}

}  // namespace

int64_t rulerStepNs(double nsPerPixel, double minSpacingPx)
{
    const double wanted = std::max(1.0, nsPerPixel * minSpacingPx);
    int64_t decade = 1;
    while (true) {
        for (int64_t mantissa : {1, 2, 5})
            if (double(mantissa * decade) >= wanted)
                return mantissa * decade;
        if (decade > INT64_MAX / 100)
            return decade * 10;
        decade *= 10;
    }
}

std::vector<RulerTick> rulerTicks(const Viewport& view, int64_t originNs, double minLabelSpacingPx)
{
    std::vector<RulerTick> ticks;
    const int64_t step = rulerStepNs(view.nsPerPixel, minLabelSpacingPx);
    const int64_t firstDigit = step / [&] {
        int64_t d = 1;
        while (d * 10 <= step)
            d *= 10;
        return d;
    }();
    const int minorPerMajor = firstDigit == 2 ? 2 : 5;
    const int64_t minor = step % minorPerMajor == 0 ? step / minorPerMajor : step;
    // Ticks sit on multiples of `minor` counted from the origin.
    const int64_t begin = view.beginNs - originNs, end = view.endNs() - originNs;
    int64_t t = begin >= 0 ? (begin + minor - 1) / minor * minor : -((-begin) / minor * minor);
    const Unit unit = unitFor(std::max<int64_t>(std::llabs(end), std::llabs(begin)));
    const int decimals = decimalsFor(step, unit.ns);
    for (; t <= end; t += minor) {
        RulerTick tick;
        tick.timeNs = originNs + t;
        tick.x = view.xOf(tick.timeNs);
        tick.labelled = t % step == 0;
        if (tick.labelled)
            tick.label = fixed(t, unit.ns, decimals) + " " + unit.name;
        ticks.push_back(std::move(tick));
    }
    return ticks;
}

std::string formatTime(int64_t ns, int64_t resolutionNs)
{
    const Unit unit = unitFor(std::llabs(ns));
    return fixed(ns, unit.ns, decimalsFor(std::max<int64_t>(1, resolutionNs), unit.ns)) + " " +
           unit.name;
}

}  // namespace kinetoscope::timeline
