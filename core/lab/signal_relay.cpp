#include "core/lab/signal_relay.h"

#include <ctime>
#include <fcntl.h>
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
    m_childRead = ::fcntl(ends[0], F_DUPFD_CLOEXEC, 3);
    if (m_childRead < 0) {
        ::close(ends[0]);
        ::close(ends[1]);
        return;
    }
    m_read = ends[0];
    m_write = ends[1];
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
        } else if (now - since >= window) {
            pending = 0;
            if (script > 0)
                ::kill(script, signal);
        }
    }
}

}  // namespace kinetoscope::lab
