// Reading one event's args back from a gzip trace: from the nearest access point of the
// index the ingest recorded (readArgs, core/trace/event_args.h) versus decompressing from the start
// of the file (what a gzip reader without an index must do), for events spread over the
// trace. Prints the median time of each per position and the ingest's index size.
//
//   bench_args_seek TRACE.json.gz
#include "core/trace/byte_source.h"
#include "core/trace/event_args.h"
#include "core/trace/trace_loader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace kinetoscope::trace;
using Clock = std::chrono::steady_clock;

namespace {

double millisSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

// The bytes of one event from the start of the file, without an index.
size_t readFromStart(const std::filesystem::path& path, uint64_t offset)
{
    std::string error;
    const auto source = openFileSourceAt(path, offset, nullptr, error);
    if (!source)
        return 0;
    std::string buffer(4096, '\0');
    return source->read(buffer.data(), buffer.size());
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: bench_args_seek TRACE.json.gz\n");
        return 2;
    }
    const std::filesystem::path path = argv[1];
    const auto loadStart = Clock::now();
    const LoadResult result = loadTraceFile(path);
    if (!result.model) {
        std::fprintf(stderr, "bench_args_seek: %s\n", result.message.c_str());
        return 2;
    }
    const double loadMs = millisSince(loadStart);
    const TraceModel& model = *result.model;
    const auto& index = model.source().gzipIndex;
    std::printf("trace: %s, %zu events, loaded in %.0f ms\n", path.c_str(), model.events().size(),
                loadMs);
    std::printf("gzip index: %zu access points, %.2f MB (%.2f bytes/event)\n",
                index ? index->size() : 0, index ? double(index->memoryBytes()) / 1e6 : 0.0,
                index ? double(index->memoryBytes()) / double(model.events().size()) : 0.0);
    std::printf("%10s %12s %14s %16s %10s\n", "position", "offset MB", "indexed ms",
                "from start ms", "ratio");
    // Events by where they lie in the file (the model orders them by track and time).
    std::vector<std::pair<uint64_t, uint32_t>> byOffset;
    byOffset.reserve(model.events().size());
    for (uint32_t i = 0; i < model.events().size(); ++i)
        byOffset.emplace_back(model.sourceOffset(EventId{i}), i);
    std::sort(byOffset.begin(), byOffset.end());
    for (const double position : {0.1, 0.5, 0.9, 1.0}) {
        const size_t rank =
            std::min(byOffset.size() - 1, size_t(position * double(byOffset.size())));
        const EventId id{byOffset[rank].second};
        const uint64_t offset = model.sourceOffset(id);
        std::vector<double> indexed, fromStart;
        for (int round = 0; round < 5; ++round) {
            auto start = Clock::now();
            const auto args = readArgs(model, id);
            indexed.push_back(millisSince(start));
            if (!args)
                std::fprintf(stderr, "bench_args_seek: no args read back at %.0f %%\n",
                             position * 100);
            start = Clock::now();
            if (readFromStart(path, offset) == 0)
                std::fprintf(stderr, "bench_args_seek: nothing read from the start at %.0f %%\n",
                             position * 100);
            fromStart.push_back(millisSince(start));
        }
        std::printf("%9.0f%% %12.1f %14.2f %16.1f %9.0fx\n", position * 100, double(offset) / 1e6,
                    median(indexed), median(fromStart), median(fromStart) / median(indexed));
    }
    return 0;
}
