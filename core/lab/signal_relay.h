#pragma once
// A signal sent to `kinetoscope profile` reaches the script once. Sent to the launcher
// alone (kill PID, a container's stop, a driver's terminate()), it is passed on; sent to
// the whole process group or to every process of a job (timeout, kill -- -PGID, a
// scheduler's kill), the script has it already and a second copy would run its handler
// twice (a checkpoint saved twice over, a second KeyboardInterrupt inside the first's
// clean-up). The script says what it got: the probe makes the write end of this relay's
// pipe Python's signal wakeup fd (signal.set_wakeup_fd), where the interpreter's C
// handler writes each signal's number as the signal arrives, for every signal the script
// handles in Python. A signal the script did not report within kWindow of this process's
// is passed on then (at once when the script does not catch it: its default action or
// ignoring it is the same done twice); a script that ended meanwhile gets nothing. The
// child's ends are at high descriptor numbers (its own files take the lowest free ones).
// Torch-free; POSIX.
#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <sys/types.h>

namespace kinetoscope::lab {

class SignalRelay
{
public:
    static constexpr std::chrono::milliseconds kWindow{100};

    // Makes the pipe (ok() false when it could not: signals are then passed on at once).
    SignalRelay();
    ~SignalRelay();
    SignalRelay(const SignalRelay&) = delete;
    SignalRelay& operator=(const SignalRelay&) = delete;

    bool ok() const { return m_read >= 0; }
    // For the child (inherited at these numbers): "WRITE,READ", KINETOSCOPE_PROBE_SIGNALS.
    // The child keeps the read end open too, so that its interpreter's writes never fail
    // once this process is gone (a write error would be reported on the script's stderr).
    int writeEnd() const { return m_write; }
    int readEnd() const { return m_childRead; }
    // Once the child has them: this process keeps only its own read end.
    void closeChildEnds();

    // From a signal handler (async-signal-safe): `signal` reached this process. False when
    // no relay is active (the caller passes it on itself).
    static bool received(int signal);
    // From the run's loop: reads what the script reported and passes on what it did not
    // get; `scriptEnded`: nothing is passed on.
    void poll(pid_t script, bool scriptEnded);
    // How long the run's loop may wait before its next poll(): `most`, or less when a
    // signal's window ends sooner.
    std::chrono::milliseconds waitAtMost(std::chrono::milliseconds most) const;

private:
    static constexpr int kSignals = 65;  // signal numbers 1..64
    static std::atomic<SignalRelay*> s_active;
    int m_read = -1;       // this process's read end
    int m_write = -1;      // the child's write end
    int m_childRead = -1;  // the child's copy of the read end
    // CLOCK_MONOTONIC nanoseconds: when this process got each signal (0: none pending), and
    // when the script's report of it was last read.
    std::array<std::atomic<int64_t>, kSignals> m_pendingSince{};
    std::array<int64_t, kSignals> m_scriptGot{};
};

}  // namespace kinetoscope::lab
