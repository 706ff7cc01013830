#pragma once
// What a lab run is asked to do: model, data, loader knobs, which measurements.
// Torch-free, shared by the CLI, the GUI and the engine process.
#include <cstdint>
#include <string>
#include <vector>

namespace kinetoscope::lab {

struct RunConfig
{
    // mlp | cnn | transformer, or the path of a TorchScript file (torch.jit.save).
    std::string model = "mlp";
    // synthetic | mnist | cifar10 | tensors; the last three read `dataPath`.
    std::string dataset = "synthetic";
    std::string dataPath;         // mnist/cifar10: a folder; tensors: a torch.save file
    std::string device = "auto";  // auto | cpu | cuda
    // train, or inference: eval mode without autograd, each batch's forward timed
    // (CUDA events on a GPU, the steady clock on the CPU).
    std::string mode = "train";
    int64_t batchSize = 64;
    int64_t steps = 20;  // measured steps per arm
    int64_t warmup = 3;  // steps before measuring, always
    // Loader knobs, as torch.utils.data.DataLoader's.
    int64_t workers = 0;   // loader threads; 0 = load in the training thread
    int64_t prefetch = 2;  // batches queued per worker
    bool pinMemory = false;
    bool nonBlocking = false;
    bool shuffle = true;   // a new permutation per epoch (finite datasets)
    bool dropLast = true;  // drop an epoch's last, partial batch
    uint64_t seed = 0;
    // Model size knobs.
    int64_t inputFeatures = 256;   // mlp on synthetic data
    int64_t hidden = 512;          // mlp width, transformer model width
    int64_t layers = 4;            // mlp/transformer layers, cnn blocks
    int64_t heads = 4;             // transformer attention heads
    int64_t sequenceLength = 128;  // transformer on synthetic tokens
    int64_t vocabulary = 1000;     // transformer on synthetic tokens
    int64_t classes = 10;
    int64_t imageSize = 32;  // cnn on synthetic images: 32 or 224
    // Activation checkpointing of the built-in models while training: every N-th block
    // keeps only its input and is run again in backward (0: off). The batch-size sweep
    // then runs each size without and with it.
    int64_t checkpointEvery = 0;
    // Synthetic samples for a TorchScript model: one sample's shape (float32).
    std::vector<int64_t> inputShape;
    // Per-sample CPU work and I/O latency (microseconds), on any dataset: heavy
    // transforms and slow storage.
    int64_t sampleCpuUs = 0;
    int64_t sampleIoUs = 0;
    // Measurements.
    bool lab = false;      // fp32, bf16 autocast, bf16 + CUDA graph
    bool split = false;    // DataLoader-vs-compute
    bool profile = false;  // a Kineto profiler window, writes trace.json
    // The CUDA caching allocator's history from the first arm's start, written as a memory
    // snapshot (memory_snapshot.pickle) beside the session; a GPU run only.
    bool memorySnapshot = false;
    std::vector<int64_t> sweepWorkers;     // samples/s against the loader's worker count
    std::vector<int64_t> sweepBatchSizes;  // ... and against the batch size
    // Allocations past this many MiB fail as out of memory (0: no limit): counted by the
    // engine's CPU allocator, or the CUDA caching allocator's share of the device.
    int64_t memoryLimitMb = 0;
    bool liveSamples = true;    // CPU/GPU/memory samples while it runs
    int samplesPerSecond = 20;  // sampler rate (10-20 Hz)
    std::string outDir = "kinetoscope-run";
    // Fault injection for tests: the loss becomes NaN at this step of the first arm (-1: never),
    // and the named arm fails as out of memory does (c10::OutOfMemoryError, empty: never).
    int64_t poisonLossAtStep = -1;
    std::string outOfMemoryInArm;
    // Tests: each measured forward sleeps these microseconds, in turn (a known latency
    // distribution).
    std::vector<int64_t> plantedLatencyUs;
};

}  // namespace kinetoscope::lab
