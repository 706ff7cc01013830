// bench_job each|job TRACE...: what opening a job of several ranks costs. `each` opens the
// traces one after another (read, analysed, diagnosed: document::open, each dropped before
// the next); `job` opens them as `kinetoscope summary DIR` does (job::openJob: in parallel
// on the cores there are, every document kept, the collectives matched) and diagnoses the
// job. One JSON line: the seconds, the files' total size and the process's peak RSS. Run
// each mode in its own process (bench/job_bench.sh) so that the peaks do not mix.
#include "core/job/job.h"
#include "core/job/job_rules.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <vector>

int main(int argc, char** argv)
{
    const std::string mode = argc > 1 ? argv[1] : "";
    if (argc < 3 || (mode != "each" && mode != "job")) {
        std::fprintf(stderr, "usage: bench_job each|job TRACE...\n");
        return 2;
    }
    namespace document = kinetoscope::document;
    namespace job = kinetoscope::job;
    const std::vector<std::string> files(argv + 2, argv + argc);
    uintmax_t totalBytes = 0;
    for (const std::string& f : files)
        totalBytes += std::filesystem::file_size(f);

    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    size_t ranks = 0, findings = 0, matched = 0;
    if (mode == "each") {
        for (const std::string& f : files) {
            if (!document::open(f)->ok()) {
                std::fprintf(stderr, "bench_job: %s cannot be read\n", f.c_str());
                return 2;
            }
            ++ranks;
        }
    } else {
        std::string error;
        const auto opened = job::openJob(files, {}, error);
        if (!opened) {
            std::fprintf(stderr, "bench_job: %s\n", error.c_str());
            return 2;
        }
        ranks = opened->ranks.size();
        findings = job::diagnoseJob(*opened).size();
        matched = opened->collectives.matched.size();
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const long long peak = static_cast<long long>(usage.ru_maxrss) * 1024;
    std::printf(
        "{\"mode\": \"%s\", \"cores\": %u, \"ranks\": %zu, \"seconds\": %.3f, \"files_bytes\": "
        "%llu, "
        "\"peak_rss_bytes\": %lld, \"peak_rss_over_files\": %.2f, \"collectives_matched\": %zu, "
        "\"job_findings\": %zu}\n",
        mode.c_str(), std::thread::hardware_concurrency(), ranks, seconds,
        static_cast<unsigned long long>(totalBytes), peak, double(peak) / double(totalBytes),
        matched, findings);
    return 0;
}
