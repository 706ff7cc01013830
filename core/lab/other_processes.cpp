#include "core/lab/other_processes.h"

#include "core/lab/live_sampler.h"

#include <algorithm>
#include <unistd.h>

namespace kinetoscope::lab {

namespace {

double seconds(const timeval& t)
{
    return double(t.tv_sec) + double(t.tv_usec) / 1e6;
}

double cpuSeconds(const struct rusage& usage)
{
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double selfCpuSeconds()
{
    struct rusage self
    {
    };
    return ::getrusage(RUSAGE_SELF, &self) == 0 ? cpuSeconds(self) : 0.0;
}

}  // namespace

void OtherProcessesCpu::start()
{
    unsigned long long total = 0;
    m_started = readMachineCpuTicks(m_busyTicks, total);
    m_selfSeconds = selfCpuSeconds();
    m_at = std::chrono::steady_clock::now();
    m_cores.reset();
}

void OtherProcessesCpu::finish(const struct rusage& child)
{
    unsigned long long busy = 0, total = 0;
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_at).count();
    if (!m_started || !readMachineCpuTicks(busy, total) || busy < m_busyTicks || wall < 0.5)
        return;
    const long ticksPerSecond = ::sysconf(_SC_CLK_TCK);
    if (ticksPerSecond <= 0)
        return;
    const double machine = double(busy - m_busyTicks) / double(ticksPerSecond);
    const double ours = cpuSeconds(child) + (selfCpuSeconds() - m_selfSeconds);
    // Ticks are counted per core at USER_HZ and rusage to the microsecond: a small negative
    // remainder is rounding, not a process.
    m_cores = std::max(0.0, machine - ours) / wall;
}

}  // namespace kinetoscope::lab
