#include "core/lab/engine_process.h"

#include "core/format/format.h"
#include "core/lab/child_process.h"
#include "core/lab/engine_protocol.h"
#include "core/lab/run_options.h"
#include "core/trace/printable.h"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace kinetoscope::lab {

namespace {

using Clock = std::chrono::steady_clock;

// After the engine has exited, how long its outputs are read for what is left in them: a
// process it started may hold them open for ever.
constexpr auto kDrainAfterExit = std::chrono::milliseconds(1000);

bool isExecutableFile(const std::string& path)
{
    std::error_code ec;
    return !path.empty() && std::filesystem::is_regular_file(path, ec) &&
           ::access(path.c_str(), X_OK) == 0;
}

// What the app heard from the engine: enough to say what it was doing when it stopped,
// and to save what it measured since its last save if it dies.
struct Transcript
{
    bool hello = false;
    std::optional<EngineMessage> done;
    bool started = false;
    session::Session header;  // config and environment
    std::string sessionPath;
    std::string savedPath;      // the last complete save
    std::string stage;          // of the last progress message, until its arm or point ends
    std::string finishedStage;  // the last arm or sweep point that ended
    int64_t stepsInStage = 0;   // progress messages of that stage (one as each step starts)
    // Since the last save (the saved file holds everything before).
    std::vector<session::StepTiming> steps;
    std::vector<session::LabArm> arms;
    std::vector<session::SweepPoint> sweep;
    std::optional<session::MemoryTriage> memory;
    std::vector<session::LiveSample> samples;
    std::string protocolError;  // the first line that was not a message, or a version mismatch
};

void receive(const EngineMessage& m, Transcript& t, const RunCallbacks& callbacks)
{
    if (!t.protocolError.empty())
        return;  // an engine that does not speak this protocol is stopped, not listened to
    if (!t.hello && m.type != MessageType::Hello) {
        t.protocolError =
            "the engine did not introduce itself (no \"hello\" first): is it kinetoscope-engine?";
        return;
    }
    switch (m.type) {
    case MessageType::Hello:
        t.hello = true;
        if (m.protocol != kProtocolVersion && t.protocolError.empty())
            t.protocolError = "kinetoscope-engine speaks protocol " + std::to_string(m.protocol) +
                              ", this kinetoscope reads " + std::to_string(kProtocolVersion) +
                              " (install the two from one build)";
        break;
    case MessageType::Started:
        t.started = true;
        t.header = m.header;
        t.sessionPath = m.sessionPath;
        if (callbacks.started)
            callbacks.started(m.header, m.sessionPath);
        break;
    case MessageType::Progress:
        if (m.progress.stage != t.stage)
            t.stepsInStage = 0;
        t.stage = m.progress.stage;
        ++t.stepsInStage;
        if (callbacks.progress)
            callbacks.progress(m.progress);
        break;
    case MessageType::Step:
        t.steps.push_back(m.step);
        if (callbacks.step)
            callbacks.step(m.step);
        break;
    case MessageType::Sample:
        t.samples.push_back(m.sample);
        if (callbacks.sample)
            callbacks.sample(m.sample);
        break;
    case MessageType::Arm:
        t.finishedStage = m.arm.name();
        t.stage.clear();
        t.arms.push_back(m.arm);
        if (callbacks.arm)
            callbacks.arm(m.arm);
        break;
    case MessageType::SweepPoint:
        t.finishedStage = "sweep " + m.sweepPoint.knob + "=" + std::to_string(m.sweepPoint.value);
        t.stage.clear();
        t.sweep.push_back(m.sweepPoint);
        if (callbacks.sweepPoint)
            callbacks.sweepPoint(m.sweepPoint);
        break;
    case MessageType::Memory:
        t.memory = m.memory;
        if (callbacks.memory)
            callbacks.memory(m.memory);
        break;
    case MessageType::Saved:
        // Samples stay: one taken while the save was under way is in neither the file nor
        // the messages after it (recovered() keeps each sample once, by time).
        t.savedPath = m.sessionPath;
        t.steps.clear();
        t.arms.clear();
        t.sweep.clear();
        t.memory.reset();
        if (callbacks.saved)
            callbacks.saved(m.sessionPath);
        break;
    case MessageType::Done:
        t.done = m;
        break;
    case MessageType::Cancel:
        break;
    }
}

// "the engine crashed (SIGSEGV, Segmentation fault) in the fp32 arm at step 7".
std::string howItStopped(int status, const Transcript& t, const std::string& errorTail)
{
    std::string what;
    if (WIFSIGNALED(status)) {
        const int signal = WTERMSIG(status);
        const char* description = ::sigdescr_np(signal);
        if (signal == SIGKILL || signal == SIGTERM)
            what = "the engine was killed by " + signalName(signal);
        else if (signal == SIGABRT)
            what = "the engine aborted (SIGABRT)";
        else
            what = "the engine crashed (" + signalName(signal) +
                   (description ? std::string(", ") + description : "") + ")";
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && !t.hello &&
               errorTail.find("error while loading shared libraries") != std::string::npos) {
        // The loader's own words: "...: libtorch_cpu.so: cannot open shared object file".
        const size_t at = errorTail.find("libraries: ");
        const std::string library =
            errorTail.substr(at + 11, errorTail.find(':', at + 11) - (at + 11));
        return "the engine cannot start: " + library +
               " was not found (LibTorch): " + kLibTorchHint;
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && !t.hello) {
        what = "the engine could not be started (not a program this machine runs?)";
    } else if (WIFEXITED(status)) {
        what = "the engine exited with status " + std::to_string(WEXITSTATUS(status)) +
               " without finishing";
    } else {
        what = "the engine stopped";
    }
    const bool neverStarted = WIFEXITED(status) && WEXITSTATUS(status) == 127 && !t.hello;
    if (neverStarted)
        ;
    else if (!t.hello)
        what += " before it started";
    else if (!t.stage.empty())
        what += " in the " + t.stage + " arm at step " +
                std::to_string(t.stepsInStage - 1);  // 0-based, as ProfilerStep#N
    else if (!t.finishedStage.empty())
        what += " after the " + t.finishedStage + " arm";
    else
        what += " while it prepared the run";
    // An abort or an exit usually says why on its last line ("terminate called after ...",
    // "CUDA error: ..."); a signal from outside has nothing to add.
    const bool fromOutside =
        WIFSIGNALED(status) && (WTERMSIG(status) == SIGKILL || WTERMSIG(status) == SIGTERM);
    if (!fromOutside) {
        std::string_view tail(errorTail);
        while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r' || tail.back() == ' '))
            tail.remove_suffix(1);
        if (const size_t newline = tail.rfind('\n'); newline != std::string_view::npos)
            tail.remove_prefix(newline + 1);
        if (!tail.empty())
            what += ": " + trace::printableExcerpt(tail, 160);
    }
    return what;
}

// The session as far as the engine got: its last save, plus what it streamed after.
session::Session recovered(const Transcript& t)
{
    session::Session s = t.header;
    if (!t.savedPath.empty()) {
        std::string ignored;
        if (std::optional<session::Session> saved = session::loadSession(t.savedPath, ignored))
            s = std::move(*saved);
    }
    // A message can arrive after the save that already holds its value: keep each once.
    for (const session::StepTiming& step : t.steps)
        if (s.steps.empty() || step.step > s.steps.back().step)
            s.steps.push_back(step);
    for (const session::LiveSample& sample : t.samples)
        if (s.samples.empty() || sample.seconds > s.samples.back().seconds)
            s.samples.push_back(sample);
    for (const session::LabArm& arm : t.arms)
        if (std::none_of(s.lab.begin(), s.lab.end(),
                         [&](const session::LabArm& a) { return a.kind == arm.kind; }))
            s.lab.push_back(arm);
    if (t.memory && !s.memory)
        s.memory = t.memory;
    for (const session::SweepPoint& point : t.sweep)
        if (std::none_of(s.sweep.begin(), s.sweep.end(), [&](const session::SweepPoint& p) {
                return p.knob == point.knob && p.value == point.value;
            }))
            s.sweep.push_back(point);
    return s;
}

}  // namespace

std::string findEngine()
{
    if (const char* given = std::getenv("KINETOSCOPE_ENGINE"); given && *given)
        return isExecutableFile(given) ? given : std::string();
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec)
        return {};
    const std::string beside = (self.parent_path() / "kinetoscope-engine").string();
    return isExecutableFile(beside) ? beside : std::string();
}

std::vector<std::string> engineEnvironment()
{
    std::vector<std::string> environment;
    const char* given = std::getenv("KINETOSCOPE_LIBTORCH");
    std::string libtorch = given ? given : "";
    // A CUDA wheel's engine also links the CUDA runtime, which the wheel keeps beside
    // torch (site-packages/nvidia/...), not in torch/lib: those folders follow.
    if (!libtorch.empty())
        for (const char* runtime : {"/../../nvidia/cu13/lib", "/../../nvidia/cuda_runtime/lib"}) {
            std::error_code ec;
            if (std::filesystem::is_directory(libtorch + runtime, ec))
                libtorch +=
                    ":" + std::filesystem::path(libtorch + runtime).lexically_normal().string();
        }
    const bool prepend = !libtorch.empty();
    bool placed = false;
    for (char** entry = environ; entry && *entry; ++entry) {
        std::string text(*entry);
        if (prepend && text.starts_with("LD_LIBRARY_PATH=")) {
            const std::string rest = text.substr(16);
            text = "LD_LIBRARY_PATH=" + libtorch + (rest.empty() ? "" : ":" + rest);
            placed = true;
        }
        environment.push_back(std::move(text));
    }
    if (prepend && !placed)
        environment.push_back("LD_LIBRARY_PATH=" + libtorch);
    return environment;
}

std::string engineLogPath(const RunConfig& config)
{
    return (std::filesystem::path(config.outDir) / "engine.log").string();
}

RunResult runEngine(const RunConfig& config, const RunCallbacks& callbacks,
                    const EngineOptions& options)
{
    RunResult result;
    const std::string executable = options.executable.empty() ? findEngine() : options.executable;
    if (!isExecutableFile(executable)) {
        result.error =
            "the engine (kinetoscope-engine) is not installed beside kinetoscope: build with "
            "-DKINETOSCOPE_ENGINE=ON, or name it in KINETOSCOPE_ENGINE";
        return result;
    }
    ChildProcess child;
    SpawnSpec spec;
    spec.name = "the engine";
    spec.executable = executable;
    spec.args = runOptionArgs(config);
    spec.environment = engineEnvironment();
    if (!child.spawn(spec, result.error))
        return result;
    if (callbacks.engineStarted)
        callbacks.engineStarted(int(child.pid()));

    Transcript t;
    std::optional<Clock::time_point> cancelSent, terminated;
    auto onLine = [&](std::string_view line) {
        std::string error;
        const bool wasStarted = t.started;
        if (std::optional<EngineMessage> message = decodeMessage(line, error))
            receive(*message, t, callbacks);
        else if (t.protocolError.empty())
            t.protocolError = "the engine wrote " + error;
        if (t.started && !wasStarted)
            child.keepLogAt(engineLogPath(config));
    };
    std::optional<Clock::time_point> exited;
    for (;;) {
        const bool open = child.pump(std::chrono::milliseconds(100), onLine);
        if (!exited && child.reap())
            exited = Clock::now();
        if (exited && (!open || Clock::now() - *exited > kDrainAfterExit)) {
            child.closeOutputs();
            break;
        }
        if (!open)  // outputs closed, process not yet gone: wait for it, still able to cancel
            ::poll(nullptr, 0, 100);
        if (callbacks.abandon && callbacks.abandon->load()) {
            child.signal(SIGKILL);  // the caller is going away: no grace
            continue;
        }
        const bool stop =
            (callbacks.cancel && callbacks.cancel->load()) || !t.protocolError.empty();
        if (stop && !cancelSent) {
            EngineMessage cancel;
            cancel.type = MessageType::Cancel;
            if (t.protocolError.empty() && callbacks.cancelledBy)
                cancel.by = callbacks.cancelledBy();
            child.send(encodeMessage(cancel));
            cancelSent = Clock::now();
        }
        if (!t.protocolError.empty())
            child.signal(
                SIGKILL);  // an engine that does not speak our protocol: nothing to wait for
        if (cancelSent && !terminated && Clock::now() - *cancelSent > options.cancelGrace) {
            child.signal(SIGTERM);
            terminated = Clock::now();
        }
        if (terminated && Clock::now() - *terminated > options.cancelGrace)
            child.signal(SIGKILL);
    }
    if (callbacks.engineStarted)
        callbacks.engineStarted(0);  // gone: its process id may be reused from now on

    if (t.done && t.protocolError.empty()) {
        result.ok = t.done->ok;
        result.error = t.done->error;
        result.sessionPath = t.done->sessionPath;
        if (!result.sessionPath.empty()) {
            std::string error;
            if (std::optional<session::Session> saved =
                    session::loadSession(result.sessionPath, error))
                result.session = std::move(*saved);
            else if (result.ok) {
                result.ok = false;
                result.error = "the engine's session cannot be read back: " + error;
            }
        }
        return result;
    }

    // The engine stopped without its last message: say how, keep what it measured.
    result.error = t.protocolError.empty() ? howItStopped(child.status(), t, child.errorTail())
                                           : t.protocolError;
    if (cancelSent && t.protocolError.empty()) {
        const std::string by = callbacks.cancelledBy ? callbacks.cancelledBy() : "";
        result.error = (by.empty() ? "cancelled; " : "cancelled by " + by + "; ") + result.error;
    }
    if (!t.started)
        return result;
    result.session = recovered(t);
    result.session.interrupted = result.error;
    std::string error;
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(t.sessionPath).parent_path(), ec);
    if (session::saveSession(result.session, t.sessionPath, error)) {
        result.sessionPath = t.sessionPath;
        result.error +=
            "; kept: " + format::counted(result.session.steps.size(), "step", "steps") + ", " +
            format::counted(
                uint64_t(std::count_if(result.session.lab.begin(), result.session.lab.end(),
                                       [](const session::LabArm& a) { return a.ran; })),
                "arm", "arms") +
            " in " + t.sessionPath;
    } else {
        result.error += "; " + error;
    }
    return result;
}

}  // namespace kinetoscope::lab
