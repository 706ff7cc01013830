#include "core/engine/memory_limit.h"

#include "core/engine/cpu_allocator.h"
#include "core/engine/cuda_support.h"

namespace kinetoscope::engine::detail {

MemoryLimit::MemoryLimit(int64_t bytes, bool cuda)
{
    if (bytes <= 0)
        return;
    if (cuda) {
        cuda::limitMemory(bytes);
        m_cuda = true;
        return;
    }
    cpu::limitMemory(bytes);
    m_cpu = true;
}

MemoryLimit::~MemoryLimit()
{
    if (m_cpu)
        cpu::limitMemory(0);
    if (m_cuda)
        cuda::limitMemory(0);
}

}  // namespace kinetoscope::engine::detail
