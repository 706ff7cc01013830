#pragma once
// The median of a few values (the ranks of a job, the collectives of a step): sorted
// copy, mean of the two middle values when their count is even; 0 when there are none.
#include <algorithm>
#include <vector>

namespace kinetoscope::job {

inline double median(std::vector<double> values)
{
    if (values.empty())
        return 0.0;
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

}  // namespace kinetoscope::job
