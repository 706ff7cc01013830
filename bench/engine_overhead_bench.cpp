// The engine's own overhead: samples/s of a lab arm with everything Kinetoscope adds
// (per-phase timing, the loss read-back, RECORD_USER_SCOPE annotations, the 20 Hz live
// sampler, per-step callbacks) versus the same model, data and optimizer in a bare loop
// (runBareLoop), alternating which goes first so that drift hits both alike. Reports medians and
// their ratio; the target is at most 2 % apart.
//
//   bench_engine_overhead [--model mlp|cnn|transformer] [--device cpu|cuda] [--rounds N]
//                         [--steps N] [--batch-size N]
#include "bench/engine_bench_support.h"
#include "core/engine/lab_runner.h"

#include <cstdio>
#include <string>
#include <vector>

using namespace kinetoscope;
using bench::median;

int main(int argc, char** argv)
{
    engine::RunConfig config;
    config.model = "mlp";
    config.device = "cpu";
    config.steps = 60;
    config.warmup = 5;
    config.batchSize = 128;
    config.outDir = "bench/out/engine-overhead";
    int rounds = 7;
    std::string error;
    if (!bench::parseEngineBenchArgs(argc, argv, config, rounds, {}, error)) {
        std::fprintf(stderr, "bench_engine_overhead: %s\n", error.c_str());
        return 2;
    }
    engine::RunCallbacks callbacks;
    int stepsSeen = 0;
    callbacks.step = [&](const session::StepTiming&) { ++stepsSeen; };  // as a GUI would subscribe
    std::vector<double> bare, instrumented;
    try {
        for (int round = 0; round < rounds; ++round) {
            // Alternate which goes first, so that warm caches or drift favour neither.
            if (round % 2 == 0)
                bare.push_back(engine::runBareLoop(config));
            const engine::RunResult r = engine::runLab(config, callbacks);
            if (!r.ok) {
                std::fprintf(stderr, "bench_engine_overhead: %s\n", r.error.c_str());
                return 2;
            }
            instrumented.push_back(r.session.lab.at(0).samplesPerSecond);
            if (round % 2 == 1)
                bare.push_back(engine::runBareLoop(config));
            std::printf(
                "round %d: bare %.1f samples/s, instrumented %.1f samples/s (%zu live samples)\n",
                round + 1, bare.back(), instrumented.back(), r.session.samples.size());
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_engine_overhead: %s\n", e.what());
        return 2;
    }
    const double b = median(bare), k = median(instrumented);
    std::printf("%s on %s, batch %lld, %lld steps x %d rounds\n", config.model.c_str(),
                config.device.c_str(), static_cast<long long>(config.batchSize),
                static_cast<long long>(config.steps), rounds);
    std::printf("median bare loop:    %10.1f samples/s\n", b);
    std::printf("median instrumented: %10.1f samples/s\n", k);
    std::printf("instrumented / bare: %10.4f  (overhead %+.2f %%)\n", k / b, (1.0 - k / b) * 100.0);
    return 0;
}
