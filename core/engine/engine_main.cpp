// kinetoscope-engine: one lab run, started by the app or `kinetoscope run` as a child
// process. The run's options come on the command line (core/lab/run_options.h); what it
// measures goes out on standard output as the line protocol of core/lab/engine_protocol.h;
// a "cancel" line on standard input stops it after the step in flight (if the app dies,
// the kernel sends the engine SIGTERM: the app sets PR_SET_PDEATHSIG). Anything else that writes to
// standard output (torch, Kineto) is sent to standard error instead, so the protocol stream holds
// messages only.
#include "core/engine/lab_runner.h"
#include "core/lab/engine_protocol.h"
#include "core/lab/run_options.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <unistd.h>

namespace {

using namespace kinetoscope;

// Messages come from the training thread and the sampler's thread: one line at a time.
class MessageWriter
{
public:
    explicit MessageWriter(int fd) : m_fd(fd) {}

    void write(const lab::EngineMessage& message)
    {
        const std::string line = lab::encodeMessage(message);
        std::lock_guard lock(m_mutex);
        size_t done = 0;
        while (m_open && done < line.size()) {
            const ssize_t n = ::write(m_fd, line.data() + done, line.size() - done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                m_open =
                    false;  // the app is gone (it stops the engine itself): never half a line more
            else
                done += size_t(n);
        }
    }

private:
    int m_fd;
    bool m_open = true;
    std::mutex m_mutex;
};

lab::EngineMessage message(lab::MessageType type)
{
    lab::EngineMessage m;
    m.type = type;
    return m;
}

}  // namespace

int main(int argc, char** argv)
{
    const std::vector<std::string> args(argv + 1, argv + argc);
    for (const std::string& arg : args)
        if (arg == "--help" || arg == "-h") {
            std::cout
                << "usage: kinetoscope-engine [options] --out DIR\n"
                   "One lab run; its measurements as newline-delimited JSON on standard output\n"
                   "(docs/engine.md). Started by kinetoscope; run it by hand to see the stream.\n\n"
                << lab::kRunOptionsHelp;
            return 0;
        }
    // The protocol keeps the real standard output; file descriptor 1 becomes standard error.
    const int protocolFd =
        ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);  // not inherited by anything it starts
    if (protocolFd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        std::perror("kinetoscope-engine");
        return 2;
    }
    MessageWriter writer(protocolFd);
    lab::EngineMessage hello = message(lab::MessageType::Hello);
    hello.pid = int64_t(::getpid());
    writer.write(hello);

    lab::RunConfig config;
    std::string error;
    if (!lab::parseRunOptions(args, config, error)) {
        lab::EngineMessage done = message(lab::MessageType::Done);
        done.error = "kinetoscope-engine: " + error;
        writer.write(done);
        return 2;
    }

    // Cancel: a "cancel" line, with who asked for it. The input's end is not one (a run by
    // hand may have none). Who is written before the flag is set, and read after it is seen.
    static std::atomic<bool> cancel{false};
    static std::string cancelledBy;
    std::thread([] {
        std::string line;
        while (std::getline(std::cin, line)) {
            std::string ignored;
            const auto m = lab::decodeMessage(line, ignored);
            if (m && m->type == lab::MessageType::Cancel) {
                cancelledBy = m->by;
                cancel = true;
                return;
            }
        }
    }).detach();

    // Each callback becomes one message: `fill` sets its fields.
    auto send = [&writer](lab::MessageType type, const auto& fill) {
        lab::EngineMessage m = message(type);
        fill(m);
        writer.write(m);
    };
    lab::RunCallbacks callbacks;
    callbacks.cancel = &cancel;
    callbacks.cancelledBy = [] { return cancel ? cancelledBy : std::string(); };
    callbacks.progress = [&](const lab::RunProgress& progress) {
        send(lab::MessageType::Progress, [&](lab::EngineMessage& m) { m.progress = progress; });
    };
    callbacks.step = [&](const session::StepTiming& step) {
        send(lab::MessageType::Step, [&](lab::EngineMessage& m) { m.step = step; });
    };
    callbacks.sample = [&](const session::LiveSample& sample) {
        send(lab::MessageType::Sample, [&](lab::EngineMessage& m) { m.sample = sample; });
    };
    callbacks.arm = [&](const session::LabArm& arm) {
        send(lab::MessageType::Arm, [&](lab::EngineMessage& m) { m.arm = arm; });
    };
    callbacks.sweepPoint = [&](const session::SweepPoint& point) {
        send(lab::MessageType::SweepPoint, [&](lab::EngineMessage& m) { m.sweepPoint = point; });
    };
    callbacks.memory = [&](const session::MemoryTriage& memory) {
        send(lab::MessageType::Memory, [&](lab::EngineMessage& m) { m.memory = memory; });
    };
    callbacks.started = [&](const session::Session& header, const std::string& sessionPath) {
        send(lab::MessageType::Started, [&](lab::EngineMessage& m) {
            m.header.config = header.config;
            m.header.environment = header.environment;
            m.sessionPath = sessionPath;
        });
    };
    callbacks.saved = [&](const std::string& sessionPath) {
        send(lab::MessageType::Saved, [&](lab::EngineMessage& m) { m.sessionPath = sessionPath; });
    };

    const lab::RunResult result = engine::runLab(config, callbacks);
    lab::EngineMessage done = message(lab::MessageType::Done);
    done.ok = result.ok;
    done.error = result.error;
    done.sessionPath = result.sessionPath;
    writer.write(done);
    std::fflush(stdout);
    // The input reader may still block in a read: leave without waiting for it.
    std::_Exit(result.ok ? 0 : 1);
}
