#include "app/cli/interrupt_cancels.h"

namespace kinetoscope::cli {

namespace {

std::atomic<bool> g_interrupted{false};

void onInterrupt(int)
{
    g_interrupted = true;
}

}  // namespace

InterruptCancels::InterruptCancels()
{
    struct sigaction action
    {
    };
    action.sa_handler = onInterrupt;
    ::sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &m_previous);
}

InterruptCancels::~InterruptCancels()
{
    ::sigaction(SIGINT, &m_previous, nullptr);
}

std::atomic<bool>& InterruptCancels::flag()
{
    return g_interrupted;
}

}  // namespace kinetoscope::cli
