#include "app/cli/end_like_script.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <sys/prctl.h>
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
    // No core dump, nor a crash report of ours where a core handler takes them (a pipe in
    // core_pattern ignores RLIMIT_CORE): the crash was the script's.
    const struct rlimit noCore = {0, 0};
    ::setrlimit(RLIMIT_CORE, &noCore);
    ::prctl(PR_SET_DUMPABLE, 0);
    std::signal(signal, SIG_DFL);
    sigset_t only;
    ::sigemptyset(&only);
    ::sigaddset(&only, signal);
    ::sigprocmask(SIG_UNBLOCK, &only, nullptr);
    std::raise(signal);
}

}  // namespace kinetoscope::cli
