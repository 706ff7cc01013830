#pragma once
// What a lab run is asked to do: model, data, loader knobs, which measurements.
// Torch-free, shared by the CLI, the GUI and the engine.
#include <cstdint>
#include <string>
#include <vector>

namespace kinetoscope::engine {

struct RunConfig
{
    std::string model = "mlp";           // mlp | cnn | transformer | path to a TorchScript file
    std::string dataset = "synthetic";   // synthetic
    std::string device = "auto";         // auto | cpu | cuda
    int64_t batchSize = 64;
    int64_t steps = 20;                  // measured steps per arm
    int64_t warmup = 3;                  // steps before measuring, always
    int64_t workers = 0;                 // loader threads; 0 = load in the training thread
    int64_t prefetch = 2;                // batches queued per worker
    bool pinMemory = false;
    bool nonBlocking = false;
    uint64_t seed = 0;
    // Model size knobs.
    int64_t inputFeatures = 256;
    int64_t hidden = 512;
    int64_t layers = 4;
    int64_t classes = 10;
    int64_t imageSize = 32;              // cnn: 32 or 224
    // Synthetic data knobs: per-sample CPU work and I/O latency (microseconds).
    int64_t sampleCpuUs = 0;
    int64_t sampleIoUs = 0;
    // Measurements.
    bool lab = false;      // fp32, bf16 autocast, bf16 + CUDA graph
    bool split = false;    // DataLoader-vs-compute
    bool profile = false;  // a Kineto profiler window, writes trace.json
    std::vector<int64_t> sweepWorkers;
    std::string outDir = "kinetoscope-run";
    // Fault injection for tests: the loss becomes NaN at this step of the first arm (-1: never).
    int64_t poisonLossAtStep = -1;
};

}  // namespace kinetoscope::engine
