#include "core/analysis/time_ranges.h"

#include <algorithm>

namespace kinetoscope::analysis {

RangeSet unionOf(std::vector<TimeRange> ranges)
{
    std::erase_if(ranges, [](const TimeRange& r) { return r.end <= r.begin; });
    std::sort(ranges.begin(), ranges.end(),
              [](const TimeRange& a, const TimeRange& b) { return a.begin < b.begin; });
    RangeSet merged;
    for (const TimeRange& r : ranges) {
        if (!merged.empty() && r.begin <= merged.back().end)
            merged.back().end = std::max(merged.back().end, r.end);
        else
            merged.push_back(r);
    }
    return merged;
}

RangeSet intersect(const RangeSet& a, const RangeSet& b)
{
    RangeSet out;
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const int64_t begin = std::max(a[i].begin, b[j].begin);
        const int64_t end = std::min(a[i].end, b[j].end);
        if (begin < end)
            out.push_back({begin, end});
        if (a[i].end < b[j].end)
            ++i;
        else
            ++j;
    }
    return out;
}

RangeSet subtract(const RangeSet& a, const RangeSet& b)
{
    RangeSet out;
    size_t j = 0;
    for (TimeRange r : a) {
        while (j < b.size() && b[j].end <= r.begin)
            ++j;
        size_t k = j;
        while (k < b.size() && b[k].begin < r.end) {
            if (b[k].begin > r.begin)
                out.push_back({r.begin, b[k].begin});
            r.begin = std::max(r.begin, b[k].end);
            if (r.begin >= r.end)
                break;
            ++k;
        }
        if (r.begin < r.end)
            out.push_back(r);
    }
    return out;
}

int64_t lengthWithin(const RangeSet& set, int64_t begin, int64_t end)
{
    auto it = std::lower_bound(set.begin(), set.end(), begin,
                               [](const TimeRange& r, int64_t t) { return r.end <= t; });
    int64_t total = 0;
    for (; it != set.end() && it->begin < end; ++it)
        total += std::min(it->end, end) - std::max(it->begin, begin);
    return total;
}

bool contains(const RangeSet& set, int64_t t)
{
    auto it = std::lower_bound(set.begin(), set.end(), t,
                               [](const TimeRange& r, int64_t v) { return r.end <= v; });
    return it != set.end() && it->begin <= t;
}

int64_t totalLength(const RangeSet& set)
{
    int64_t total = 0;
    for (const TimeRange& r : set)
        total += r.length();
    return total;
}

}  // namespace kinetoscope::analysis
