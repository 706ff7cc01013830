// bench_analysis TRACE: loads a trace, then runs the whole analysis (summarize) on it,
// and prints both times as one JSON line. Issue #3 asks that the analysis take less
// time than the ingest on a 1 GB trace.
#include "core/analysis/summary.h"
#include "core/trace/trace_loader.h"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: bench_analysis TRACE\n");
        return 2;
    }
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const auto loaded = kinetoscope::trace::loadTraceFile(argv[1]);
    const auto t1 = Clock::now();
    if (!loaded.model) {
        std::fprintf(stderr, "bench_analysis: %s\n", loaded.message.c_str());
        return 2;
    }
    const auto summary = kinetoscope::analysis::summarize(*loaded.model);
    const auto t2 = Clock::now();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const double ingest = std::chrono::duration<double>(t1 - t0).count();
    const double analysis = std::chrono::duration<double>(t2 - t1).count();
    std::printf("{\"entries\": %llu, \"steps\": %zu, \"ingest_seconds\": %.3f, \"analysis_seconds\": %.3f, "
                "\"analysis_over_ingest\": %.2f, \"peak_rss_bytes\": %lld}\n",
                static_cast<unsigned long long>(loaded.model->stats().entries), summary.steps.steps.size(),
                ingest, analysis, analysis / ingest, static_cast<long long>(usage.ru_maxrss) * 1024);
    return 0;
}
