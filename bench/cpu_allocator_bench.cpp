// What the engine's counting CPU allocator (core/engine/cpu_allocator.h) costs a CPU
// training loop: samples/s of the bare loop (runBareLoop) with c10's default allocator,
// then with the counter installed, in one process. The counter cannot be taken out once
// in, so the two phases cannot alternate: a warm-up run comes first, and each phase
// reports its median. --control runs the second phase without installing the counter:
// the ratio it prints is then the order's own bias, the noise floor of the first.
//
//   bench_cpu_allocator [--control] [--model mlp|cnn|transformer] [--rounds N] [--steps N] ...
#include "bench/engine_bench_support.h"
#include "core/engine/cpu_allocator.h"
#include "core/engine/lab_runner.h"

#include <cstdio>
#include <string>
#include <vector>

using namespace kinetoscope;
using bench::median;

namespace {

std::vector<double> measure(const engine::RunConfig& config, int rounds, const char* phase)
{
    std::vector<double> samplesPerSecond;
    for (int round = 0; round < rounds; ++round) {
        samplesPerSecond.push_back(engine::runBareLoop(config));
        std::printf("%s, round %d: %.1f samples/s\n", phase, round + 1, samplesPerSecond.back());
    }
    return samplesPerSecond;
}

}  // namespace

int main(int argc, char** argv)
{
    engine::RunConfig config;
    config.model = "mlp";
    config.device = "cpu";
    config.steps = 60;
    config.warmup = 5;
    config.batchSize = 128;
    int rounds = 5;
    bool control = false;
    std::string error;
    if (!bench::parseEngineBenchArgs(argc, argv, config, rounds, {{"--control", &control}},
                                     error)) {
        std::fprintf(stderr, "bench_cpu_allocator: %s\n", error.c_str());
        return 2;
    }
    try {
        engine::runBareLoop(config);  // warm-up: libraries loaded, caches filled
        const double plain = median(measure(config, rounds, "default allocator"));
        if (!control)
            engine::detail::cpu::countAllocations();
        const char* second = control ? "default allocator again" : "counting allocator";
        const double counted = median(measure(config, rounds, second));
        std::printf("%s on the CPU, batch %lld, %lld steps x %d rounds\n", config.model.c_str(),
                    static_cast<long long>(config.batchSize), static_cast<long long>(config.steps),
                    rounds);
        std::printf("median, default allocator:  %10.1f samples/s\n", plain);
        std::printf("median, %s: %10.1f samples/s\n", second, counted);
        std::printf("second / first phase:       %10.4f  (cost %+.2f %%)\n", counted / plain,
                    (1.0 - counted / plain) * 100.0);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_cpu_allocator: %s\n", e.what());
        return 2;
    }
    return 0;
}
