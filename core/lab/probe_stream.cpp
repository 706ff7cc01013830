#include "core/lab/probe_stream.h"

#include "core/lab/child_process.h"
#include "core/lab/cpu_flags.h"
#include "core/session/timing_stats.h"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace kinetoscope::lab {

namespace fs = std::filesystem;

namespace {

// Environment variables a session records (`env NAME`), where set: the device and thread
// choices, the allocator's configuration, the interpreter's environment.
constexpr const char* kRecordedVariables[] = {
    "CUDA_VISIBLE_DEVICES",    "HIP_VISIBLE_DEVICES",     "OMP_NUM_THREADS", "MKL_NUM_THREADS",
    "PYTORCH_CUDA_ALLOC_CONF", "TORCHINDUCTOR_CACHE_DIR", "VIRTUAL_ENV",     "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV"};

}  // namespace

std::string resolveInPath(const std::string& name)
{
    if (name.find('/') != std::string::npos)
        return name;
    const char* path = std::getenv("PATH");
    std::string_view rest = path ? path : "/usr/bin:/bin";
    while (true) {
        const size_t colon = rest.find(':');
        const std::string folder(rest.substr(0, colon));
        std::string candidate = (folder.empty() ? "." : folder) + "/" + name;
        if (::access(candidate.c_str(), X_OK) == 0)
            return candidate;
        if (colon == std::string_view::npos)
            return {};
        rest.remove_prefix(colon + 1);
    }
}

std::string commandLine(const std::vector<std::string>& command)
{
    std::string line;
    for (const std::string& word : command) {
        if (!line.empty())
            line += ' ';
        const bool plain =
            !word.empty() &&
            word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                   "0123456789_-./:=,+@%") == std::string::npos;
        if (plain) {
            line += word;
            continue;
        }
        line += '\'';
        for (char c : word)
            line += c == '\'' ? std::string("'\\''") : std::string(1, c);
        line += '\'';
    }
    return line;
}

std::optional<EngineMessage> hearLine(Heard& h, std::string_view line, const ProfileConfig& c,
                                      const RunCallbacks& callbacks, const std::string& sessionPath)
{
    if (!h.protocolError.empty())
        return std::nullopt;
    std::string error;
    std::optional<EngineMessage> m = decodeMessage(line, error);
    if (!m) {
        h.protocolError = "the probe wrote " + error;
        return std::nullopt;
    }
    if (!h.hello && m->type != MessageType::Hello) {
        h.protocolError = "the probe did not introduce itself (no \"hello\" first)";
        return std::nullopt;
    }
    switch (m->type) {
    case MessageType::Hello:
        h.hello = true;
        h.pid = m->pid;
        if (m->protocol != kProtocolVersion)
            h.protocolError = "the probe speaks protocol " + std::to_string(m->protocol) +
                              ", this kinetoscope reads " + std::to_string(kProtocolVersion) +
                              " (install the two from one build)";
        break;
    case MessageType::Started: {
        // Forwards under no_grad counted as inference steps until an optimizer first
        // stepped (a validation pass before training): the probe counts again from step
        // 0 as training, and those steps were not the run's.
        const auto mode = m->header.config.find("mode");
        const auto known = h.header.config.find("mode");
        if (mode != m->header.config.end() && known != h.header.config.end() &&
            mode->second != known->second) {
            h.steps.clear();
            h.lastStep = -1;
        }
        for (const auto& [key, value] : m->header.config)
            h.header.config[key] = value;
        for (const auto& [key, value] : m->header.environment)
            h.header.environment[key] = value;
        if (callbacks.started)
            callbacks.started(buildSession(c, h, {}, {}), sessionPath);
        break;
    }
    case MessageType::Progress:
        h.lastStep = m->progress.step;
        h.stage = m->progress.stage;
        h.plannedSteps = m->progress.steps;
        if (callbacks.progress)
            callbacks.progress(m->progress);
        break;
    case MessageType::Step:
        h.steps.push_back(m->step);
        if (callbacks.step)
            callbacks.step(m->step);
        // A measured step's line, sent at its boundary, also says the next step started
        // (the probe sends one line a step on its hot path, python/kinetoscope/probe/
        // steps.py). A CUDA step's line comes a step late, after that step's progress.
        if (m->step.step >= h.lastStep) {
            RunProgress next;
            next.stage = "measured";
            next.step = m->step.step + 1;
            next.steps = h.plannedSteps;
            next.fraction = h.plannedSteps > 0
                                ? std::min(1.0, double(next.step) / double(h.plannedSteps))
                                : 0.0;
            h.lastStep = next.step;
            h.stage = next.stage;
            if (callbacks.progress)
                callbacks.progress(next);
        }
        break;
    case MessageType::Done:
        h.done = m;
        break;
    default:
        break;  // a sample (the caller keeps the allocator figures), the engine's lab messages
    }
    return m;
}

session::Session buildSession(const ProfileConfig& c, const Heard& h,
                              const std::vector<session::LiveSample>& samples,
                              const std::string& interrupted)
{
    session::Session s;
    s.config = h.header.config;
    s.environment = h.header.environment;
    s.config["kind"] = "script";
    s.config["command"] = commandLine(c.command);
    s.config["working_directory"] =
        fs::absolute(c.workingDirectory.empty() ? fs::current_path() : fs::path(c.workingDirectory))
            .string();
    if (s.environment.count("python_executable"))
        s.config["interpreter"] = s.environment["python_executable"];
    else if (const std::string found = resolveInPath(c.command.front()); !found.empty())
        s.config["interpreter"] = found;
    s.config["skip"] = std::to_string(c.skip);
    s.config["active"] = std::to_string(c.active);
    if (c.steps > 0)
        s.config["steps"] = std::to_string(c.steps);
    if (!c.stepMarker.empty())
        s.config["step_marker"] = c.stepMarker;
    if (c.seed >= 0)
        s.config["seed"] = std::to_string(c.seed);
    if (!c.arm.empty() && !s.config.count("arm"))
        s.config["arm"] = c.arm;  // the probe's own word wins: it says what it applied
    s.environment["host_threads"] = std::to_string(std::thread::hardware_concurrency());
    if (const auto device = s.config.find("device");
        device != s.config.end() && device->second == "cpu")
        s.environment["cpu_bf16"] = cpuBf16Units();
    // The variables that change how a training run behaves, as the script saw them.
    for (const char* name : kRecordedVariables)
        if (const char* value = std::getenv(name))
            s.environment[std::string("env ") + name] = value;
    s.steps = h.steps;
    s.samples = samples;
    if (!h.steps.empty()) {
        std::vector<double> data, h2d, forward, backward, optimizer, compute;
        for (const session::StepTiming& t : h.steps) {
            data.push_back(t.dataMs);
            h2d.push_back(t.h2dMs);
            forward.push_back(t.forwardMs);
            backward.push_back(t.backwardMs);
            optimizer.push_back(t.optimizerMs);
            compute.push_back(t.forwardMs + t.backwardMs + t.optimizerMs);
        }
        auto mean = [](const std::vector<double>& v) {
            double sum = 0;
            for (double x : v)
                sum += x;
            return sum / double(v.size());
        };
        s.phases.push_back(session::timingStats("data", data));
        s.phases.push_back(session::timingStats("h2d", h2d));
        s.phases.push_back(session::timingStats("forward", forward));
        if (!s.inference()) {
            s.phases.push_back(session::timingStats("backward", backward));
            s.phases.push_back(session::timingStats("optimizer", optimizer));
        }
        s.dataLoaderMs = mean(data);
        s.computeMs = mean(compute);
    }
    std::error_code ec;
    if (fs::is_regular_file(fs::path(c.outDir) / "trace.json", ec))
        s.tracePath = "trace.json";
    if (fs::is_regular_file(fs::path(c.outDir) / "memory_snapshot.pickle", ec))
        s.snapshotPath = "memory_snapshot.pickle";
    s.interrupted = interrupted;
    return s;
}

std::string whereItWas(const Heard& h)
{
    if (h.lastStep < 0)
        return h.hello ? " before its first step" : "";
    return " at step " + std::to_string(h.lastStep) + (h.stage.empty() ? "" : " (" + h.stage + ")");
}

std::string howItFailed(const std::string& what, const Heard& h)
{
    const std::string& error = h.done->error;
    const bool interrupted = error.starts_with("KeyboardInterrupt");
    return what + (interrupted ? " was interrupted" : " failed") + whereItWas(h) + ": " + error;
}

std::string howItEnded(const std::string& what, int status)
{
    if (WIFSIGNALED(status)) {
        const int signal = WTERMSIG(status);
        if (signal == SIGKILL || signal == SIGTERM || signal == SIGINT || signal == SIGHUP)
            return what + " was killed by " + signalName(signal);
        if (signal == SIGABRT)
            return what + " aborted (SIGABRT)";
        const char* description = ::sigdescr_np(signal);
        return what + " crashed (" + signalName(signal) +
               (description ? std::string(", ") + description : "") + ")";
    }
    return what + " exited with status " + std::to_string(WEXITSTATUS(status));
}

int shellExitCode(int waitStatus)
{
    if (WIFSIGNALED(waitStatus))
        return 128 + WTERMSIG(waitStatus);
    return WIFEXITED(waitStatus) ? WEXITSTATUS(waitStatus) : 1;
}

}  // namespace kinetoscope::lab
