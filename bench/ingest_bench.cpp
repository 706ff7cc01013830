// bench_ingest TRACE [--threads N]: loads one trace in a fresh process and prints, as one
// JSON line, the load time (and the part of it spent building the model after the events
// were read), throughput, peak RSS and the model's bytes per event. Run it through
// bench/run_ingest_bench.sh, which compares thread counts and Python's json.load.
#include "core/trace/trace_loader.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/resource.h>

int main(int argc, char** argv)
{
    kinetoscope::trace::LoadOptions options;
    if (argc == 4 && std::strcmp(argv[2], "--threads") == 0) {
        options.threads = static_cast<unsigned>(std::strtoul(argv[3], nullptr, 10));
    } else if (argc != 2) {
        std::fprintf(stderr, "usage: bench_ingest TRACE [--threads N]\n");
        return 2;
    }
    const auto started = std::chrono::steady_clock::now();
    const auto result = kinetoscope::trace::loadTraceFile(argv[1], options);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (!result.model) {
        std::fprintf(stderr, "bench_ingest: %s\n", result.message.c_str());
        return 2;
    }
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto& model = *result.model;
    const auto& s = model.stats();
    const double entries = static_cast<double>(s.entries);
    const size_t modelBytes = model.memoryBytes();
    const size_t stringBytes = model.stringBytes();
    std::printf("{\"threads\": %u, \"blocks_on_threads\": %llu, \"finish_seconds\": %.3f, "
                "\"file_bytes\": %llu, \"bytes_read\": %llu, \"entries\": %llu, \"seconds\": %.3f, "
                "\"mb_per_s\": %.1f, \"peak_rss_bytes\": %lld, \"model_bytes\": %zu, "
                "\"string_bytes\": %zu, \"model_bytes_per_event_excluding_strings\": %.1f, "
                "\"model_bytes_per_event\": %.1f, \"status\": \"%s\"}\n",
                options.threads, static_cast<unsigned long long>(s.blocksOnThreads),
                s.finishSeconds, static_cast<unsigned long long>(s.fileBytes),
                static_cast<unsigned long long>(s.bytesRead),
                static_cast<unsigned long long>(s.entries), seconds,
                static_cast<double>(s.bytesRead) / 1e6 / seconds,
                static_cast<long long>(usage.ru_maxrss) * 1024, modelBytes, stringBytes,
                static_cast<double>(modelBytes - stringBytes) / entries,
                static_cast<double>(modelBytes) / entries,
                std::string(kinetoscope::trace::loadStatusName(result.status)).c_str());
    return 0;
}
