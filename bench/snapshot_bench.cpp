// bench_snapshot SNAPSHOT: opens one CUDA memory snapshot in a fresh process as the app
// does (read, summarised, each device's timeline built) and prints, as one JSON line, the
// time of each stage, the resident memory after each and the peak. Run it through
// bench/run_snapshot_bench.sh, which also times Python's pickle.load on the same file.
#include "core/snapshot/snapshot_model.h"
#include "core/snapshot/snapshot_summary.h"
#include "core/snapshot/snapshot_timeline.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sys/resource.h>
#include <unistd.h>

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

long long residentBytes()  // now, from /proc/self/statm
{
    std::ifstream statm("/proc/self/statm");
    long long pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * sysconf(_SC_PAGESIZE);
}

}  // namespace

int main(int argc, char** argv)
{
    using namespace kinetoscope::snapshot;
    if (argc != 2) {
        std::fprintf(stderr, "usage: bench_snapshot SNAPSHOT\n");
        return 2;
    }
    const long long base = residentBytes();
    const auto started = Clock::now();
    const LoadedSnapshot loaded = loadSnapshotFile(argv[1]);
    const double readSeconds = since(started);
    if (!loaded.model) {
        std::fprintf(stderr, "bench_snapshot: %s\n", loaded.error.c_str());
        return 2;
    }
    const long long afterRead = residentBytes();
    const auto building = Clock::now();
    const std::vector<DeviceTimeline> timelines =
        timelinesOf(*loaded.model, hasTimes(*loaded.model));
    const double timelineSeconds = since(building);
    const auto summarising = Clock::now();
    const SnapshotSummary summary = summarize(*loaded.model, timelines);
    const double summarySeconds = since(summarising);
    const long long afterAll = residentBytes();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf(
        "{\"seconds\": %.3f, \"read_seconds\": %.3f, \"summary_seconds\": %.3f, "
        "\"timeline_seconds\": %.3f, "
        "\"entries\": %zu, \"frames\": %zu, \"stacks\": %zu, \"peak_allocated_bytes\": %lld, "
        "\"file_bytes\": %llu, \"base_rss_bytes\": %lld, \"rss_after_read_bytes\": %lld, "
        "\"rss_after_all_bytes\": %lld, \"peak_rss_bytes\": %lld}\n",
        since(started), readSeconds, summarySeconds, timelineSeconds, loaded.model->entries.size(),
        loaded.model->frames.size(), loaded.model->stacks.size(),
        (long long)summary.peakAllocatedBytes,
        (unsigned long long)std::filesystem::file_size(argv[1]), base, afterRead, afterAll,
        (long long)usage.ru_maxrss * 1024);
    return 0;
}
