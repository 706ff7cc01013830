// bench_ingest TRACE: loads one trace in a fresh process and prints, as one JSON line,
// the load time, throughput, peak RSS and the model's bytes per event. Run it through
// bench/run_ingest_bench.sh, which also times Python's json.load on the same file.
#include "core/trace/trace_loader.h"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: bench_ingest TRACE\n");
        return 2;
    }
    const auto started = std::chrono::steady_clock::now();
    const auto result = kinetoscope::trace::loadTraceFile(argv[1]);
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
    std::printf("{\"file_bytes\": %llu, \"bytes_read\": %llu, \"entries\": %llu, \"seconds\": %.3f, "
                "\"mb_per_s\": %.1f, \"peak_rss_bytes\": %lld, \"model_bytes\": %zu, "
                "\"string_bytes\": %zu, \"model_bytes_per_event_excluding_strings\": %.1f, "
                "\"model_bytes_per_event\": %.1f, \"status\": \"%s\"}\n",
                static_cast<unsigned long long>(s.fileBytes), static_cast<unsigned long long>(s.bytesRead),
                static_cast<unsigned long long>(s.entries), seconds,
                static_cast<double>(s.bytesRead) / 1e6 / seconds, static_cast<long long>(usage.ru_maxrss) * 1024,
                modelBytes, stringBytes, static_cast<double>(modelBytes - stringBytes) / entries,
                static_cast<double>(modelBytes) / entries,
                std::string(kinetoscope::trace::loadStatusName(result.status)).c_str());
    return 0;
}
