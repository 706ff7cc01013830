#pragma once
// The timeline's visible window: which nanosecond sits at the left edge and how many
// nanoseconds one pixel spans. Pixel <-> time arithmetic is exact to the nanosecond for
// any trace the ingest can hold: times stay int64 and only the scale is a double.
#include <cstdint>

namespace kinetoscope::timeline {

struct Viewport
{
    int64_t beginNs = 0;      // time at x = 0
    double nsPerPixel = 1.0;  // > 0
    int widthPx = 1;

    static constexpr double kMinNsPerPixel = 1e-3;  // at most zoom: 1000 px per ns
    // At least zoom: 100 s per pixel (two days across a wide screen). Keeps x * scale
    // far inside int64 and inside the doubles that hold integers exactly.
    static constexpr double kMaxNsPerPixel = 1e11;

    static Viewport fit(int64_t beginNs, int64_t endNs, int widthPx);
    int64_t endNs() const;             // time at the right edge
    double xOf(int64_t timeNs) const;  // may lie outside [0, widthPx]
    int64_t timeAt(double x) const;    // rounded to the nearest ns
    // Zooms by `factor` (< 1 zooms in) keeping the time under `x` where it is.
    void zoomAround(double x, double factor);
    void pan(double pixels);                         // > 0 moves the view later in time
    void showRange(int64_t beginNs, int64_t endNs);  // zoom to a selection
};

}  // namespace kinetoscope::timeline
