#pragma once
// Summary statistics of a sample of durations (ns): what a latency column shows.
#include <cstdint>
#include <vector>

namespace kinetoscope::analysis {

struct Distribution
{
    int64_t count = 0;
    double mean = 0.0;
    double stddev = 0.0;
    int64_t min = 0;
    int64_t p50 = 0;
    int64_t p95 = 0;
    int64_t p99 = 0;
    int64_t max = 0;
};

// Nearest-rank percentiles. Takes the values by value: it sorts them.
Distribution distributionOf(std::vector<int64_t> values);

}  // namespace kinetoscope::analysis
