#include "core/timeline/counter_track.h"

#include <algorithm>
#include <cmath>

namespace kinetoscope::timeline {

namespace {

constexpr size_t kBlock = 16;

// The (min, max) of values [lo, hi), climbing the pyramid where whole blocks fit.
std::pair<double, double> rangeMinMax(const CounterSeries& series, size_t lo, size_t hi)
{
    double low = series.values[lo], high = low;
    auto take = [&](size_t level, size_t i) {
        if (level == 0) {
            low = std::min(low, series.values[i]);
            high = std::max(high, series.values[i]);
        } else {
            low = std::min(low, series.pyramid[level - 1][i].first);
            high = std::max(high, series.pyramid[level - 1][i].second);
        }
    };
    size_t level = 0;
    while (lo < hi) {
        if (level >= series.pyramid.size()) {
            for (; lo < hi; ++lo)
                take(level, lo);
            break;
        }
        for (; lo < hi && lo % kBlock != 0; ++lo)
            take(level, lo);
        for (; lo < hi && hi % kBlock != 0;)
            take(level, --hi);
        lo /= kBlock;
        hi /= kBlock;
        ++level;
    }
    return {low, high};
}

// Per column: the samples that touch it are those starting inside it, plus the one in
// force at its left edge if it lasts past that edge (the same rule as the linear pass).
void columnsFromPyramid(const CounterSeries& series, const Viewport& view,
                        std::vector<CounterColumn>& out)
{
    const auto& times = series.timesNs;
    const size_t n = times.size();
    size_t a = 0;
    for (int c = 0; c < view.widthPx; ++c) {
        auto before = [&](double edge) {
            return [&view, edge](int64_t t) { return view.xOf(t) < edge; };
        };
        a = size_t(std::partition_point(times.begin() + std::ptrdiff_t(a), times.end(),
                                        before(double(c))) -
                   times.begin());
        const size_t b = size_t(std::partition_point(times.begin() + std::ptrdiff_t(a), times.end(),
                                                     before(double(c + 1))) -
                                times.begin());
        size_t first = a;
        if (a > 0 && view.xOf(a < n ? times[a] : series.endNs) > double(c))
            first = a - 1;
        if (first < b)
            out[size_t(c)] = [&] {
                const auto [low, high] = rangeMinMax(series, first, b);
                return CounterColumn{low, high, true};
            }();
    }
}

}  // namespace

void buildPyramid(CounterSeries& series)
{
    series.pyramid.clear();
    size_t length = series.values.size();
    for (size_t level = 0; length > kBlock; ++level) {
        std::vector<std::pair<double, double>> blocks((length + kBlock - 1) / kBlock);
        for (size_t i = 0; i < length; ++i) {
            const auto [low, high] = level == 0 ? std::pair(series.values[i], series.values[i])
                                                : series.pyramid[level - 1][i];
            auto& block = blocks[i / kBlock];
            block = i % kBlock == 0
                        ? std::pair(low, high)
                        : std::pair(std::min(block.first, low), std::max(block.second, high));
        }
        length = blocks.size();
        series.pyramid.push_back(std::move(blocks));
    }
}

void buildCounterColumns(const CounterSeries& series, const Viewport& view,
                         std::vector<CounterColumn>& out)
{
    out.assign(size_t(std::max(0, view.widthPx)), CounterColumn{});
    const auto& times = series.timesNs;
    if (times.empty() || out.empty())
        return;
    const int64_t viewEnd = view.endNs();
    if (!series.pyramid.empty()) {
        // Many samples per column: answer each column from the pyramid instead.
        const auto first = std::upper_bound(times.begin(), times.end(), view.beginNs);
        const auto last = std::upper_bound(first, times.end(), viewEnd);
        if (size_t(last - first) > 8 * size_t(view.widthPx)) {
            columnsFromPyramid(series, view, out);
            return;
        }
    }
    // The sample in force at the left edge: the last one at or before it.
    size_t i = size_t(std::upper_bound(times.begin(), times.end(), view.beginNs) - times.begin());
    if (i > 0)
        --i;
    const int width = view.widthPx;
    auto clampedColumn = [&](double x) { return int(std::clamp(x, -1.0, double(width))); };
    for (; i < times.size() && times[i] <= viewEnd; ++i) {
        // The value holds over [times[i], until): columns floor(x0) .. ceil(x1) - 1 see it,
        // and a value held for no time at all still shows in the column it falls in.
        const int64_t until = i + 1 < times.size() ? times[i + 1] : series.endNs;
        const int startColumn = clampedColumn(std::floor(view.xOf(times[i])));
        const int first = std::max(0, startColumn);
        const int last = std::min(
            width - 1, std::max(startColumn, clampedColumn(std::ceil(view.xOf(until))) - 1));
        for (int c = first; c <= last; ++c) {
            CounterColumn& column = out[size_t(c)];
            const double v = series.values[i];
            if (!column.covered) {
                column = {v, v, true};
            } else {
                column.min = std::min(column.min, v);
                column.max = std::max(column.max, v);
            }
        }
    }
}

namespace {

CounterSeries bucketSeries(const std::string& name, const std::vector<float>& buckets,
                           int64_t beginNs, int64_t bucketNs, int64_t endNs)
{
    CounterSeries s;
    s.name = name;
    s.endNs = endNs;
    for (size_t b = 0; b < buckets.size(); ++b) {
        s.timesNs.push_back(beginNs + int64_t(b) * bucketNs);
        s.values.push_back(double(buckets[b]));
    }
    return s;
}

}  // namespace

std::vector<CounterTrack> countersFromSummary(const analysis::TraceSummary& summary,
                                              int64_t traceEndNs)
{
    std::vector<CounterTrack> tracks;
    for (const auto& [device, memory] : summary.memory) {
        if (memory.curve.empty())
            continue;
        CounterTrack track;
        track.label = device + " memory";
        track.groupKey = device.rfind("cuda:", 0) == 0 ? "gpu:" + device.substr(5) : "cpu";
        track.unit = CounterUnit::Bytes;
        CounterSeries allocated, reserved;
        allocated.name = "allocated";
        reserved.name = "reserved";
        allocated.endNs = reserved.endNs = traceEndNs;
        for (const analysis::MemoryPoint& p : memory.curve) {
            allocated.timesNs.push_back(p.timeNs);
            allocated.values.push_back(double(p.allocatedBytes));
            track.maxValue = std::max(track.maxValue, double(p.allocatedBytes));
            if (p.reservedBytes >= 0) {
                reserved.timesNs.push_back(p.timeNs);
                reserved.values.push_back(double(p.reservedBytes));
                track.maxValue = std::max(track.maxValue, double(p.reservedBytes));
            }
        }
        if (!reserved.timesNs.empty())
            track.series.push_back(std::move(reserved));
        track.series.push_back(std::move(allocated));
        for (CounterSeries& s : track.series)
            buildPyramid(s);
        tracks.push_back(std::move(track));
    }
    const analysis::UtilizationSeries& u = summary.utilization;
    if (u.bucketNs > 0) {
        for (const auto& [device, buckets] : u.gpuBusy) {
            CounterTrack track;
            track.label = "GPU " + std::to_string(device) + " utilisation";
            track.groupKey = "gpu:" + std::to_string(device);
            track.unit = CounterUnit::Fraction;
            track.maxValue = 1.0;
            track.series.push_back(
                bucketSeries("busy", buckets, u.beginNs, u.bucketNs, traceEndNs));
            tracks.push_back(std::move(track));
        }
        if (!u.cpuBusy.empty()) {
            CounterTrack track;
            track.label = "CPU utilisation";
            track.groupKey = "cpu";
            track.unit = CounterUnit::Fraction;
            track.maxValue = 1.0;
            track.series.push_back(
                bucketSeries("busy", u.cpuBusy, u.beginNs, u.bucketNs, traceEndNs));
            tracks.push_back(std::move(track));
        }
    }
    return tracks;
}

}  // namespace kinetoscope::timeline
