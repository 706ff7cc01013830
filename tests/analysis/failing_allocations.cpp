#include "tests/analysis/failing_allocations.h"

#include <atomic>
#include <cstdlib>
#include <new>
#include <thread>

// The sanitizers that replace operator new themselves (GCC says so with __SANITIZE_*__,
// clang with __has_feature).
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                         \
    __has_feature(memory_sanitizer)
#define KINETOSCOPE_SANITIZED_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) ||                               \
    defined(KINETOSCOPE_SANITIZED_ALLOCATOR)
#define KINETOSCOPE_FAILING_ALLOCATIONS 0
#else
#define KINETOSCOPE_FAILING_ALLOCATIONS 1
#endif

namespace {

std::atomic<bool> g_active{false};   // a FailingAllocations is alive
std::atomic<bool> g_failing{false};  // ... and it fails allocations past its allowance
std::atomic<int64_t> g_left{0};      // allocations still allowed
std::atomic<int64_t> g_seen{0};
std::atomic<bool> g_failedElsewhere{false};
std::thread::id g_owner;  // the thread that made the FailingAllocations

#if KINETOSCOPE_FAILING_ALLOCATIONS
void* allocate(std::size_t size)
{
    if (g_active.load(std::memory_order_acquire)) {
        g_seen.fetch_add(1, std::memory_order_relaxed);
        if (g_failing.load(std::memory_order_relaxed) &&
            g_left.fetch_sub(1, std::memory_order_relaxed) <= 0) {
            if (std::this_thread::get_id() != g_owner)
                g_failedElsewhere.store(true, std::memory_order_relaxed);
            throw std::bad_alloc();
        }
    }
    if (void* p = std::malloc(size ? size : 1))
        return p;
    throw std::bad_alloc();
}
#endif

}  // namespace

#if KINETOSCOPE_FAILING_ALLOCATIONS
// Every replaceable form that allocates with the default alignment, and the deletes that
// match them (the standard library's own would free memory they did not allocate).
void* operator new(std::size_t size)
{
    return allocate(size);
}
void* operator new[](std::size_t size)
{
    return allocate(size);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept
{
    try {
        return allocate(size);
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept
{
    try {
        return allocate(size);
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
}
void operator delete(void* p) noexcept
{
    std::free(p);
}
void operator delete[](void* p) noexcept
{
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept
{
    std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept
{
    std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept
{
    std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept
{
    std::free(p);
}
#endif

namespace kinetoscope::test {

FailingAllocations::FailingAllocations(int64_t allowed)
{
    g_owner = std::this_thread::get_id();
    g_seen.store(0, std::memory_order_relaxed);
    g_failedElsewhere.store(false, std::memory_order_relaxed);
    g_left.store(allowed, std::memory_order_relaxed);
    g_failing.store(allowed >= 0, std::memory_order_relaxed);
    g_active.store(true, std::memory_order_release);
}

FailingAllocations::~FailingAllocations()
{
    g_active.store(false, std::memory_order_release);
    g_failing.store(false, std::memory_order_relaxed);
}

bool FailingAllocations::supported()
{
    return KINETOSCOPE_FAILING_ALLOCATIONS;
}

int64_t FailingAllocations::allocations() const
{
    return g_seen.load(std::memory_order_relaxed);
}

bool FailingAllocations::failedOnOtherThread() const
{
    return g_failedElsewhere.load(std::memory_order_relaxed);
}

}  // namespace kinetoscope::test
