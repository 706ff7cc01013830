#pragma once
// A memory limit for a lab run, so that the batch-size sweep can find the batch that
// fits: on the CPU a counting allocator in front of c10's default one refuses (as
// c10::OutOfMemoryError) any allocation that would take the live bytes it handed out past
// the limit; on a GPU the CUDA caching allocator gets that share of the device. Only
// allocations made while a limit is installed are counted. Engine-internal.
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
