#pragma once
// Ctrl-C while a lab runs (`kinetoscope run`, `kinetoscope profile --lab`): cancel it (the
// run in flight saves and stops after its step) instead of dying with it.
#include <atomic>
#include <csignal>

namespace kinetoscope::cli {

// SIGINT sets flag() for as long as this object lives; the previous handler comes back after.
class InterruptCancels
{
public:
    InterruptCancels();
    ~InterruptCancels();
    InterruptCancels(const InterruptCancels&) = delete;
    InterruptCancels& operator=(const InterruptCancels&) = delete;

    // Set by the handler; the caller clears it before a run and hands it to the run's cancel.
    static std::atomic<bool>& flag();

private:
    struct sigaction m_previous
    {
    };
};

}  // namespace kinetoscope::cli
