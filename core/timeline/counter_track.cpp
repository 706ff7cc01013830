#include "core/timeline/counter_track.h"

#include <algorithm>
#include <cmath>

namespace kinetoscope::timeline {

void buildCounterColumns(const CounterSeries& series, const Viewport& view, std::vector<CounterColumn>& out)
{
    out.assign(size_t(std::max(0, view.widthPx)), CounterColumn{});
    const auto& times = series.timesNs;
    if (times.empty() || out.empty())
        return;
    const int64_t viewEnd = view.endNs();
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
        const int last = std::min(width - 1, std::max(startColumn, clampedColumn(std::ceil(view.xOf(until))) - 1));
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

CounterSeries bucketSeries(const std::string& name, const std::vector<float>& buckets, int64_t beginNs, int64_t bucketNs,
                           int64_t endNs)
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

std::vector<CounterTrack> countersFromSummary(const analysis::TraceSummary& summary, int64_t traceEndNs)
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
            track.series.push_back(bucketSeries("busy", buckets, u.beginNs, u.bucketNs, traceEndNs));
            tracks.push_back(std::move(track));
        }
        if (!u.cpuBusy.empty()) {
            CounterTrack track;
            track.label = "CPU utilisation";
            track.groupKey = "cpu";
            track.unit = CounterUnit::Fraction;
            track.maxValue = 1.0;
            track.series.push_back(bucketSeries("busy", u.cpuBusy, u.beginNs, u.bucketNs, traceEndNs));
            tracks.push_back(std::move(track));
        }
    }
    return tracks;
}

}  // namespace kinetoscope::timeline
