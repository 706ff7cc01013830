// bench_startup [--runs N] [--before OLD_KINETOSCOPE] [SMALL_TRACE LARGE_TRACE]:
// whole-process start-up and peak resident memory of `kinetoscope help` and of
// `kinetoscope diagnose` on a small and a large trace, each the median of N runs (wall
// clock from fork to exit; the peak from wait4's rusage), with `kinetoscope-engine --help`
// beside them: the cost of loading LibTorch, which every kinetoscope process paid while it
// linked torch. --before runs the same commands with another kinetoscope (an older build)
// in the same run, for a side-by-side ratio. The binaries are found beside this one;
// the traces default to the bundled sample and ../shared/traces' largest (54 MB).
#include "bench/timed_command.h"

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

struct Measured
{
    double seconds = 0;      // median wall time
    long peakKilobytes = 0;  // largest peak resident set over the runs
    bool ok = true;
};

Measured measure(const std::vector<std::string>& command, int runs)
{
    Measured m;
    std::vector<double> times;
    for (int i = 0; i < runs; ++i) {
        double seconds = 0;
        long peak = 0;
        m.ok = runOnce(command, seconds, peak) && m.ok;
        times.push_back(seconds);
        m.peakKilobytes = std::max(m.peakKilobytes, peak);
    }
    std::sort(times.begin(), times.end());
    m.seconds = times[times.size() / 2];
    return m;
}

void report(const char* label, const Measured& m)
{
    std::printf("%-52s %8.3f s %8.0f MB%s\n", label, m.seconds, double(m.peakKilobytes) / 1024.0,
                m.ok ? "" : "  (failed)");
}

}  // namespace

int main(int argc, char** argv)
{
    int runs = 5;
    std::string before;
    std::vector<std::string> traces;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--runs" && i + 1 < argc)
            runs = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--before" && i + 1 < argc)
            before = argv[++i];
        else
            traces.push_back(arg);
    }
    const std::filesystem::path here =
        std::filesystem::read_symlink("/proc/self/exe").parent_path();
    const std::string kinetoscope = (here / "kinetoscope").string(),
                      engine = (here / "kinetoscope-engine").string();
    if (traces.empty())
        traces = {KINETOSCOPE_SOURCE_DIR "/resources/sample.pt.trace.json.gz",
                  KINETOSCOPE_SOURCE_DIR "/../shared/traces/hta/allreduce_memory_rank1.json.gz"};
    if (traces.size() != 2) {
        std::fprintf(stderr, "usage: bench_startup [--runs N] [--before OLD_KINETOSCOPE] "
                             "[SMALL_TRACE LARGE_TRACE]\n");
        return 2;
    }
    std::printf("median of %d runs, wall clock from fork to exit; peak resident set\n", runs);
    struct Row
    {
        std::string label;
        std::vector<std::string> arguments;
    };
    const std::vector<Row> rows{{"help", {"help"}},
                                {"diagnose " + std::filesystem::path(traces[0]).filename().string(),
                                 {"diagnose", traces[0]}},
                                {"diagnose " + std::filesystem::path(traces[1]).filename().string(),
                                 {"diagnose", traces[1]}}};
    for (const Row& row : rows) {
        std::vector<std::string> command{kinetoscope};
        command.insert(command.end(), row.arguments.begin(), row.arguments.end());
        const Measured now = measure(command, runs);
        report(("kinetoscope " + row.label).c_str(), now);
        if (!before.empty()) {
            command[0] = before;
            const Measured then = measure(command, runs);
            report(("  before: " + row.label).c_str(), then);
            std::printf("  %-50s %8.1fx   %8.1fx\n", "before / now", then.seconds / now.seconds,
                        double(then.peakKilobytes) / double(std::max(now.peakKilobytes, 1L)));
        }
    }
    if (std::filesystem::exists(engine))
        report("kinetoscope-engine --help (LibTorch loaded)", measure({engine, "--help"}, runs));
    return 0;
}
