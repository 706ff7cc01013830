#pragma once
// What the engine does only on a CUDA device: phase timing with CUDA events, the caching
// allocator's figures, and a whole training step captured as one CUDA graph (the C++
// counterpart of torch.compile(mode="reduce-overhead"), which has no C++ API). In a
// build whose torch has no CUDA libraries these report "not available".
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <torch/types.h>

namespace kinetoscope::engine::detail::cuda {

bool built();                // this build links torch's CUDA libraries
std::string deviceName();    // of the current device; empty without CUDA
std::string pciBusId();      // "0000:17:00.0", to find the same GPU in NVML
int64_t totalMemoryBytes();  // of the current device; -1 without CUDA
void resetPeakAllocated();
void releaseCachedMemory();    // after an out-of-memory: give cached blocks back to the driver
int64_t peakAllocatedBytes();  // since resetPeakAllocated; -1 without CUDA
// The most the caching allocator held from the driver since resetPeakAllocated (it resets
// both peaks): blocks cached before the reset count too; -1 without CUDA.
int64_t peakReservedBytes();
// The caching allocator may hold at most `bytes` of the device (0: the whole device);
// past it an allocation fails as out of memory.
void limitMemory(int64_t bytes);

// The caching allocator's history (allocations, frees and segments, each with its C++
// stack) from now on, the newest `maxEntries` kept; false without CUDA.
bool recordMemoryHistory(size_t maxEntries);
// The history and the allocator's state as torch.cuda.memory._dump_snapshot writes them
// (a pickle), to `path` whole or not at all; false + a one-line reason.
bool writeMemorySnapshot(const std::string& path, std::string& error);

struct AllocatorBytes
{
    int64_t allocated = -1;  // bytes in live tensors
    int64_t reserved = -1;   // bytes the caching allocator holds from the driver
};
AllocatorBytes allocatorBytes();

// Marks recorded on the current stream between a step's phases; read after the step
// has finished (the loss was read back), so timing adds no synchronisation.
class PhaseEvents
{
public:
    explicit PhaseEvents(size_t marks);
    ~PhaseEvents();
    PhaseEvents(const PhaseEvents&) = delete;
    PhaseEvents& operator=(const PhaseEvents&) = delete;
    void mark(size_t index);
    double elapsedMs(size_t from, size_t to);  // waits for mark `to`

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// Runs `step` (forward, backward, optimizer step on fixed input tensors, returning the
// loss) a few times on a side stream, then captures one call into a CUDA graph; replay()
// reruns the captured kernels and returns the same loss tensor, updated. Autocast's
// weight cache is off during capture, as torch.cuda.graph does.
class GraphedStep
{
public:
    GraphedStep(const std::function<torch::Tensor()>& step, int warmupCalls);
    ~GraphedStep();
    GraphedStep(const GraphedStep&) = delete;
    GraphedStep& operator=(const GraphedStep&) = delete;
    torch::Tensor replay();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace kinetoscope::engine::detail::cuda
