#pragma once
// A memory limit for a lab run, so that the batch-size sweep can find the batch that
// fits: on the CPU the engine's counting allocator (cpu_allocator.h) refuses what would
// pass it; on a GPU the CUDA caching allocator gets that share of the device. Lifted when
// it goes out of scope. Engine-internal.
#include <cstdint>

namespace kinetoscope::engine::detail {

class MemoryLimit
{
public:
    // bytes <= 0: no limit (nothing is installed).
    MemoryLimit(int64_t bytes, bool cuda);
    ~MemoryLimit();  // lifts the limit
    MemoryLimit(const MemoryLimit&) = delete;
    MemoryLimit& operator=(const MemoryLimit&) = delete;

private:
    bool m_cpu = false;
    bool m_cuda = false;
};

}  // namespace kinetoscope::engine::detail
