// The timeline's frame budget on a big trace, with the real page's parts: the frame
// (draw list + counter columns, DrawListBuilder::build) and the painting of it into a
// 1600 x 900 image (paintTimeline, text included), each the median of 21, for the
// whole-trace view and for 1 ms windows spread over the trace.
//
//   kinetoscope-gen-trace 2290M bench/out/5m.json   # about 5 million events
//   bench_timeline_paint bench/out/5m.json
#include "core/analysis/summary.h"
#include "core/timeline/track_layout.h"
#include "core/trace/trace_loader.h"
#include "widgets/timeline/draw_list_builder.h"
#include "widgets/timeline/timeline_painter.h"

#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace kinetoscope;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kWidth = 1600, kHeight = 900, kLabelWidth = 200, kRulerHeight = 34;

double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

struct Scene
{
    const timeline::TimelineIndex& index;
    const timeline::TrackLayout& layout;
    const std::vector<timeline::CounterTrack>& counters;
    const std::vector<analysis::Step>& steps;
};

struct Figures
{
    double buildMs, paintMs;
    size_t items;
};

Figures measure(const Scene& scene, const timeline::Viewport& view)
{
    const auto [first, last] = scene.layout.lanesIn(0, kHeight - kRulerHeight);
    widgets::FrameRequest request{view, first, last, 1};
    widgets::TimelineFrame frame;
    std::vector<double> build, paint;
    QImage image(kWidth, kHeight, QImage::Format_ARGB32_Premultiplied);
    for (int i = 0; i < 21; ++i) {
        auto t = Clock::now();
        widgets::DrawListBuilder::build(scene.index, scene.counters, request, frame);
        build.push_back(msSince(t));
        widgets::TimelinePaintState state;
        state.index = &scene.index;
        state.layout = &scene.layout;
        state.counters = &scene.counters;
        state.frame = &frame;
        state.steps = &scene.steps;
        state.view = view;
        state.originNs = scene.index.model().beginNs();
        state.labelWidth = kLabelWidth;
        state.rulerHeight = kRulerHeight;
        t = Clock::now();
        QPainter painter(&image);
        widgets::paintTimeline(painter, image.size(), state);
        painter.end();
        paint.push_back(msSince(t));
    }
    return {median(build), median(paint), frame.items.size()};
}

}  // namespace

int main(int argc, char** argv)
{
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_timeline_paint TRACE\n");
        return 2;
    }
    auto t = Clock::now();
    const trace::LoadResult loaded = trace::loadTraceFile(argv[1]);
    if (!loaded.ok()) {
        std::fprintf(stderr, "bench_timeline_paint: %s\n", loaded.message.c_str());
        return 2;
    }
    const trace::TraceModel& model = *loaded.model;
    std::printf("loaded %zu events in %.0f ms\n", model.events().size(), msSince(t));
    t = Clock::now();
    const analysis::TraceSummary summary = analysis::summarize(model);
    const timeline::TimelineIndex index(model);
    const auto counters = timeline::countersFromSummary(summary, model.endNs());
    const timeline::TrackLayout layout(index, counters);
    std::printf("summary, index, counters and layout in %.0f ms: %zu lanes, %zu counter tracks, "
                "%zu steps\n",
                msSince(t), index.lanes().size(), counters.size(), summary.steps.steps.size());
    // Level-of-detail bytes: the lanes plus the counters' min/max pyramids.
    size_t pyramidBytes = 0, samples = 0;
    for (const timeline::CounterTrack& track : counters)
        for (const timeline::CounterSeries& series : track.series) {
            samples += series.values.size();
            for (const auto& level : series.pyramid)
                pyramidBytes += level.capacity() * sizeof(level[0]);
        }
    std::printf("level of detail: %.2f bytes per event (lanes %zu B, counter pyramids %zu B over "
                "%zu samples)\n",
                double(index.memoryBytes() + pyramidBytes) / double(model.events().size()),
                index.memoryBytes(), pyramidBytes, samples);
    const Scene scene{index, layout, counters, summary.steps.steps};
    const int timeWidth = kWidth - kLabelWidth;
    const Figures whole =
        measure(scene, timeline::Viewport::fit(model.beginNs(), model.endNs(), timeWidth));
    std::printf("whole trace: frame %.3f ms, paint %.3f ms (medians of 21), %zu items\n",
                whole.buildMs, whole.paintMs, whole.items);
    std::vector<double> build, paint;
    size_t items = 0;
    for (int k = 1; k <= 9; ++k) {
        const int64_t at = model.beginNs() + (model.endNs() - model.beginNs()) / 10 * k;
        const Figures f = measure(scene, timeline::Viewport::fit(at, at + 1'000'000, timeWidth));
        build.push_back(f.buildMs);
        paint.push_back(f.paintMs);
        items = std::max(items, f.items);
    }
    std::printf("1 ms windows: frame %.3f ms, paint %.3f ms (median over 9 windows; worst %.3f / "
                "%.3f ms), up to %zu items\n",
                median(build), median(paint), *std::max_element(build.begin(), build.end()),
                *std::max_element(paint.begin(), paint.end()), items);
    return 0;
}
