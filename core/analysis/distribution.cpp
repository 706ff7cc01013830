#include "core/analysis/distribution.h"

#include <algorithm>
#include <cmath>

namespace kinetoscope::analysis {

Distribution distributionOf(std::vector<int64_t> values)
{
    Distribution d;
    if (values.empty())
        return d;
    std::sort(values.begin(), values.end());
    d.count = static_cast<int64_t>(values.size());
    double sum = 0.0;
    for (int64_t v : values)
        sum += static_cast<double>(v);
    d.mean = sum / static_cast<double>(d.count);
    double squares = 0.0;
    for (int64_t v : values)
        squares += (static_cast<double>(v) - d.mean) * (static_cast<double>(v) - d.mean);
    d.stddev = std::sqrt(squares / static_cast<double>(d.count));
    auto rank = [&](double p) {
        const auto index = static_cast<size_t>(std::ceil(p * static_cast<double>(d.count))) - 1;
        return values[std::min(index, values.size() - 1)];
    };
    d.min = values.front();
    d.p50 = rank(0.50);
    d.p95 = rank(0.95);
    d.p99 = rank(0.99);
    d.max = values.back();
    return d;
}

}  // namespace kinetoscope::analysis
