#pragma once
// Sets of time intervals, the algebra behind the step breakdown and utilisation:
// union, intersection, difference and total length. A RangeSet is sorted, its ranges
// disjoint and non-empty; all times are int64 nanoseconds, ranges half-open [begin, end).
#include <cstdint>
#include <vector>

namespace kinetoscope::analysis {

struct TimeRange
{
    int64_t begin = 0;
    int64_t end = 0;  // exclusive
    int64_t length() const { return end - begin; }
    bool operator==(const TimeRange&) const = default;
};

using RangeSet = std::vector<TimeRange>;

// The union of arbitrary (unsorted, overlapping, possibly empty) ranges.
RangeSet unionOf(std::vector<TimeRange> ranges);
RangeSet intersect(const RangeSet& a, const RangeSet& b);
RangeSet subtract(const RangeSet& a, const RangeSet& b);
// Total length of the part of `set` inside [begin, end).
int64_t lengthWithin(const RangeSet& set, int64_t begin, int64_t end);
int64_t totalLength(const RangeSet& set);
// Whether `t` lies inside one of the ranges of `set`.
bool contains(const RangeSet& set, int64_t t);

}  // namespace kinetoscope::analysis
