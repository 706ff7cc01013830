#include "core/engine/cpu_allocator.h"

#include <array>
#include <atomic>
#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>
#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace kinetoscope::engine::detail::cpu {

namespace {

// Wraps c10's default CPU allocator: the same pointers (data == context, as the default
// hands out), its own deleter so that frees are counted. With no limit set it only counts.
class CountingCpuAllocator final : public c10::Allocator
{
public:
    c10::DataPtr allocate(size_t n) override
    {
        const int64_t limit = m_limit.load();
        if (limit > 0 && m_live.load() + int64_t(n) > limit)
            TORCH_CHECK_WITH(OutOfMemoryError, false, "CPU memory limit: ", n,
                             " bytes more would pass the run's limit of ", limit, " bytes (",
                             m_live.load(), " in use)");
        c10::DataPtr inner = c10::GetDefaultCPUAllocator()->allocate(n);
        void* data = inner.get();
        if (!data)
            return inner;
        // The default allocator's context is its data pointer; keep ours the same.
        (void)inner.release_context();
        {
            Shard& shard = shardOf(data);
            std::lock_guard lock(shard.mutex);
            shard.sizes[data] = n;
        }
        const int64_t live = m_live += int64_t(n);
        int64_t peak = m_peak.load();
        while (live > peak && !m_peak.compare_exchange_weak(peak, live)) {
        }
        return {data, data, &CountingCpuAllocator::free, c10::Device(c10::DeviceType::CPU)};
    }
    c10::DeleterFnPtr raw_deleter() const override { return &CountingCpuAllocator::free; }
    void copy_data(void* dest, const void* src, std::size_t count) const override
    {
        default_copy_data(dest, src, count);
    }

    void setLimit(int64_t bytes) { m_limit = bytes; }
    void resetPeak() { m_peak = m_live.load(); }
    int64_t peak() const { return m_peak.load(); }
    int64_t live() const { return m_live.load(); }

    // Never destroyed: tensors it handed out may be freed during static destruction.
    static CountingCpuAllocator& instance()
    {
        static auto* allocator = new CountingCpuAllocator;
        return *allocator;
    }

private:
    static void free(void* data)
    {
        CountingCpuAllocator& self = instance();
        {
            Shard& shard = self.shardOf(data);
            std::lock_guard lock(shard.mutex);
            const auto it = shard.sizes.find(data);
            if (it != shard.sizes.end()) {
                self.m_live -= int64_t(it->second);
                shard.sizes.erase(it);
            }
        }
        c10::GetDefaultCPUAllocator()->raw_deleter()(data);
    }

    std::atomic<int64_t> m_limit{0};
    std::atomic<int64_t> m_live{0};  // bytes handed out and not yet freed
    std::atomic<int64_t> m_peak{0};  // the most of m_live since the last reset
    // The size of each live allocation, in shards by address, so that the intra-op
    // threads allocating at once rarely wait on one another.
    struct Shard
    {
        std::mutex mutex;
        std::unordered_map<void*, size_t> sizes;
    };
    static constexpr size_t kShards = 16;
    Shard& shardOf(const void* data)
    {
        return m_shards[(reinterpret_cast<uintptr_t>(data) >> 6) % kShards];
    }
    std::array<Shard, kShards> m_shards;
};

std::atomic<bool> g_counting{false};

}  // namespace

void countAllocations()
{
    static std::once_flag installed;
    std::call_once(installed, [] {
        c10::SetCPUAllocator(&CountingCpuAllocator::instance(), /*priority=*/1);
        g_counting = true;
    });
}

void limitMemory(int64_t bytes)
{
    countAllocations();
    CountingCpuAllocator::instance().setLimit(bytes);
}

void resetPeakAllocated()
{
    if (g_counting)
        CountingCpuAllocator::instance().resetPeak();
}

int64_t peakAllocatedBytes()
{
    return g_counting ? CountingCpuAllocator::instance().peak() : -1;
}

int64_t allocatedBytes()
{
    return g_counting ? CountingCpuAllocator::instance().live() : -1;
}

}  // namespace kinetoscope::engine::detail::cpu
