// bench_job_digests: a job of many ranks read from their digests (core/job/digest.h).
//   make OUT RANKS STRAGGLER DELAY_MS TRACE...   a job of RANKS digests made from the real
//                          ranks' traces given (bench/job_digest_gen.h): rank STRAGGLER
//                          (-1: none) loads data DELAY_MS longer per step
//   links OUT COUNT TRACE  OUT/rank-K/trace.json for K < COUNT, each a link to TRACE: one
//                          real rank's trace COUNT times, a job read from the traces
//   open DIR [--no-digests]  the job opened in this process as the CLI opens it (digests
//                          where fresh, documents dropped past 8) and diagnosed
//   cli KINETOSCOPE RUNS DIR [ARG...]  `kinetoscope summary DIR` and `kinetoscope diagnose
//                          DIR` as whole processes, RUNS times each (wall clock from fork to
//                          exit, the peak from wait4's rusage)
// One JSON line per measurement: seconds and peak RSS. (The app's path: bench_job_app.)
#include "bench/job_digest_gen.h"
#include "bench/timed_command.h"
#include "core/job/digest.h"
#include "core/job/job_rules.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using kinetoscope::bench::runOnce;

namespace {

namespace fs = std::filesystem;
namespace job = kinetoscope::job;

int usage()
{
    std::fprintf(stderr, "usage: bench_job_digests make OUT RANKS STRAGGLER DELAY_MS TRACE...\n"
                         "       bench_job_digests links OUT COUNT TRACE\n"
                         "       bench_job_digests open DIR [--no-digests]\n"
                         "       bench_job_digests cli KINETOSCOPE RUNS DIR [ARG...]\n");
    return 2;
}

long long selfPeakBytes()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<long long>(usage.ru_maxrss) * 1024;
}

int makeJob(const std::vector<std::string>& args)
{
    if (args.size() < 5)
        return usage();
    kinetoscope::bench::DigestJobSpec spec;
    spec.ranks = std::stoi(args[1]);
    spec.straggler = std::stoi(args[2]);
    spec.stragglerDelayNs = int64_t(std::stod(args[3]) * 1e6);
    const std::vector<std::string> traces(args.begin() + 4, args.end());
    const auto start = std::chrono::steady_clock::now();
    std::string error;
    if (!kinetoscope::bench::writeDigestJob(traces, args[0], spec, error)) {
        std::fprintf(stderr, "bench_job_digests: %s\n", error.c_str());
        return 2;
    }
    uintmax_t bytes = 0;
    for (int k = 0; k < spec.ranks; ++k)
        bytes +=
            fs::file_size(fs::path(args[0]) / ("rank-" + std::to_string(k)) / job::kRankDigestName);
    std::printf("{\"mode\": \"make\", \"ranks\": %d, \"digests_bytes\": %ju, \"seconds\": %.3f}\n",
                spec.ranks, bytes,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return 0;
}

int makeLinks(const std::vector<std::string>& args)
{
    if (args.size() != 3)
        return usage();
    const int count = std::stoi(args[1]);
    std::error_code ec;
    for (int k = 0; k < count; ++k) {
        const fs::path folder = fs::path(args[0]) / ("rank-" + std::to_string(k));
        fs::remove_all(folder, ec);
        fs::create_directories(folder, ec);
        fs::create_symlink(fs::absolute(args[2]), folder / "trace.json", ec);
        if (ec) {
            std::fprintf(stderr, "bench_job_digests: %s: %s\n", folder.c_str(),
                         ec.message().c_str());
            return 2;
        }
    }
    return 0;
}

int openJob(const std::vector<std::string>& args)
{
    if (args.empty())
        return usage();
    job::JobOptions how;
    how.keepDocumentsUpTo = 8;  // as the CLI opens a job
    how.digests = !(args.size() > 1 && args[1] == "--no-digests");
    const auto start = std::chrono::steady_clock::now();
    std::string error;
    const auto opened = job::openJobPaths({args[0]}, {}, error, how);
    if (!opened) {
        std::fprintf(stderr, "bench_job_digests: %s\n", error.c_str());
        return 2;
    }
    const double openSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto findings = job::diagnoseJob(*opened);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("{\"mode\": \"open\", \"ranks\": %zu, \"from_digests\": %zu, \"open_seconds\": "
                "%.3f, \"seconds\": %.3f, \"peak_rss_bytes\": %lld, \"straggler\": %d, "
                "\"cause\": \"%s\", \"collectives_matched\": %zu, \"common_steps\": %zu, "
                "\"first_finding\": \"%s\"}\n",
                opened->ranks.size(), opened->ranksFromDigests, openSeconds, seconds,
                selfPeakBytes(), opened->straggler.value_or(-1), opened->stragglerCause.c_str(),
                opened->collectives.matched.size(), opened->commonSteps.size(),
                findings.empty() ? "" : findings.front().id.c_str());
    return 0;
}

int runCli(const std::vector<std::string>& args)
{
    if (args.size() < 3)
        return usage();
    const int runs = std::max(1, std::stoi(args[1]));
    for (const char* command : {"summary", "diagnose"}) {
        std::vector<std::string> line{args[0], command, args[2]};
        line.insert(line.end(), args.begin() + 3, args.end());
        std::vector<double> times;
        long peak = 0;
        bool ok = true;
        for (int i = 0; i < runs; ++i) {
            double seconds = 0;
            long kilobytes = 0;
            ok = runOnce(line, seconds, kilobytes) && ok;
            times.push_back(seconds);
            peak = std::max(peak, kilobytes);
        }
        std::sort(times.begin(), times.end());
        std::printf("{\"mode\": \"cli\", \"command\": \"%s\", \"runs\": %d, \"median_seconds\": "
                    "%.3f, \"max_seconds\": %.3f, \"peak_rss_bytes\": %lld, \"ok\": %s}\n",
                    command, runs, times[times.size() / 2], times.back(),
                    static_cast<long long>(peak) * 1024, ok ? "true" : "false");
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 2)
        return usage();
    const std::string mode = argv[1];
    const std::vector<std::string> args(argv + 2, argv + argc);
    if (mode == "make")
        return makeJob(args);
    if (mode == "links")
        return makeLinks(args);
    if (mode == "open")
        return openJob(args);
    if (mode == "cli")
        return runCli(args);
    return usage();
}
