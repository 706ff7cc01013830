#include "app/cli/interrupt_cancels.h"

#include "app/cli/end_like_script.h"

#include <cstring>

namespace kinetoscope::cli {

namespace {

// Set from a signal handler: only lock-free atomics are safe there.
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);
std::atomic<bool> g_interrupted{false};
std::atomic<int> g_signal{0};  // the first signal that set g_interrupted

void onSignal(int signal)
{
    int none = 0;
    g_signal.compare_exchange_strong(none, signal);
    g_interrupted = true;
}

}  // namespace

InterruptCancels::InterruptCancels()
{
    g_signal = 0;
    struct sigaction action
    {
    };
    action.sa_handler = onSignal;
    action.sa_flags = SA_RESTART;
    ::sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < kSignals.size(); ++i) {
        ::sigaction(kSignals[i], nullptr, &m_previous[i]);
        if (m_previous[i].sa_handler != SIG_IGN)
            ::sigaction(kSignals[i], &action, nullptr);
    }
}

InterruptCancels::~InterruptCancels()
{
    for (size_t i = 0; i < kSignals.size(); ++i)
        ::sigaction(kSignals[i], &m_previous[i], nullptr);
}

std::atomic<bool>& InterruptCancels::flag()
{
    return g_interrupted;
}

std::string InterruptCancels::cancelledBy()
{
    const int signal = g_signal.load();
    if (signal == 0)
        return {};
    if (signal == SIGINT)
        return "Ctrl-C (SIGINT)";
    const char* abbreviation = ::sigabbrev_np(signal);
    return abbreviation ? std::string("SIG") + abbreviation : "signal " + std::to_string(signal);
}

int InterruptCancels::endByTheSignal()
{
    const int signal = g_signal.load();
    if (signal == 0)  // (a run that says it was cancelled, no signal here: a job's exit 130)
        return 128 + SIGINT;
    endBySignal(signal);
    return 128 + signal;
}

}  // namespace kinetoscope::cli
