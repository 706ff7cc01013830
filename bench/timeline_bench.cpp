// The timeline's level of detail on a big trace: index build time and bytes per event,
// then the draw list for the whole-trace view and for 1 ms windows (median of 21 builds
// each), at 1600 px with slices under 3 px folded.
//
//   kinetoscope-gen-trace bench/out/5m.json 1400000000   # about 5 million events
//   bench_timeline bench/out/5m.json
#include "core/timeline/timeline_index.h"
#include "core/trace/trace_loader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

using namespace kinetoscope;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

struct Figures
{
    double medianMs = 0;
    size_t items = 0;
};

Figures measure(const timeline::TimelineIndex& index, const timeline::Viewport& view)
{
    std::vector<double> times;
    std::vector<timeline::DrawItem> items;
    for (int i = 0; i < 21; ++i) {
        items.clear();
        const auto t = Clock::now();
        index.buildDrawList(view, 3.0f, items);
        times.push_back(msSince(t));
    }
    std::sort(times.begin(), times.end());
    return {times[times.size() / 2], items.size()};
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_timeline TRACE\n");
        return 2;
    }
    auto t = Clock::now();
    const trace::LoadResult loaded = trace::loadTraceFile(argv[1]);
    if (!loaded.ok()) {
        std::fprintf(stderr, "bench_timeline: %s\n", loaded.message.c_str());
        return 2;
    }
    const trace::TraceModel& model = *loaded.model;
    std::printf("loaded %zu events in %.0f ms\n", model.events().size(), msSince(t));
    t = Clock::now();
    const timeline::TimelineIndex index(model);
    std::printf("index: %zu lanes, built in %.0f ms, %.2f bytes per event\n", index.lanes().size(),
                msSince(t), double(index.memoryBytes()) / double(model.events().size()));
    const int width = 1600;
    const Figures whole =
        measure(index, timeline::Viewport::fit(model.beginNs(), model.endNs(), width));
    std::printf("whole trace: draw list %.3f ms (median of 21), %zu items\n", whole.medianMs,
                whole.items);
    std::vector<double> windowMs;
    size_t windowItems = 0;
    for (int k = 1; k <= 9; ++k) {  // 1 ms windows spread over the trace
        const int64_t at = model.beginNs() + (model.endNs() - model.beginNs()) / 10 * k;
        const Figures f = measure(index, timeline::Viewport::fit(at, at + 1'000'000, width));
        windowMs.push_back(f.medianMs);
        windowItems = std::max(windowItems, f.items);
    }
    std::sort(windowMs.begin(), windowMs.end());
    std::printf("1 ms windows: draw list %.3f ms median (worst %.3f ms), up to %zu items\n",
                windowMs[windowMs.size() / 2], windowMs.back(), windowItems);
    return 0;
}
