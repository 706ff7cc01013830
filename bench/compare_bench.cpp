// bench_compare BEFORE AFTER: what `kinetoscope diff` costs next to opening its two
// sides. Opens each side alone (read, analysed, diagnosed: document::open), then both at
// once and compares them as `diff` does (compare::openBoth, compare::compareDocuments),
// and prints one JSON line: each load, their sum and maximum, the parallel open, the
// comparison itself, and the ratios of the whole `diff` to one load and to both in turn.
// On a machine with as many cores as the two loads use the parallel open approaches the
// slower load; with fewer it approaches their sum.
#include "core/compare/comparison.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sys/resource.h>
#include <thread>

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: bench_compare BEFORE AFTER\n");
        return 2;
    }
    using Clock = std::chrono::steady_clock;
    const auto seconds = [](Clock::time_point a, Clock::time_point b) {
        return std::chrono::duration<double>(b - a).count();
    };
    namespace document = kinetoscope::document;
    namespace compare = kinetoscope::compare;

    auto t0 = Clock::now();
    bool ok = document::open(argv[1])->ok();
    const auto t1 = Clock::now();
    ok = document::open(argv[2])->ok() && ok;
    const auto t2 = Clock::now();
    if (!ok) {
        std::fprintf(stderr, "bench_compare: a side cannot be read\n");
        return 2;
    }
    std::string error;
    const compare::CompareInput input = compare::openBoth(argv[1], argv[2], {}, error);
    const auto t3 = Clock::now();
    const compare::Comparison comparison = compare::compareDocuments(*input.before, *input.after);
    const auto t4 = Clock::now();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const double loadBefore = seconds(t0, t1), loadAfter = seconds(t1, t2);
    const double diff = seconds(t2, t4);
    std::printf(
        "{\"cores\": %u, \"steps\": [%zu, %zu], \"load_before_seconds\": %.3f, "
        "\"load_after_seconds\": %.3f, "
        "\"parallel_open_seconds\": %.3f, \"compare_seconds\": %.3f, \"diff_seconds\": %.3f, "
        "\"diff_over_slower_load\": %.2f, \"diff_over_both_loads\": %.2f, \"peak_rss_bytes\": "
        "%lld}\n",
        std::thread::hardware_concurrency(), comparison.before.steps.valuesNs.size(),
        comparison.after.steps.valuesNs.size(), loadBefore, loadAfter, seconds(t2, t3),
        seconds(t3, t4), diff, diff / std::max(loadBefore, loadAfter),
        diff / (loadBefore + loadAfter), static_cast<long long>(usage.ru_maxrss) * 1024);
    return 0;
}
