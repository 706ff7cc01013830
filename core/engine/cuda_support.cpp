// CUDA-only parts of the engine. KINETOSCOPE_ENGINE_CUDA is set by CMake when torch's
// CUDA libraries are present; without them every function reports "not available".
#include "core/engine/cuda_support.h"

#include "core/engine/engine_internal.h"
#include "core/session/atomic_file.h"

#include <ATen/autocast_mode.h>

#if KINETOSCOPE_ENGINE_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/csrc/cuda/memory_snapshot.h>
#include <torch/cuda.h>
#endif

#include <algorithm>
#include <vector>

namespace kinetoscope::engine::detail::cuda {

#if KINETOSCOPE_ENGINE_CUDA

namespace {

bool usable()
{
    return torch::cuda::is_available();
}

// The caching allocator is set up with torch's CUDA state, on the first CUDA tensor:
// before it, setting a memory fraction or reading its statistics fails with "Allocator
// not initialized for device" (torch.cuda.set_per_process_memory_fraction initialises
// first, as this does). A memory limit is set before the model is on the device.
bool allocatorReady()
{
    if (!usable())
        return false;
    at::globalContext().lazyInitDevice(c10::DeviceType::CUDA);
    return true;
}

c10::DeviceIndex current()
{
    return c10::cuda::current_device();
}

}  // namespace

bool built()
{
    return true;
}

std::string deviceName()
{
    return usable() ? std::string(at::cuda::getCurrentDeviceProperties()->name) : std::string();
}

std::string pciBusId()
{
    if (!usable())
        return {};
    char id[32] = {};
    if (cudaDeviceGetPCIBusId(id, sizeof id, current()) != cudaSuccess)
        return {};
    return id;
}

int64_t totalMemoryBytes()
{
    return usable() ? int64_t(at::cuda::getCurrentDeviceProperties()->totalGlobalMem) : -1;
}

void resetPeakAllocated()
{
    if (allocatorReady())
        c10::cuda::CUDACachingAllocator::resetPeakStats(current());
}

void releaseCachedMemory()
{
    if (usable())
        c10::cuda::CUDACachingAllocator::emptyCache();
}

void limitMemory(int64_t bytes)
{
    if (!allocatorReady())
        return;
    const c10::DeviceIndex device = current();
    double fraction = 1.0;
    if (bytes > 0) {
        size_t freeBytes = 0, totalBytes = 0;
        if (cudaMemGetInfo(&freeBytes, &totalBytes) == cudaSuccess && totalBytes > 0)
            fraction = std::clamp(double(bytes) / double(totalBytes), 0.0, 1.0);
    }
    c10::cuda::CUDACachingAllocator::setMemoryFraction(fraction, device);
}

bool recordMemoryHistory(size_t maxEntries)
{
    if (!allocatorReady())
        return false;
    // Every allocation, free and segment event with its C++ stack: a C++ process has no
    // Python frames; symbols are resolved once, when the snapshot is written. The C++ API
    // takes stacks "python" (Python frames only) or "all" (Python and C++): there is no
    // "cpp", unlike torch.cuda.memory._record_memory_history (torch 2.11 refuses it).
    torch::cuda::_record_memory_history(std::string("all"), std::string("all"), "all", maxEntries);
    return true;
}

bool writeMemorySnapshot(const std::string& path, std::string& error)
{
    if (!allocatorReady()) {
        error = "no CUDA device";
        return false;
    }
    const std::string pickled = torch::cuda::_memory_snapshot_pickled();
    torch::cuda::_record_memory_history(std::nullopt);  // stop recording
    return session::writeFileAtomically(path, pickled, error);
}

int64_t peakAllocatedBytes()
{
    if (!allocatorReady())
        return -1;
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(current());
    return stats.allocated_bytes[size_t(c10::CachingAllocator::StatType::AGGREGATE)].peak;
}

int64_t peakReservedBytes()
{
    if (!allocatorReady())
        return -1;
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(current());
    return stats.reserved_bytes[size_t(c10::CachingAllocator::StatType::AGGREGATE)].peak;
}

AllocatorBytes allocatorBytes()
{
    if (!allocatorReady())
        return {};
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(current());
    const size_t all = size_t(c10::CachingAllocator::StatType::AGGREGATE);
    return {stats.allocated_bytes[all].current, stats.reserved_bytes[all].current};
}

struct PhaseEvents::Impl
{
    std::vector<at::cuda::CUDAEvent> events;
};

PhaseEvents::PhaseEvents(size_t marks) : m_impl(std::make_unique<Impl>())
{
    for (size_t i = 0; i < marks; ++i)
        m_impl->events.emplace_back(cudaEventDefault);  // timing enabled
}

PhaseEvents::~PhaseEvents() = default;

void PhaseEvents::mark(size_t index)
{
    m_impl->events.at(index).record();
}

double PhaseEvents::elapsedMs(size_t from, size_t to)
{
    m_impl->events.at(to).synchronize();
    return double(m_impl->events.at(from).elapsed_time(m_impl->events.at(to)));
}

struct GraphedStep::Impl
{
    at::cuda::CUDAGraph graph;
    torch::Tensor loss;
};

GraphedStep::GraphedStep(const std::function<torch::Tensor()>& step, int warmupCalls)
    : m_impl(std::make_unique<Impl>())
{
    const bool cache = at::autocast::is_autocast_cache_enabled();
    at::autocast::set_autocast_cache_enabled(false);
    try {
        // Capture must not run on the default stream; warm-up on the same side stream
        // lets cuBLAS and the allocator settle before capture.
        torch::cuda::synchronize();
        c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool();
        {
            c10::cuda::CUDAStreamGuard guard(side);
            for (int i = 0; i < warmupCalls; ++i)
                step();
            side.synchronize();
            // Thread-local capture: the loader's worker threads keep pinning host memory
            // (cudaHostAlloc) while this thread captures, which global mode would forbid
            // and which would invalidate the capture. Kernels that autograd's device
            // thread launches into the capturing stream are captured either way.
            m_impl->graph.capture_begin({0, 0}, cudaStreamCaptureModeThreadLocal);
            m_impl->loss = step();
            m_impl->graph.capture_end();
        }
        torch::cuda::synchronize();
    } catch (...) {
        at::autocast::set_autocast_cache_enabled(cache);
        throw;
    }
    at::autocast::set_autocast_cache_enabled(cache);
}

GraphedStep::~GraphedStep() = default;

torch::Tensor GraphedStep::replay()
{
    m_impl->graph.replay();
    return m_impl->loss;
}

#else  // torch without CUDA

bool built()
{
    return false;
}
std::string deviceName()
{
    return {};
}
std::string pciBusId()
{
    return {};
}
int64_t totalMemoryBytes()
{
    return -1;
}
void resetPeakAllocated() {}
void releaseCachedMemory() {}
void limitMemory(int64_t) {}
bool recordMemoryHistory(size_t)
{
    return false;
}
bool writeMemorySnapshot(const std::string&, std::string& error)
{
    error = "this build's torch has no CUDA libraries";
    return false;
}
int64_t peakAllocatedBytes()
{
    return -1;
}
int64_t peakReservedBytes()
{
    return -1;
}
AllocatorBytes allocatorBytes()
{
    return {};
}

struct PhaseEvents::Impl
{
};
PhaseEvents::PhaseEvents(size_t) : m_impl(std::make_unique<Impl>()) {}
PhaseEvents::~PhaseEvents() = default;
void PhaseEvents::mark(size_t) {}
double PhaseEvents::elapsedMs(size_t, size_t)
{
    return 0.0;
}

struct GraphedStep::Impl
{
};
GraphedStep::GraphedStep(const std::function<torch::Tensor()>&, int)
{
    throw UserError("this build's torch has no CUDA libraries: the CUDA-graph arm cannot run");
}
GraphedStep::~GraphedStep() = default;
torch::Tensor GraphedStep::replay()
{
    return {};
}

#endif

}  // namespace kinetoscope::engine::detail::cuda
