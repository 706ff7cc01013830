#include "app/cli/profile_command.h"

#include "app/cli/cli_main.h"
#include "app/cli/end_like_script.h"
#include "app/cli/profile_lab.h"
#include "app/cli/profile_scaling.h"
#include "core/format/format.h"
#include "core/job/digest.h"
#include "core/lab/probe_process.h"
#include "core/lab/profile_job.h"
#include "core/lab/script_lab.h"
#include "core/lab/signal_relay.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <csignal>
#include <ctime>
#include <filesystem>
#include <ostream>
#include <string>
#include <sys/wait.h>

namespace kinetoscope::cli {

namespace {

namespace fs = std::filesystem;

// The script's process while it runs (0 before and after): signals sent to this process
// alone are passed on to it.
std::atomic<int> g_script{0};

// A terminal's Ctrl-C (and Ctrl-\) reaches the whole foreground group, the script included:
// it is the script's to handle, as it would be without us. Another signal (kill, a job
// scheduler's SIGTERM) goes to the script's relay, which passes it on unless the script got
// it too (lab/signal_relay.h); with no relay (a job's launcher), it is passed on at once.
// The script's end is then this process's to report.
void passOn(int signal, siginfo_t* info, void*)
{
    const bool fromTerminal = info && info->si_code == SI_KERNEL;
    if (fromTerminal || lab::SignalRelay::received(signal))
        return;
    if (const int pid = g_script.load(); pid > 0)
        ::kill(pid, signal);
}

// Every signal a script may handle (Slurm's --signal and Lightning's requeue send SIGUSR1; a
// terminal's resize SIGWINCH; a limit SIGXCPU) is passed on; job control (SIGTSTP, SIGCONT)
// and what this process's own writes raise (SIGPIPE, SIGXFSZ) are not. A signal this process was
// started with ignored (nohup's SIGHUP, `trap ''`, a non-interactive shell's `&` and SIGINT,
// SIGQUIT) is ignored here while no script runs: a script inherits it ignored, as it would without
// us (a handler of ours would be its default action after exec). While one runs, it is passed on
// too: the script may have installed a handler of its own.
class SignalsPassOn
{
public:
    SignalsPassOn()
    {
        for (size_t i = 0; i < kSignals.size(); ++i) {
            ::sigaction(kSignals[i], nullptr, &m_previous[i]);
            m_ignoredAtStart[i] = m_previous[i].sa_handler == SIG_IGN;
            if (!m_ignoredAtStart[i])
                ::sigaction(kSignals[i], &passOnAction(), nullptr);
        }
        s_active = this;
    }
    ~SignalsPassOn()
    {
        s_active = nullptr;
        for (size_t i = 0; i < kSignals.size(); ++i)
            ::sigaction(kSignals[i], &m_previous[i], nullptr);
    }
    SignalsPassOn(const SignalsPassOn&) = delete;
    SignalsPassOn& operator=(const SignalsPassOn&) = delete;

    // The script started (pid > 0) or ended (0): the signals ignored at start are passed on
    // while it runs, and ignored again before the next script (a lab's next arm) starts.
    static void scriptIs(int pid)
    {
        g_script = pid;
        if (SignalsPassOn* self = s_active)
            for (size_t i = 0; i < kSignals.size(); ++i)
                if (self->m_ignoredAtStart[i])
                    ::sigaction(kSignals[i], pid > 0 ? &passOnAction() : &self->m_previous[i],
                                nullptr);
    }

private:
    static const struct sigaction& passOnAction()
    {
        static const struct sigaction action = [] {
            struct sigaction a
            {
            };
            a.sa_sigaction = passOn;
            a.sa_flags = SA_SIGINFO | SA_RESTART;
            ::sigemptyset(&a.sa_mask);
            return a;
        }();
        return action;
    }

    static constexpr std::array<int, 11> kSignals{SIGINT,  SIGQUIT,   SIGTERM, SIGHUP,
                                                  SIGUSR1, SIGUSR2,   SIGALRM, SIGWINCH,
                                                  SIGXCPU, SIGVTALRM, SIGPROF};
    static inline SignalsPassOn* s_active = nullptr;
    std::array<struct sigaction, kSignals.size()> m_previous{};
    std::array<bool, kSignals.size()> m_ignoredAtStart{};
};

bool parseCount(const std::string& text, int64_t& value)
{
    const char* end = text.data() + text.size();
    const auto [at, ec] = std::from_chars(text.data(), end, value);
    return ec == std::errc() && at == end && value >= 0;
}

// kinetoscope-profiles/train-20261128-181502 (then -2, -3... if taken): never an earlier run's.
std::string newSessionFolder(const std::vector<std::string>& command)
{
    std::string stem = "script";
    for (size_t i = 1; i < command.size(); ++i) {
        if (command[i] == "-m" && i + 1 < command.size()) {
            stem = command[i + 1].substr(command[i + 1].rfind('.') + 1);
            break;
        }
        if (!command[i].starts_with("-")) {
            stem = fs::path(command[i]).stem().string();
            break;
        }
    }
    char stamp[32] = {};
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    ::localtime_r(&now, &local);
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
    const fs::path base = fs::path("kinetoscope-profiles") / (stem + "-" + stamp);
    fs::path folder = base;
    std::error_code ec;
    for (int n = 2; fs::exists(folder, ec); ++n)
        folder = base.string() + "-" + std::to_string(n);
    return folder.string();
}

// "0,2,4" -> {0, 2, 4}; false on anything but counts.
bool parseCounts(const std::string& text, std::vector<int64_t>& into)
{
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = std::min(text.find(',', start), text.size());
        int64_t value = 0;
        if (!parseCount(text.substr(start, comma - start), value))
            return false;
        into.push_back(value);
        start = comma + 1;
    }
    return !into.empty();
}

// What `--lab`, `--arms` and `--sweep` ask for: a script lab instead of one run; and
// `--scaling`: a scaling study.
struct LabOptions
{
    bool asked = false;
    bool stepsGiven = false;
    lab::ScriptLabConfig lab;
    std::vector<int64_t> worldSizes;  // --scaling
    bool strong = false;
};

// Options before `--`; false + one line on a bad one.
bool parseOptions(const std::vector<std::string>& options, lab::ProfileConfig& c, bool& outGiven,
                  LabOptions& l, std::string& error)
{
    l.lab.arms.clear();
    for (size_t i = 0; i < options.size(); ++i) {
        const std::string& o = options[i];
        auto value = [&](std::string& into) {
            if (i + 1 >= options.size()) {
                error = o + " needs a value";
                return false;
            }
            into = options[++i];
            return true;
        };
        auto count = [&](int64_t& into) {
            std::string text;
            if (!value(text))
                return false;
            if (!parseCount(text, into)) {
                error = o;
                error += " takes a count (0 or more), not '" + text + "'";
                return false;
            }
            return true;
        };
        if (o == "--out") {
            if (!value(c.outDir))
                return false;
            outGiven = true;
        } else if (o == "--skip") {
            if (!count(c.skip))
                return false;
        } else if (o == "--active") {
            if (!count(c.active))
                return false;
        } else if (o == "--steps") {
            if (!count(c.steps))
                return false;
            l.stepsGiven = true;
        } else if (o == "--lab") {
            l.asked = true;
            if (l.lab.arms.empty())
                l.lab.arms = {"fp32", "bf16", "bf16+compile"};
        } else if (o == "--arms") {
            std::string text;
            if (!value(text))
                return false;
            l.asked = true;
            l.lab.arms.clear();
            for (size_t start = 0; start <= text.size();) {
                const size_t comma = std::min(text.find(',', start), text.size());
                l.lab.arms.push_back(text.substr(start, comma - start));
                start = comma + 1;
            }
        } else if (o == "--sweep") {
            std::string text;
            if (!value(text))
                return false;
            l.asked = true;
            const size_t equals = text.find('=');
            const std::string knob = text.substr(0, equals);
            std::vector<int64_t>* into = knob == "workers" ? &l.lab.workers
                                         : knob == "batch" ? &l.lab.batchSizes
                                                           : nullptr;
            if (equals == std::string::npos || !into ||
                !parseCounts(text.substr(equals + 1), *into)) {
                error = "--sweep takes workers=N,N,... or batch=N,N,... (not '" + text + "')";
                return false;
            }
        } else if (o == "--nproc") {
            int64_t n = 0;
            if (!count(n))
                return false;
            if (n < 1 || n > 4096) {
                error = "--nproc takes a number of processes (1 to 4096)";
                return false;
            }
            c.nproc = int(n);
        } else if (o == "--scaling") {
            std::string text;
            if (!value(text))
                return false;
            if (!parseCounts(text, l.worldSizes)) {
                error = "--scaling takes world sizes: 1,2,4 (not '" + text + "')";
                return false;
            }
        } else if (o == "--strong") {
            l.strong = true;
        } else if (o == "--compile-mode") {
            if (!value(c.compileMode))
                return false;
        } else if (o == "--seed") {
            if (!count(c.seed))
                return false;
        } else if (o == "--memory-limit-mb") {
            if (!count(l.lab.memoryLimitMb))
                return false;
        } else if (o == "--step-marker") {
            if (!value(c.stepMarker))
                return false;
        } else if (o == "--cwd") {
            if (!value(c.workingDirectory))
                return false;
        } else if (o == "--sample-rate") {
            int64_t hz = 0;
            if (!count(hz))
                return false;
            if (hz < 10 || hz > 20) {
                error = "--sample-rate takes 10 to 20 samples per second";
                return false;
            }
            c.samplesPerSecond = int(hz);
        } else if (o == "--no-trace") {
            c.active = 0;
        } else if (o == "--no-shapes") {
            c.recordShapes = false;
        } else if (o == "--no-profile-memory") {
            c.profileMemory = false;
        } else if (o == "--with-stack") {
            c.withStack = true;
        } else if (o == "--memory-snapshot") {
            c.memorySnapshot = true;
        } else if (o == "--no-samples") {
            c.liveSamples = false;
        } else {
            error = "unknown option " + o;
            return false;
        }
    }
    return true;
}

// "32 steps measured (steps 8 to 39), after 5 warm-up and 3 in the profiler window".
std::string measuredLine(const lab::ProfileConfig& c, const session::Session& s)
{
    std::string line = format::counted(s.steps.size(), "step", "steps") + " measured";
    if (!s.steps.empty())
        line += " (steps " + std::to_string(s.steps.front().step) + " to " +
                std::to_string(s.steps.back().step) + ")";
    line += ", after " + std::to_string(c.skip) + " warm-up";
    if (c.active > 0)
        line += " and " + std::to_string(c.active) + " in the profiler window";
    if (const auto window = s.config.find("window"); window != s.config.end())
        line += " (" + window->second + ")";  // not taken: the script's own profiler
    const auto from = s.config.find("steps_from");
    if (from != s.config.end())
        line += "; steps from " + from->second;
    return line;
}

// What `kinetoscope profile` says of a run once the script has ended goes to standard
// error, as time(1) says its figures: the standard output is the script's (`> log`, a
// pipe), and ours would be appended to it. A standard error closed meanwhile (a pipe read
// no more) fails our writes rather than ending this process by SIGPIPE before it ends as
// the script did (its own processes have all started: none inherits the ignore).
void afterTheScript()
{
    std::signal(SIGPIPE, SIG_IGN);
}

// A job (--nproc, or a command that starts ranks): every rank's line, then the job's
// reading, on `report` (standard error: see afterTheScript).
int runJob(const lab::ProfileConfig& c, std::ostream& report)
{
    lab::JobCallbacks callbacks;
    callbacks.run.engineStarted = SignalsPassOn::scriptIs;
    const lab::JobRunResult result = [&] {
        const SignalsPassOn signalsPassOn;
        return lab::runProfileJob(c, callbacks);
    }();
    g_script = 0;
    afterTheScript();
    if (!result.started) {
        report << "kinetoscope profile: " << result.error << "\n";
        return kExitBadInput;
    }
    report << "\nkinetoscope profile: " << format::counted(result.ranks.size(), "rank", "ranks")
           << " under " << result.command << "\n";
    for (const lab::RankRun& rank : result.ranks) {
        report << "rank " << rank.rank << (rank.host.empty() ? "" : " (" + rank.host + ")") << ": "
               << measuredLine(c, rank.run.session);
        if (!rank.readHere)
            report << " (read by its own machine's launcher)";
        report << "\n";
    }
    if (!result.note.empty())
        report << "kinetoscope profile: " << result.note << "\n";
    if (!result.error.empty())
        report << "kinetoscope profile: " << result.error << "\n";
    // Each rank's digest beside its session, where its trace was written: the job then opens
    // from the digests (core/job/digest.h), on this machine or from a shared folder.
    for (const lab::RankRun& rank : result.ranks)
        if (std::string digestError; !rank.run.session.tracePath.empty() &&
                                     !job::writeRankDigest(rank.run.sessionPath, digestError))
            report << "kinetoscope profile: rank " << rank.rank << "'s digest: " << digestError
                   << "\n";
    const bool anySaved =
        std::any_of(result.ranks.begin(), result.ranks.end(),
                    [](const lab::RankRun& r) { return !r.run.sessionPath.empty(); });
    if (!anySaved)
        return result.exitCode();
    report << "job: " << c.outDir << "\n";
    // A job is read from its ranks' profiler windows: a rank without one is read on its own.
    if (const std::vector<int> alone = lab::ranksWithoutWindow(result); !alone.empty()) {
        report << "rank " << alone.front() << " ended before its profiler window: each rank is "
               << "read on its own (kinetoscope diagnose "
               << lab::rankFolder(c.outDir, alone.front()) << "/session.kinetoscope.json)\n";
        return result.exitCode();
    }
    report << "\n";
    run({"diagnose", c.outDir}, report, report);
    return result.exitCode();
}

}  // namespace

int runProfile(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    const auto dashes = std::find(args.begin(), args.end(), "--");
    lab::ProfileConfig c;
    bool outGiven = false;
    LabOptions labOptions;
    std::string error;
    if (!parseOptions({args.begin(), dashes}, c, outGiven, labOptions, error)) {
        err << "kinetoscope profile: " << error << " (see kinetoscope profile --help)\n";
        return kExitBadInput;
    }
    if (dashes != args.end())
        c.command.assign(dashes + 1, args.end());
    if (!outGiven && !c.command.empty())
        c.outDir = newSessionFolder(c.command);
    if (!labOptions.worldSizes.empty()) {
        if (labOptions.asked) {
            err << "kinetoscope profile: --scaling runs the script as written, not a lab's arms "
                   "or sweeps\n";
            return kExitBadInput;
        }
        scaling::RunConfig study;
        study.script = c;
        if (!labOptions.stepsGiven)
            study.script.steps = kLabSteps;
        study.script.fromTerminal = false;
        for (int64_t n : labOptions.worldSizes)
            study.worldSizes.push_back(int(std::min<int64_t>(n, 1 << 20)));
        study.strong = labOptions.strong;
        return runScalingCommand(study, out, err);
    }
    if (labOptions.strong) {
        err << "kinetoscope profile: --strong goes with --scaling\n";
        return kExitBadInput;
    }
    if (labOptions.asked) {
        // Each run of a lab is bounded and seeded the same: --steps 20 and --seed 0 unless given.
        if (!labOptions.stepsGiven)
            c.steps = kLabSteps;
        if (c.seed < 0)
            c.seed = 0;
        labOptions.lab.script = c;
        return runScriptLabCommand(labOptions.lab, out, err);
    }
    if (error = lab::validateProfileConfig(c); !error.empty()) {
        err << "kinetoscope profile: " << error << "\n";
        return kExitBadInput;
    }
    if (c.nproc > 0 || lab::launchesRanks(c.command))
        return runJob(c, err);
    lab::RunCallbacks callbacks;
    callbacks.engineStarted = SignalsPassOn::scriptIs;
    const lab::ProfileResult result = [&] {
        const SignalsPassOn signalsPassOn;
        return lab::runProfile(c, callbacks);
    }();
    g_script = 0;
    afterTheScript();
    if (!result.started) {  // the launcher's own failure: the script never ran
        err << "kinetoscope profile: " << result.run.error << "\n";
        return kExitBadInput;
    }
    std::ostream& report = err;  // (see afterTheScript)
    const session::Session& s = result.run.session;
    if (result.probeSpoke)
        report << "\nkinetoscope profile: " << measuredLine(c, s) << "\n";
    else
        report << "\n";
    if (!result.note.empty())
        report << "kinetoscope profile: " << result.note << "\n";
    if (!result.run.ok)
        err << "kinetoscope profile: " << result.run.error << "\n";
    if (!result.run.sessionPath.empty()) {
        report << "session: " << result.run.sessionPath << "\n";
        if (!s.tracePath.empty())
            report << "trace: " << (fs::path(c.outDir) / s.tracePath).string() << "\n";
        if (!s.snapshotPath.empty())
            report << "memory snapshot: " << (fs::path(c.outDir) / s.snapshotPath).string()
                   << " (kinetoscope memory reads it)\n";
        if (!s.steps.empty() || !s.tracePath.empty()) {
            report << "\n";
            run({"diagnose", result.run.sessionPath}, report, err);
        }
    }
    if (WIFSIGNALED(result.waitStatus))
        endBySignal(WTERMSIG(result.waitStatus));
    return result.exitCode();
}

}  // namespace kinetoscope::cli
