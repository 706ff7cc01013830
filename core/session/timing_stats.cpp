#include "core/session/timing_stats.h"

#include <algorithm>
#include <cmath>

namespace kinetoscope::session {

PhaseTiming timingStats(std::string phase, std::vector<double> values)
{
    PhaseTiming t;
    t.phase = std::move(phase);
    if (values.empty())
        return t;
    std::sort(values.begin(), values.end());
    double sum = 0;
    for (double v : values)
        sum += v;
    t.meanMs = sum / double(values.size());
    double squares = 0;
    for (double v : values)
        squares += (v - t.meanMs) * (v - t.meanMs);
    t.stdMs = std::sqrt(squares / double(values.size()));
    // Nearest rank: the smallest value with at least p of the values at or below it.
    auto rank = [&](double p) {
        const size_t k = size_t(std::ceil(p * double(values.size()) - 1e-9));
        return values[std::clamp<size_t>(k, 1, values.size()) - 1];
    };
    t.medianMs = rank(0.5);
    t.p95Ms = rank(0.95);
    t.p99Ms = rank(0.99);
    return t;
}

}  // namespace kinetoscope::session
