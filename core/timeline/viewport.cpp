#include "core/timeline/viewport.h"

#include <algorithm>
#include <cmath>

namespace kinetoscope::timeline {

Viewport Viewport::fit(int64_t beginNs, int64_t endNs, int widthPx)
{
    Viewport v;
    v.widthPx = std::max(1, widthPx);
    v.showRange(beginNs, endNs);
    return v;
}

int64_t Viewport::endNs() const
{
    return timeAt(double(widthPx));
}

double Viewport::xOf(int64_t timeNs) const
{
    // The difference first, in integers: exact however far from the epoch the trace is.
    return double(timeNs - beginNs) / nsPerPixel;
}

int64_t Viewport::timeAt(double x) const
{
    return beginNs + std::llround(x * nsPerPixel);
}

void Viewport::zoomAround(double x, double factor)
{
    const int64_t anchor = timeAt(x);
    nsPerPixel = std::clamp(nsPerPixel * factor, kMinNsPerPixel, kMaxNsPerPixel);
    // Put `anchor` back under x; at sub-ns scales the left edge keeps a fraction of a ns
    // of error, which timeAt's rounding absorbs.
    beginNs = anchor - std::llround(x * nsPerPixel);
}

void Viewport::pan(double pixels)
{
    beginNs += std::llround(pixels * nsPerPixel);
}

void Viewport::showRange(int64_t begin, int64_t end)
{
    beginNs = begin;
    nsPerPixel = std::clamp(double(std::max<int64_t>(1, end - begin)) / double(widthPx),
                            kMinNsPerPixel, kMaxNsPerPixel);
}

}  // namespace kinetoscope::timeline
