#include "core/parallel/thread_count.h"

#include <algorithm>
#include <sched.h>
#include <thread>

namespace kinetoscope::parallel {

unsigned availableCores()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        const int count = CPU_COUNT(&set);
        if (count > 0)
            return static_cast<unsigned>(count);
    }
    return std::max(1u, std::thread::hardware_concurrency());
}

unsigned resolveThreads(unsigned requested)
{
    return requested == 0 ? availableCores() : requested;
}

unsigned shareOf(unsigned total, size_t parts)
{
    const unsigned threads = resolveThreads(total);
    if (parts <= 1)
        return threads;
    return std::max(1u, static_cast<unsigned>(threads / parts));
}

}  // namespace kinetoscope::parallel
