#pragma once
// The time ruler: tick positions at 1-2-5 x 10^k ns spacing, wide enough apart for their
// labels, and labels whose unit and decimals fit the spacing ("12.5 ms", "3599.999999999 s").
// Labels are times since the trace's first event, not absolute clock values.
#include "core/timeline/viewport.h"

#include <string>
#include <vector>

namespace kinetoscope::timeline {

struct RulerTick
{
    int64_t timeNs = 0;  // absolute
    double x = 0;        // pixels
    bool labelled = false;
    std::string label;  // time since `originNs`, only on labelled ticks
};

// The tick spacing in ns: the smallest 1, 2 or 5 x 10^k (k >= 0) spanning at least
// `minSpacingPx` pixels.
int64_t rulerStepNs(double nsPerPixel, double minSpacingPx);
// Minor ticks every step/5 (or /2 for 2 x 10^k steps); every major tick labelled.
std::vector<RulerTick> rulerTicks(const Viewport& view, int64_t originNs,
                                  double minLabelSpacingPx = 90.0);
// `ns` in a unit chosen by its magnitude, with enough decimals to show `resolutionNs`.
std::string formatTime(int64_t ns, int64_t resolutionNs);

}  // namespace kinetoscope::timeline
