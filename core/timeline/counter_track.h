#pragma once
// Counter tracks of the timeline: a value over time per device (memory allocated and
// reserved, GPU and CPU utilisation), drawn as the min/max of the value within each pixel
// column, so a curve of millions of samples costs what the screen is wide.
#include "core/analysis/summary.h"
#include "core/timeline/viewport.h"

#include <string>
#include <vector>

namespace kinetoscope::timeline {

// A step function: `values[i]` holds from `times[i]` until `times[i + 1]` (the last one
// until `endNs`). Times ascend.
struct CounterSeries
{
    std::string name;  // "allocated", "reserved", "busy"
    std::vector<int64_t> timesNs;
    std::vector<double> values;
    int64_t endNs = 0;
    // Level k >= 1: the (min, max) of each block of 16^k consecutive values; built by
    // buildPyramid, about one byte per sample. Lets a pixel column covering thousands of
    // samples be answered in O(16 x levels).
    std::vector<std::vector<std::pair<double, double>>> pyramid;
};

void buildPyramid(CounterSeries& series);

enum class CounterUnit
{
    Bytes,
    Fraction
};

// One drawn counter track: one or two series sharing an axis from 0 to `maxValue`
// (reserved drawn behind allocated).
struct CounterTrack
{
    std::string label;     // "cuda:0 memory", "GPU 0 utilisation"
    std::string groupKey;  // the track group it belongs to: "gpu:0", "cpu"
    CounterUnit unit = CounterUnit::Bytes;
    double maxValue = 0;
    std::vector<CounterSeries> series;
};

// The min and max of a series over one pixel column [x, x + 1).
struct CounterColumn
{
    double min = 0, max = 0;
    bool covered = false;  // false: the column lies outside the series' time span
};

// Columns 0 .. view.widthPx - 1. Cost: O(log n + samples in view + width), or with a
// pyramid and many samples per column O(width x (log n + 16 x levels)).
void buildCounterColumns(const CounterSeries& series, const Viewport& view,
                         std::vector<CounterColumn>& out);

// Memory per device and GPU/CPU utilisation from an analysed trace.
std::vector<CounterTrack> countersFromSummary(const analysis::TraceSummary& summary,
                                              int64_t traceEndNs);

}  // namespace kinetoscope::timeline
