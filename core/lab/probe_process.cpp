#include "core/lab/probe_process.h"

#include "core/format/format.h"
#include "core/lab/child_process.h"
#include "core/lab/cpu_flags.h"
#include "core/lab/engine_protocol.h"
#include "core/lab/live_sampler.h"
#include "core/session/timing_stats.h"
#include "core/trace/printable.h"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace kinetoscope::lab {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// After a cancel, how long the probe has to stop the script at a step boundary, then how
// long each signal (SIGINT, SIGTERM) has before the next (SIGKILL last).
constexpr auto kCancelGrace = std::chrono::seconds(5);
// The session is saved again at most this often while steps arrive.
constexpr auto kSaveEvery = std::chrono::seconds(2);
// After the script has exited, how long the socket is read for what is left: a process it
// started may hold it open for ever.
constexpr auto kDrainAfterExit = std::chrono::milliseconds(1000);

bool holdsBoot(const fs::path& folder)
{
    std::error_code ec;
    return !folder.empty() && fs::is_regular_file(folder / "boot" / "sitecustomize.py", ec);
}

// `name` as execvp would find it in PATH (a name with a '/' is itself); empty if nowhere.
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

// The command as one line a shell would read back: words with spaces or quotes quoted.
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

std::string probeOptions(const ProfileConfig& c)
{
    nlohmann::json options = {{"skip", c.skip},
                              {"active", c.active},
                              {"steps", c.steps},
                              {"step_marker", c.stepMarker},
                              {"record_shapes", c.recordShapes},
                              {"profile_memory", c.profileMemory},
                              {"with_stack", c.withStack},
                              {"memory_snapshot", c.memorySnapshot},
                              {"sample_rate", std::clamp(c.samplesPerSecond, 10, 20)}};
    if (!c.arm.empty())
        options["arm"] = c.arm;
    if (!c.compileMode.empty())
        options["compile_mode"] = c.compileMode;
    if (c.seed >= 0)
        options["seed"] = c.seed;
    nlohmann::json loader = nlohmann::json::object();
    if (c.loaderWorkers >= 0)
        loader["num_workers"] = c.loaderWorkers;
    if (c.loaderBatchSize > 0)
        loader["batch_size"] = c.loaderBatchSize;
    if (c.pinMemory >= 0)
        loader["pin_memory"] = c.pinMemory == 1;
    if (c.persistentWorkers >= 0)
        loader["persistent_workers"] = c.persistentWorkers == 1;
    if (!loader.empty())
        options["loader"] = loader;
    return options.dump();
}

// This process's environment with the probe on the interpreter's path and its options.
std::vector<std::string> probeEnvironment(const ProfileConfig& c, const std::string& probe)
{
    const std::string boot = (fs::path(probe) / "boot").string();
    std::vector<std::string> environment;
    bool pythonPath = false;
    for (char** entry = environ; entry && *entry; ++entry) {
        std::string text(*entry);
        // A probe already running above us (kinetoscope profile inside a profiled script)
        // must not make this one dormant, nor hand it its socket.
        if (text.starts_with("KINETOSCOPE_PROBE_"))
            continue;
        if (text.starts_with("PYTHONPATH=")) {
            const std::string rest = text.substr(11);
            text = "PYTHONPATH=" + boot + (rest.empty() ? "" : ":" + rest);
            pythonPath = true;
        }
        environment.push_back(std::move(text));
    }
    if (!pythonPath)
        environment.push_back("PYTHONPATH=" + boot);
    environment.push_back("KINETOSCOPE_PROBE_OUT=" + fs::absolute(c.outDir).string());
    environment.push_back("KINETOSCOPE_PROBE_OPTIONS=" + probeOptions(c));
    return environment;
}

// Environment variables a session records (`env NAME`), where set: the device and thread
// choices, the allocator's configuration, the interpreter's environment.
constexpr const char* kRecordedVariables[] = {
    "CUDA_VISIBLE_DEVICES",    "HIP_VISIBLE_DEVICES",     "OMP_NUM_THREADS", "MKL_NUM_THREADS",
    "PYTORCH_CUDA_ALLOC_CONF", "TORCHINDUCTOR_CACHE_DIR", "VIRTUAL_ENV",     "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV"};

// What the launcher heard from the probe.
struct Heard
{
    bool hello = false;
    std::string protocolError;
    session::Session header;  // config and environment, merged as they come (newer wins)
    std::vector<session::StepTiming> steps;
    int64_t lastStep = -1;  // the last step that started (progress), warm-up included
    std::string stage;
    std::optional<EngineMessage> done;
};

// The session from what was heard and sampled. `error`: why the script stopped early.
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

// "the script was killed by SIGKILL", "the script crashed (SIGSEGV, Segmentation fault)",
// "the script exited with status 3".
std::string howTheScriptEnded(int status)
{
    if (WIFSIGNALED(status)) {
        const int signal = WTERMSIG(status);
        if (signal == SIGKILL || signal == SIGTERM || signal == SIGINT || signal == SIGHUP)
            return "the script was killed by " + signalName(signal);
        if (signal == SIGABRT)
            return "the script aborted (SIGABRT)";
        const char* description = ::sigdescr_np(signal);
        return "the script crashed (" + signalName(signal) +
               (description ? std::string(", ") + description : "") + ")";
    }
    return "the script exited with status " + std::to_string(WEXITSTATUS(status));
}

// " at step 12" (the step in flight, 0-based as ProfilerStep#N), or nothing.
std::string whereItWas(const Heard& h)
{
    if (h.lastStep < 0)
        return h.hello ? " before its first step" : "";
    return " at step " + std::to_string(h.lastStep) + (h.stage.empty() ? "" : " (" + h.stage + ")");
}

}  // namespace

int ProfileResult::exitCode() const
{
    if (WIFSIGNALED(waitStatus))
        return 128 + WTERMSIG(waitStatus);
    return WIFEXITED(waitStatus) ? WEXITSTATUS(waitStatus) : 1;
}

std::string validateProfileConfig(const ProfileConfig& c)
{
    if (c.command.empty() || c.command.front().empty())
        return "no command to profile: put it after --, as in kinetoscope profile -- python "
               "train.py";
    if (c.skip < 0 || c.active < 0 || c.steps < 0)
        return "--skip, --active and --steps take a count of steps (0 or more)";
    if (c.samplesPerSecond < 1)
        return "--sample-rate takes samples per second (10-20)";
    std::error_code ec;
    if (c.outDir.empty())
        return "--out needs a folder";
    if (fs::exists(c.outDir, ec)) {
        if (!fs::is_directory(c.outDir, ec))
            return "--out " + c.outDir + " is a file, not a folder";
        if (!fs::is_empty(c.outDir, ec))
            return "--out " + c.outDir +
                   " already holds files: a run never overwrites an earlier one (name a new or "
                   "empty folder)";
    }
    if (!c.workingDirectory.empty() && !fs::is_directory(c.workingDirectory, ec))
        return "the working folder " + c.workingDirectory + " does not exist";
    if (resolveInPath(c.command.front()).empty())
        return "cannot find " + c.command.front() + " (not in PATH)";
    return {};
}

std::string findProbe()
{
    if (const char* given = std::getenv("KINETOSCOPE_PROBE_DIR"); given && *given)
        return holdsBoot(given) ? std::string(given) : std::string();
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec)
        return {};
    // PREFIX/bin/kinetoscope -> PREFIX/share/kinetoscope/python (the package, and a build's
    // build/bin beside build/share, where the build copies python/).
    const fs::path installed =
        self.parent_path().parent_path() / "share" / "kinetoscope" / "python";
    return holdsBoot(installed) ? installed.string() : std::string();
}

std::string profileSessionPath(const ProfileConfig& config)
{
    return (fs::path(config.outDir) / "session.kinetoscope.json").string();
}

ProfileResult runProfile(const ProfileConfig& c, const RunCallbacks& callbacks)
{
    ProfileResult result;
    RunResult& run = result.run;
    if (std::string invalid = validateProfileConfig(c); !invalid.empty()) {
        run.error = invalid;
        return result;
    }
    const std::string probe = c.probeDirectory.empty() ? findProbe() : c.probeDirectory;
    if (!holdsBoot(probe)) {
        run.error = "the probe (python/boot/sitecustomize.py) is not installed beside kinetoscope: "
                    "name its folder in KINETOSCOPE_PROBE_DIR";
        return result;
    }
    std::error_code ec;
    fs::create_directories(c.outDir, ec);
    if (ec) {
        run.error = "cannot make " + c.outDir + ": " + ec.message();
        return result;
    }
    const std::string sessionPath = profileSessionPath(c);

    ChildProcess child;
    SpawnSpec spec;
    spec.name = "the script";
    spec.executable = c.command.front();
    spec.args.assign(c.command.begin() + 1, c.command.end());
    spec.environment = probeEnvironment(c, probe);
    spec.searchPath = true;
    spec.socketVariable = "KINETOSCOPE_PROBE_FD";
    spec.workingDirectory = c.workingDirectory;
    spec.ownProcessGroup = !c.fromTerminal;
    spec.dieWithParent = !c.fromTerminal;
    if (!c.fromTerminal)
        spec.outputFile = (fs::path(c.outDir) / "output.log").string();
    if (!child.spawn(spec, run.error))
        return result;
    result.started = true;
    if (callbacks.engineStarted)
        callbacks.engineStarted(int(child.pid()));

    // Samples come on the sampler's thread and are handed out on this one.
    std::mutex sampleMutex;
    std::vector<session::LiveSample> samples;
    size_t samplesHandedOut = 0;
    std::pair<int64_t, int64_t> allocator{-1, -1};  // the probe's latest (CUDA)
    std::optional<LiveSampler> sampler;
    if (c.liveSamples)
        sampler.emplace(
            c.samplesPerSecond,
            [&](const session::LiveSample& sample) {
                std::lock_guard lock(sampleMutex);
                samples.push_back(sample);
            },
            [&]() {
                std::lock_guard lock(sampleMutex);
                return allocator;
            },
            std::string(), int(child.pid()));
    auto handOutSamples = [&] {
        std::vector<session::LiveSample> fresh;
        {
            std::lock_guard lock(sampleMutex);
            fresh.assign(samples.begin() + std::ptrdiff_t(samplesHandedOut), samples.end());
            samplesHandedOut = samples.size();
        }
        if (callbacks.sample)
            for (const session::LiveSample& sample : fresh)
                callbacks.sample(sample);
    };
    auto samplesSoFar = [&] {
        std::lock_guard lock(sampleMutex);
        return samples;
    };

    Heard h;
    auto onLine = [&](std::string_view line) {
        if (!h.protocolError.empty())
            return;
        std::string error;
        std::optional<EngineMessage> m = decodeMessage(line, error);
        if (!m) {
            h.protocolError = "the probe wrote " + error;
            return;
        }
        if (!h.hello && m->type != MessageType::Hello) {
            h.protocolError = "the probe did not introduce itself (no \"hello\" first)";
            return;
        }
        switch (m->type) {
        case MessageType::Hello:
            h.hello = true;
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
            if (callbacks.progress)
                callbacks.progress(m->progress);
            break;
        case MessageType::Step:
            h.steps.push_back(m->step);
            if (callbacks.step)
                callbacks.step(m->step);
            break;
        case MessageType::Sample: {
            std::lock_guard lock(sampleMutex);
            allocator = {m->sample.allocatedBytes, m->sample.reservedBytes};
            break;
        }
        case MessageType::Done:
            h.done = m;
            break;
        default:
            break;  // the engine's lab messages: not the probe's
        }
    };

    std::optional<Clock::time_point> exited, cancelSent, interrupted, terminated, killed;
    Clock::time_point lastSave = Clock::now();
    size_t savedSteps = 0;
    std::string cancelledBy;
    auto save = [&](const std::string& why, std::string& error) {
        return session::saveSession(buildSession(c, h, samplesSoFar(), why), sessionPath, error);
    };
    for (;;) {
        const bool open = child.pump(std::chrono::milliseconds(100), onLine);
        handOutSamples();
        if (!exited && child.reap())
            exited = Clock::now();
        if (exited && (!open || Clock::now() - *exited > kDrainAfterExit)) {
            child.closeOutputs();
            break;
        }
        if (!open)  // socket closed, process not yet gone: wait for it, still able to cancel
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        if (callbacks.abandon && callbacks.abandon->load()) {
            child.signal(SIGKILL);  // the caller is going away: no grace
            continue;
        }
        if (h.steps.size() > savedSteps && Clock::now() - lastSave > kSaveEvery) {
            std::string ignored;
            if (save(std::string(), ignored) && callbacks.saved)
                callbacks.saved(sessionPath);
            savedSteps = h.steps.size();
            lastSave = Clock::now();
        }
        if (callbacks.cancel && callbacks.cancel->load() && !cancelSent) {
            EngineMessage cancel;
            cancel.type = MessageType::Cancel;
            cancelledBy = callbacks.cancelledBy ? callbacks.cancelledBy() : std::string();
            cancel.by = cancelledBy;
            child.send(encodeMessage(cancel));
            cancelSent = Clock::now();
        }
        // A cancel the probe does not act on (no step boundary comes, or no probe): the
        // script gets what Ctrl-C would give it, then SIGTERM, then SIGKILL.
        const auto now = Clock::now();
        if (cancelSent && !interrupted && now - *cancelSent > kCancelGrace) {
            child.signal(SIGINT);
            interrupted = now;
        }
        if (interrupted && !terminated && now - *interrupted > kCancelGrace) {
            child.signal(SIGTERM);
            terminated = now;
        }
        if (terminated && !killed && now - *terminated > kCancelGrace) {
            child.signal(SIGKILL);
            killed = now;
        }
    }
    sampler.reset();  // its last sample closes the series
    handOutSamples();
    if (callbacks.engineStarted)
        callbacks.engineStarted(0);
    result.waitStatus = child.status();
    result.probeSpoke = h.hello;

    // What happened, in one line when it is not a clean end.
    const int status = child.status();
    const bool cleanExit = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    std::string error;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && !h.hello)
        error = "cannot run " + c.command.front() + " (not a program this machine runs?)";
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 126 && !h.hello)
        error = "cannot enter the working folder " + c.workingDirectory;
    else if (!h.protocolError.empty())
        error = h.protocolError;
    else if (h.done && !h.done->ok)
        error = "the script failed" + whereItWas(h) + ": " + h.done->error;
    else if (!cleanExit)
        error = howTheScriptEnded(status) + whereItWas(h) +
                (h.hello && !h.done && WIFEXITED(status)
                     ? " (without the probe's last message: os._exit?)"
                     : "");
    if (!cancelledBy.empty() && !error.empty())
        error = "cancelled by " + cancelledBy + "; " + error;
    run.ok = error.empty();
    run.error = error;
    const int64_t measuredFrom = c.skip + c.active;
    if (!h.hello)
        result.note = "the probe did not start in " + c.command.front() +
                      " (not Python, or run with -E, -I or -S, which ignore PYTHONPATH): "
                      "nothing was measured";
    else if (h.header.environment.count("torch") == 0)
        result.note = "the script never imported torch: nothing was measured";
    else if (h.lastStep < 0)
        result.note = "no step was seen (no optimizer step, no forward of a model under no_grad; "
                      "--step-marker names the step)";
    else if (h.steps.empty())
        result.note = "the script ended at step " + std::to_string(h.lastStep) +
                      ", before any "
                      "measured step (steps from " +
                      std::to_string(measuredFrom) + " on are measured: lower --skip or --active)";
    else if (h.done && !h.done->by.empty())
        result.note = "stopped the script after " +
                      format::counted(h.steps.size(), "measured step", "measured steps") + " (" +
                      h.done->by + ")";
    run.session = buildSession(c, h, samplesSoFar(), error);
    std::string saveError;
    if (session::saveSession(run.session, sessionPath, saveError)) {
        run.sessionPath = sessionPath;
        if (callbacks.saved)
            callbacks.saved(sessionPath);
        if (!run.ok)
            run.error += "; kept: " + format::counted(run.session.steps.size(), "step", "steps") +
                         " in " + sessionPath;
    } else {
        run.ok = false;
        run.error = (run.error.empty() ? "" : run.error + "; ") + saveError;
    }
    return result;
}

}  // namespace kinetoscope::lab
