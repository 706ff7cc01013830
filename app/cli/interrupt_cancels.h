#pragma once
// A signal that would end this process while a lab runs (`kinetoscope run`, `kinetoscope
// profile --lab` or `--scaling`): Ctrl-C's SIGINT, timeout's or a scheduler's SIGTERM, a
// closed terminal's SIGHUP, Slurm's `--signal` SIGUSR1... cancels the lab (the run in
// flight saves and stops after its step) instead of ending this process with the run's
// script, in a process group of its own, left running without its launcher.
#include <array>
#include <atomic>
#include <csignal>
#include <string>

namespace kinetoscope::cli {

// The signals set flag() for as long as this object lives; the previous handlers come back
// after. One this process was started with ignored (nohup's SIGHUP) stays ignored.
class InterruptCancels
{
public:
    InterruptCancels();
    ~InterruptCancels();
    InterruptCancels(const InterruptCancels&) = delete;
    InterruptCancels& operator=(const InterruptCancels&) = delete;

    // Set by the handler; the caller clears it before a run and hands it to the run's cancel.
    static std::atomic<bool>& flag();
    // What cancelled the run: "Ctrl-C (SIGINT)", "SIGTERM"...; empty while none came.
    static std::string cancelledBy();
    // This process is to end by the signal that cancelled the run, once its report is out
    // (end_like_script.h), as a program that cleans up after Ctrl-C does: a shell loop
    // around it stops. Returns 128 + the signal, the status a shell shows for it, for main to
    // return should raising it not end the process.
    static int endByTheSignal();

private:
    static constexpr std::array<int, 10> kSignals{SIGINT,  SIGQUIT, SIGTERM, SIGHUP,    SIGUSR1,
                                                  SIGUSR2, SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF};
    std::array<struct sigaction, kSignals.size()> m_previous{};
};

}  // namespace kinetoscope::cli
