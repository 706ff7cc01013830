#include "core/lab/signal_relay.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

namespace kinetoscope::lab {

std::atomic<SignalRelay*> SignalRelay::s_active{nullptr};

namespace {

int64_t monotonicNs()  // (clock_gettime is async-signal-safe)
{
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    return int64_t(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

}  // namespace

SignalRelay::SignalRelay()
{
    int ends[2] = {-1, -1};
    // Non-blocking: the interpreter requires it of a wakeup fd, and a full pipe (signals
    // never read) then drops bytes rather than blocking the script's handler.
    if (::pipe2(ends, O_CLOEXEC | O_NONBLOCK) != 0)
        return;
    // The child's ends at high numbers: a descriptor the script opens takes the lowest free
    // number, so after a close of everything (os.closerange) its files do not land on the
    // number the interpreter writes signals to (the probe forgets it then: signal_report).
    // At most 4032: the kernel sizes a process's table of descriptors by its highest one.
    rlimit files{};
    const int high = ::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur > 256 &&
                             files.rlim_cur != RLIM_INFINITY
                         ? int(std::min<rlim_t>(files.rlim_cur, 4096)) - 64
                         : 3;
    m_write = ::fcntl(ends[1], F_DUPFD_CLOEXEC, high);
    m_childRead = ::fcntl(ends[0], F_DUPFD_CLOEXEC, high);
    ::close(ends[1]);
    if (m_write < 0 || m_childRead < 0) {
        ::close(ends[0]);
        closeChildEnds();
        return;
    }
    m_read = ends[0];
    s_active = this;
}

SignalRelay::~SignalRelay()
{
    SignalRelay* self = this;
    s_active.compare_exchange_strong(self, nullptr);
    closeChildEnds();
    if (m_read >= 0)
        ::close(m_read);
}

void SignalRelay::closeChildEnds()
{
    for (int* fd : {&m_write, &m_childRead})
        if (*fd >= 0) {
            ::close(*fd);
            *fd = -1;
        }
}

bool SignalRelay::received(int signal)
{
    SignalRelay* relay = s_active.load();
    if (!relay || signal <= 0 || signal >= kSignals)
        return false;
    int64_t none = 0;
    relay->m_pendingSince[size_t(signal)].compare_exchange_strong(none, monotonicNs());
    return true;
}

namespace {

// Whether `script` catches `signal` (SigCgt in /proc/PID/status): only a caught signal can
// be reported through the wakeup fd; one the script leaves to its default action or ignores
// does the same whether it gets it once or twice, and is passed on at once.
bool catches(pid_t script, int signal)
{
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/status", int(script));
    std::FILE* status = std::fopen(path, "re");
    if (!status)
        return true;  // (unknown: wait for its report)
    char line[256];
    unsigned long long caught = ~0ULL;
    while (std::fgets(line, sizeof line, status))
        if (std::strncmp(line, "SigCgt:", 7) == 0) {
            caught = std::strtoull(line + 7, nullptr, 16);
            break;
        }
    std::fclose(status);
    return (caught >> (signal - 1)) & 1ULL;
}

}  // namespace

void SignalRelay::poll(pid_t script, bool scriptEnded)
{
    const int64_t now = monotonicNs();
    unsigned char bytes[256];
    for (ssize_t n; m_read >= 0 && (n = ::read(m_read, bytes, sizeof bytes)) > 0;)
        for (ssize_t i = 0; i < n; ++i)
            if (bytes[i] > 0 && bytes[i] < kSignals)
                m_scriptGot[bytes[i]] = now;
    const int64_t window = std::chrono::nanoseconds(kWindow).count();
    for (int signal = 1; signal < kSignals; ++signal) {
        std::atomic<int64_t>& pending = m_pendingSince[size_t(signal)];
        const int64_t since = pending.load();
        if (since == 0)
            continue;
        const bool scriptGotIt = m_scriptGot[size_t(signal)] >= since - window;
        if (scriptEnded || scriptGotIt) {
            pending = 0;
        } else if (now - since >= window || !catches(script, signal)) {
            pending = 0;
            if (script > 0)
                ::kill(script, signal);
        }
    }
}

std::chrono::milliseconds SignalRelay::waitAtMost(std::chrono::milliseconds most) const
{
    const int64_t now = monotonicNs();
    const int64_t window = std::chrono::nanoseconds(kWindow).count();
    int64_t soonest = std::chrono::nanoseconds(most).count();
    for (const std::atomic<int64_t>& pending : m_pendingSince)
        if (const int64_t since = pending.load(); since != 0)
            soonest = std::min(soonest, std::max<int64_t>(since + window - now, 1'000'000));
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::nanoseconds(soonest));
}

}  // namespace kinetoscope::lab
