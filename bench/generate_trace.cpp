// kinetoscope-gen-trace SIZE OUT [SEED]: writes a synthetic Kineto trace of about SIZE
// bytes (suffixes k, M, G; decimal); another SEED (default 1) writes another run of the
// same shape. OUT ending in .gz is not supported: compress afterwards.
#include "bench/synthetic_trace.h"

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv)
{
    if (argc != 3 && argc != 4) {
        std::fprintf(stderr, "usage: kinetoscope-gen-trace SIZE[k|M|G] OUT.json [SEED]\n");
        return 2;
    }
    char* end = nullptr;
    double size = std::strtod(argv[1], &end);
    const std::string suffix = end ? end : "";
    if (suffix == "k" || suffix == "K")
        size *= 1e3;
    else if (suffix == "M")
        size *= 1e6;
    else if (suffix == "G")
        size *= 1e9;
    else if (!suffix.empty() || size <= 0) {
        std::fprintf(stderr, "kinetoscope-gen-trace: bad size '%s'\n", argv[1]);
        return 2;
    }
    std::FILE* out = std::fopen(argv[2], "wb");
    if (!out) {
        std::perror(argv[2]);
        return 2;
    }
    static char buffer[1 << 20];
    std::setvbuf(out, buffer, _IOFBF, sizeof buffer);
    const uint64_t seed = argc == 4 ? std::strtoull(argv[3], nullptr, 10) : 1;
    const auto stats =
        kinetoscope::bench::writeSyntheticTrace(out, static_cast<uint64_t>(size), seed);
    if (std::fclose(out) != 0) {
        std::perror(argv[2]);
        return 2;
    }
    std::printf("{\"bytes\": %llu, \"events\": %llu, \"steps\": %llu, \"bytes_per_event\": %.1f}\n",
                static_cast<unsigned long long>(stats.bytes),
                static_cast<unsigned long long>(stats.events),
                static_cast<unsigned long long>(stats.steps),
                static_cast<double>(stats.bytes) / static_cast<double>(stats.events));
    return 0;
}
