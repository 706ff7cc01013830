#pragma once
// How much of the CPU other processes took while a child ran: the machine's busy time over
// the run (/proc/stat: every core, steal included: a hypervisor's share is taken from us
// too) less the child's own and its waited-for descendants' (wait4's rusage: a script and
// the DataLoader workers it joined) and less this process's (getrusage: the launcher, or
// the app with its views). Work run in this process instead (the engine's lab arms) is
// measured the same way with no child (finishInProcess). A lab that compares runs which
// shared the machine unevenly compares the machine, not the model. Linux; where /proc/stat
// cannot be read, nothing.
#include <chrono>
#include <optional>
#include <sys/resource.h>

namespace kinetoscope::lab {

class OtherProcessesCpu
{
public:
    void start();  // as the child starts
    // As the child is reaped, with its rusage from wait4.
    void finish(const struct rusage& child);
    // When the measured work ran in this process (the engine's lab arms, on its threads):
    // this process's CPU is the work's own.
    void finishInProcess() { finish(rusage{}); }
    // Cores in use by other processes, on average over the run (>= 0); nothing when not
    // measured (no /proc/stat, or a run under half a second: too few clock ticks).
    std::optional<double> cores() const { return m_cores; }

private:
    bool m_started = false;
    unsigned long long m_busyTicks = 0;  // the machine's, at start (USER_HZ ticks, all cores)
    double m_selfSeconds = 0;            // this process's user + system CPU, at start
    std::chrono::steady_clock::time_point m_at;
    std::optional<double> m_cores;
};

}  // namespace kinetoscope::lab
