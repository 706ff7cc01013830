#include "app/cli/end_like_script.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <sys/resource.h>

namespace kinetoscope::cli {

namespace {
std::atomic<int> g_endBy{0};
}

void endBySignal(int signal)
{
    g_endBy = signal;
}

void endAsRecorded()
{
    const int signal = g_endBy.exchange(0);
    if (signal <= 0)
        return;
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    const struct rlimit noCore = {0, 0};
    ::setrlimit(RLIMIT_CORE, &noCore);
    std::signal(signal, SIG_DFL);
    sigset_t only;
    ::sigemptyset(&only);
    ::sigaddset(&only, signal);
    ::sigprocmask(SIG_UNBLOCK, &only, nullptr);
    std::raise(signal);
}

}  // namespace kinetoscope::cli
