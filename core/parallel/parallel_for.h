#pragma once
// Runs `task(i)` for every i in [0, count) on up to `threads` threads (the calling thread
// is one of them), handing out indices one at a time, so uneven tasks balance. Results
// must be written to per-index slots; combining them in index order afterwards keeps a
// parallel run identical to a serial one (floating-point sums included).
//
// With threads <= 1, or a single task, everything runs on the calling thread, in order.
// The first exception a task throws (std::bad_alloc included) is rethrown here once every
// thread has stopped; the tasks not yet started are not run.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace kinetoscope::parallel {

template <typename Task>
void parallelFor(size_t count, unsigned threads, const Task& task)
{
    if (threads <= 1 || count <= 1) {
        for (size_t i = 0; i < count; ++i)
            task(i);
        return;
    }
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr firstError;
    std::mutex errorMutex;
    auto work = [&] {
        for (;;) {
            if (failed.load(std::memory_order_relaxed))
                return;
            const size_t i = next.fetch_add(1, std::memory_order_relaxed);
            if (i >= count)
                return;
            try {
                task(i);
            } catch (...) {
                const std::lock_guard lock(errorMutex);
                if (!firstError)
                    firstError = std::current_exception();
                failed.store(true, std::memory_order_relaxed);
                return;
            }
        }
    };
    const size_t helpers = std::min<size_t>(threads, count) - 1;
    std::vector<std::jthread> pool;
    pool.reserve(helpers);
    for (size_t t = 0; t < helpers; ++t) {
        try {
            pool.emplace_back(work);
        } catch (const std::system_error&) {
            break;  // no more threads to be had: the ones started (and this one) do the rest
        }
    }
    work();
    pool.clear();  // joins
    if (firstError)
        std::rethrow_exception(firstError);
}

}  // namespace kinetoscope::parallel
