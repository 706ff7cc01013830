#include "core/lab/probe_process.h"

#include "core/format/format.h"
#include "core/lab/child_process.h"
#include "core/lab/engine_protocol.h"
#include "core/lab/live_sampler.h"
#include "core/lab/probe_stream.h"
#include "core/lab/python_children.h"
#include "core/lab/python_command.h"
#include "core/lab/save_pacing.h"
#include "core/lab/signal_relay.h"

#include <algorithm>
#include <charconv>
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
// After the script has exited, how long the socket is read for what is left: a process it
// started may hold it open for ever.
constexpr auto kDrainAfterExit = std::chrono::milliseconds(1000);

// "; it started another Python ...", for a run that measured nothing, or empty.
std::string andItsPythonChild(const PythonChildren& children)
{
    const std::string advice = pythonChildAdvice(children.seen());
    return advice.empty() ? advice : "; " + advice;
}

bool holdsBoot(const fs::path& folder)
{
    std::error_code ec;
    return !folder.empty() && fs::is_regular_file(folder / "boot" / "sitecustomize.py", ec);
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

}  // namespace

std::string flagThatShutsOutTheProbe(const std::vector<std::string>& command)
{
    const std::optional<PythonCommand> python = readPythonCommand(command);
    return python ? python->shutOutFlag : std::string();
}

std::vector<std::string> probeEnvironment(const ProfileConfig& c, const std::string& probe,
                                          bool job)
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
    environment.push_back((job ? "KINETOSCOPE_PROBE_JOB=" : "KINETOSCOPE_PROBE_OUT=") +
                          fs::absolute(c.outDir).string());
    environment.push_back("KINETOSCOPE_PROBE_OPTIONS=" + probeOptions(c));
    return environment;
}

namespace {

// This process's environment, less a probe's variables (a probe running above us).
std::vector<std::string> ownEnvironment()
{
    std::vector<std::string> environment;
    for (char** entry = environ; entry && *entry; ++entry)
        if (!std::string_view(*entry).starts_with("KINETOSCOPE_PROBE_"))
            environment.emplace_back(*entry);
    return environment;
}

}  // namespace

int ProfileResult::exitCode() const
{
    return shellExitCode(waitStatus);
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

std::string probeFolder(const ProfileConfig& config, std::string& error)
{
    std::string probe = config.probeDirectory.empty() ? findProbe() : config.probeDirectory;
    if (holdsBoot(probe))
        return probe;
    error = "the probe (python/boot/sitecustomize.py) is not installed beside kinetoscope: name "
            "its folder in KINETOSCOPE_PROBE_DIR";
    return {};
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
    const std::string probe = probeFolder(c, run.error);
    if (probe.empty())
        return result;
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
    // A Python that ignores PYTHONPATH (-I, -E, -S) cannot load the probe: it runs as it
    // would alone, with nothing of ours in its environment or its descriptors.
    const std::string shutOut = flagThatShutsOutTheProbe(c.command);
    spec.environment = shutOut.empty() ? probeEnvironment(c, probe, false) : ownEnvironment();
    spec.searchPath = true;
    if (shutOut.empty())
        spec.socketVariable = "KINETOSCOPE_PROBE_FD";
    else
        spec.noChannel = true;
    spec.workingDirectory = c.workingDirectory;
    spec.ownProcessGroup = !c.fromTerminal;
    spec.dieWithParent = !c.fromTerminal;
    if (!c.fromTerminal)
        spec.outputFile = (fs::path(c.outDir) / "output.log").string();
    // From a terminal (`kinetoscope profile`), signals sent to the launcher are passed on
    // once (signal_relay.h); the app's script is in a group of its own and gets none.
    std::optional<SignalRelay> relay;
    if (c.fromTerminal && shutOut.empty() && !relay.emplace().ok())
        relay.reset();
    if (relay) {
        spec.environment.push_back(
            "KINETOSCOPE_PROBE_SIGNALS=" + describeInherited(relay->writeEnd()) + "," +
            describeInherited(relay->readEnd()));
        spec.inheritedFds = {relay->writeEnd(), relay->readEnd()};
    }
    const bool spawned = child.spawn(spec, run.error);
    if (relay)
        relay->closeChildEnds();
    if (!spawned)
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
        const std::optional<EngineMessage> m = hearLine(h, line, c, callbacks, sessionPath);
        if (m && m->type == MessageType::Sample) {
            std::lock_guard lock(sampleMutex);
            allocator = {m->sample.allocatedBytes, m->sample.reservedBytes};
        }
    };

    std::optional<Clock::time_point> exited;
    // Until the script steps, the Pythons it starts (a launcher's child may be the training).
    PythonChildren pythonChildren(int(child.pid()), c.command, spec.environment);
    int turns = 0;
    SignalEscalation escalation(kCancelGrace);
    SavePacing savePacing;  // while steps arrive
    size_t savedSteps = 0;
    std::string cancelledBy;
    auto save = [&](const std::string& why, std::string& error) {
        return session::saveSession(buildSession(c, h, samplesSoFar(), why), sessionPath, error);
    };
    for (;;) {
        constexpr std::chrono::milliseconds kTurn{100};
        const bool open = child.pump(relay ? relay->waitAtMost(kTurn) : kTurn, onLine);
        handOutSamples();
        if (!exited && child.reap())
            exited = Clock::now();
        if (relay)
            relay->poll(child.pid(), exited.has_value());
        if (!exited && h.lastStep < 0 && ++turns % 5 == 0)  // every half a second
            pythonChildren.poll();
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
        if (h.steps.size() > savedSteps && savePacing.due(Clock::now())) {
            const Clock::time_point began = Clock::now();
            std::string ignored;
            if (save(std::string(), ignored) && callbacks.saved)
                callbacks.saved(sessionPath);
            savedSteps = h.steps.size();
            savePacing.saved(began, Clock::now(), sessionPath);
        }
        if (callbacks.cancel && callbacks.cancel->load() && !escalation.started()) {
            EngineMessage cancel;
            cancel.type = MessageType::Cancel;
            cancelledBy = callbacks.cancelledBy ? callbacks.cancelledBy() : std::string();
            cancel.by = cancelledBy;
            child.send(encodeMessage(cancel));
            escalation.start(Clock::now());
        }
        // A cancel the probe does not act on (no step boundary comes, or no probe): the
        // script gets what Ctrl-C would give it, then SIGTERM, then SIGKILL.
        escalation.poll(child, Clock::now());
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
        error = howItFailed("the script", h);
    else if (!cleanExit)
        error = howItEnded("the script", status) + whereItWas(h) +
                (h.hello && !h.done && WIFEXITED(status)
                     ? " (without the probe's last message: os._exit?)"
                     : "");
    if (!cancelledBy.empty() && !error.empty())
        error = "cancelled by " + cancelledBy + "; " + error;
    run.ok = error.empty();
    run.error = error;
    const int64_t measuredFrom = c.skip + c.active;
    if (!shutOut.empty())
        result.note = c.command.front() + " " + shutOut +
                      " keeps the interpreter from PYTHONPATH, where the probe comes in: the "
                      "script ran as it would alone, unmeasured (run it without " +
                      shutOut + " to measure it)";
    else if (!h.hello)
        result.note = "the probe did not start in " + c.command.front() +
                      " (not Python, or run with -E, -I or -S, which ignore PYTHONPATH): "
                      "nothing was measured";
    else if (h.lastStep < 0 && pythonChildren.replacedItself())
        result.note = "nothing was measured: " + pythonChildAdvice(pythonChildren.seen());
    else if (h.header.environment.count("torch") == 0)
        result.note = "the script never imported torch: nothing was measured" +
                      andItsPythonChild(pythonChildren);
    else if (!h.done && cleanExit)  // os._exit, or the probe's channel closed under it
        result.note = "the probe's last message never came (the script left by os._exit, or "
                      "closed the probe's descriptor: its stderr says so); kept what was sent "
                      "before: " +
                      format::counted(h.steps.size(), "measured step", "measured steps");
    else if (h.lastStep < 0)
        result.note = "no step was seen (no optimizer step, no forward of a model under no_grad; "
                      "--step-marker names the step)" +
                      andItsPythonChild(pythonChildren);
    else if (h.steps.empty())
        result.note = "the script ended at step " + std::to_string(h.lastStep) +
                      ", before any "
                      "measured step (steps from " +
                      std::to_string(measuredFrom) + " on are measured: lower --skip or --active)";
    else if (h.done && !h.done->by.empty())
        result.note = "stopped the script after " +
                      format::counted(h.steps.size(), "measured step", "measured steps") + " (" +
                      h.done->by + ")";
    // A status the script chose (sys.exit(3): the probe's last message came, no exception):
    // kept apart, for the reading to say it was the script's own end. Whether its loop had
    // ended (a status that reports a result) or not (a check of its own stopped it: a NaN
    // loss, a signal handler that saves and exits) the probe cannot tell.
    const bool ownStatus = h.done && h.done->ok && cancelledBy.empty() && WIFEXITED(status) &&
                           WEXITSTATUS(status) != 0;
    run.session = buildSession(c, h, samplesSoFar(), error);
    if (ownStatus)
        run.session.config["exit_status"] = std::to_string(WEXITSTATUS(status));
    if (const std::optional<double> others = child.otherProcessesCores()) {
        // (to_chars: the session's number whatever the locale; two decimals of a core)
        char text[32];
        const auto written =
            std::to_chars(text, text + sizeof text, *others, std::chars_format::fixed, 2);
        run.session.config["other_cpu_cores"] = std::string(text, written.ptr);
    }
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
