#include "core/lab/profile_job.h"

#include "core/format/format.h"
#include "core/format/number_text.h"
#include "core/lab/child_process.h"
#include "core/lab/live_sampler.h"
#include "core/lab/probe_stream.h"
#include "core/lab/save_pacing.h"

#include <algorithm>
#include <charconv>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace kinetoscope::lab {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr auto kPoll = std::chrono::milliseconds(100);  // how often the streams are read
constexpr auto kCancelGrace = std::chrono::seconds(5);  // per signal, as for one script
// After the command has ended: how long the streams may stay quiet before the ranks not yet
// finished are taken as ended (a rank on another machine writes through a shared folder).
constexpr auto kQuietAfterExit = std::chrono::seconds(3);

std::string hostName()
{
    char name[256] = {};
    return ::gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string();
}

// "rank-12" -> 12; -1 for anything else.
int rankOfFolder(const std::string& name)
{
    if (!name.starts_with("rank-") || name.size() == 5)
        return -1;
    int rank = -1;
    const char* end = name.data() + name.size();
    const auto [at, ec] = std::from_chars(name.data() + 5, end, rank);
    return ec == std::errc() && at == end && rank >= 0 ? rank : -1;
}

// One rank's stream file read as it grows: complete lines only, each once.
class RankStream
{
public:
    RankStream(int rank, fs::path folder) : m_rank(rank), m_folder(std::move(folder)) {}
    RankStream(const RankStream&) = delete;
    RankStream& operator=(const RankStream&) = delete;
    ~RankStream()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }

    int rank() const { return m_rank; }
    const fs::path& folder() const { return m_folder; }

    // Hands out the lines written since the last call; true if there were any.
    template <typename OnLine>
    bool read(OnLine&& onLine)
    {
        if (m_fd < 0) {
            m_fd = ::open((m_folder / "probe.jsonl").c_str(), O_RDONLY | O_CLOEXEC);
            if (m_fd < 0)
                return false;
        }
        bool any = false;
        char buffer[65536];
        for (ssize_t n; (n = ::read(m_fd, buffer, sizeof buffer)) > 0;) {
            m_partial.append(buffer, size_t(n));
            size_t begin = 0;
            for (size_t end; (end = m_partial.find('\n', begin)) != std::string::npos;
                 begin = end + 1) {
                onLine(std::string_view(m_partial).substr(begin, end - begin));
                any = true;
            }
            m_partial.erase(0, begin);
        }
        return any;
    }

private:
    int m_rank;
    fs::path m_folder;
    int m_fd = -1;
    std::string m_partial;  // a line not yet ended
};

struct RankState
{
    std::unique_ptr<RankStream> stream;
    Heard heard;
    ProfileConfig config;   // the job's, with this rank's folder as outDir
    bool readHere = false;  // claimed: this launcher saves its session
    size_t savedSteps = 0;
    SavePacing savePacing;  // its session's, while steps arrive
    // Live samples of a rank of this machine: taken on the sampler's thread, handed out on
    // the launcher's. (RankState lives in a std::map: never moved.)
    std::unique_ptr<LiveSampler> sampler;
    std::mutex sampleMutex;
    std::vector<session::LiveSample> samples;
    size_t samplesHandedOut = 0;
    std::pair<int64_t, int64_t> allocator{-1, -1};  // the probe's latest (CUDA)
    std::vector<session::LiveSample> samplesSoFar()
    {
        std::lock_guard lock(sampleMutex);
        return samples;
    }
    std::string host() const
    {
        const auto host = heard.header.config.find("host");
        return host == heard.header.config.end() ? std::string() : host->second;
    }
};

// Claims a rank for this launcher (OUT/rank-K/.launcher, made exclusively): a job on
// several machines has a launcher on each (torchrun), all reading one shared folder, and
// exactly one saves each rank's session.
bool claim(const fs::path& folder)
{
    const int fd =
        ::open((folder / ".launcher").c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    const std::string who = hostName() + " " + std::to_string(::getpid()) + "\n";
    const ssize_t ignored = ::write(fd, who.data(), who.size());
    (void)ignored;
    ::close(fd);
    return true;
}

// An error a rank meets when a peer has gone (its collective's connection closed): the
// consequence of another rank's failure, not a cause of its own. gloo's and NCCL's words.
bool lostPeer(const std::string& error)
{
    for (const char* words :
         {"Connection closed by peer", "Connection reset by peer", "DistBackendError",
          "NCCL communicator was aborted", "ProcessGroupNCCL's watchdog", "Broken pipe"})
        if (error.find(words) != std::string::npos)
            return true;
    return false;
}

bool failedItself(const Heard& h)
{
    return h.done && !h.done->ok;
}

// Why a rank did not end cleanly, in one line; empty when it did. `failedElsewhere`: the
// rank whose own failure ended the job ("rank 3"), when it is another.
std::string rankProblem(const RankState& r, int rank, const std::string& failedElsewhere)
{
    const Heard& h = r.heard;
    const std::string who = "rank " + std::to_string(rank);
    if (!h.protocolError.empty())
        return who + ": " + h.protocolError;
    if (failedItself(h) && !failedElsewhere.empty() && lostPeer(h.done->error))
        return who + " stopped" + whereItWas(h) + " when " + failedElsewhere +
               " failed (its collective lost that peer: " + h.done->error + ")";
    if (failedItself(h))
        return howItFailed(who, h);
    if (!h.done)
        return who + " stopped" + whereItWas(h) + " without the probe's last message (" +
               (failedElsewhere.empty()
                    ? "killed?"
                    : "stopped by the launcher when " + failedElsewhere + " failed?") +
               ")";
    return {};
}

// OUT/cancel, atomically: every rank's probe looks for it at each step boundary's poll.
void writeCancel(const fs::path& out, const std::string& by)
{
    const fs::path temporary = out / ".cancel.partial";
    {
        EngineMessage cancel;
        cancel.type = MessageType::Cancel;
        cancel.by = by;
        std::ofstream file(temporary);
        file << encodeMessage(cancel);
    }
    std::error_code ec;
    fs::rename(temporary, out / "cancel", ec);
}

}  // namespace

int JobRunResult::exitCode() const
{
    return shellExitCode(waitStatus);
}

std::vector<std::string> distributedCommand(const std::vector<std::string>& command, int nproc)
{
    if (command.empty())
        return {};
    std::vector<std::string> launched{command.front()};
    size_t i = 1;
    // The interpreter's own options stay the interpreter's (-u, -O, -X dev, -W error).
    for (; i < command.size() && command[i].starts_with("-") && command[i] != "-m"; ++i) {
        launched.push_back(command[i]);
        if ((command[i] == "-X" || command[i] == "-W") && i + 1 < command.size())
            launched.push_back(command[++i]);
    }
    for (const char* word : {"-m", "torch.distributed.run", "--standalone", "--nproc-per-node"})
        launched.emplace_back(word);
    launched.push_back(std::to_string(nproc));
    launched.insert(launched.end(), command.begin() + std::ptrdiff_t(i), command.end());
    return launched;
}

bool launchesRanks(const std::vector<std::string>& command)
{
    if (command.empty())
        return false;
    const std::string program = fs::path(command.front()).filename().string();
    if (program == "torchrun" || program == "srun" || program == "mpirun" || program == "mpiexec")
        return true;
    for (size_t i = 1; i + 1 < command.size(); ++i)
        if (command[i] == "-m")
            return command[i + 1] == "torch.distributed.run" ||
                   command[i + 1] == "torch.distributed.launch";
    return false;
}

std::vector<int> ranksWithoutWindow(const JobRunResult& result)
{
    std::vector<int> ranks;
    for (const RankRun& rank : result.ranks)
        if (!rank.run.sessionPath.empty() && rank.run.session.tracePath.empty())
            ranks.push_back(rank.rank);
    return ranks;
}

std::string rankFolder(const std::string& outDir, int rank)
{
    return (fs::path(outDir) / ("rank-" + std::to_string(rank))).string();
}

JobRunResult runProfileJob(const ProfileConfig& c, const JobCallbacks& callbacks)
{
    JobRunResult result;
    if (result.error = validateProfileConfig(c); !result.error.empty())
        return result;
    if (c.nproc > 0 && c.command.size() < 2) {
        result.error = "--nproc runs a Python script: kinetoscope profile --nproc 2 -- python "
                       "train.py";
        return result;
    }
    const std::string probe = probeFolder(c, result.error);
    if (probe.empty())
        return result;
    std::error_code ec;
    fs::create_directories(c.outDir, ec);
    if (ec) {
        result.error = "cannot make " + c.outDir + ": " + ec.message();
        return result;
    }
    const fs::path out = fs::absolute(c.outDir);
    const std::vector<std::string> command =
        c.nproc > 0 ? distributedCommand(c.command, c.nproc) : c.command;
    result.command = commandLine(command);

    ChildProcess child;
    SpawnSpec spec;
    spec.name = command.front();
    spec.executable = command.front();
    spec.args.assign(command.begin() + 1, command.end());
    spec.environment = probeEnvironment(c, probe, true);
    spec.searchPath = true;
    spec.noChannel = true;
    spec.workingDirectory = c.workingDirectory;
    spec.ownProcessGroup = !c.fromTerminal;
    spec.dieWithParent = !c.fromTerminal;
    if (!c.fromTerminal)
        spec.outputFile = (out / "output.log").string();
    if (!child.spawn(spec, result.error))
        return result;
    result.started = true;
    if (callbacks.run.engineStarted)
        callbacks.run.engineStarted(int(child.pid()));

    const std::string thisHost = hostName();
    std::map<int, RankState> ranks;
    auto findRanks = [&] {
        std::error_code listError;
        for (const fs::directory_entry& entry : fs::directory_iterator(out, listError)) {
            const int rank = rankOfFolder(entry.path().filename().string());
            if (rank < 0 || ranks.count(rank) || !entry.is_directory(listError))
                continue;
            RankState& r = ranks[rank];
            r.stream = std::make_unique<RankStream>(rank, entry.path());
            r.config = c;
            r.config.outDir = entry.path().string();
        }
    };
    auto sessionPathOf = [](const RankState& r) { return profileSessionPath(r.config); };
    auto readAll = [&] {
        bool any = false;
        for (auto& entry : ranks) {
            // Not a structured binding: the lambdas below capture the rank's state.
            const int k = entry.first;
            RankState& r = entry.second;
            RunCallbacks perRank;
            if (callbacks.rankStarted)
                perRank.started = [&, k](const session::Session& header, const std::string& path) {
                    callbacks.rankStarted(k, header, path);
                };
            if (callbacks.rankStep)
                perRank.step = [&, k](const session::StepTiming& step) {
                    callbacks.rankStep(k, step);
                };
            if (callbacks.rankProgress)
                perRank.progress = [&, k](const RunProgress& progress) {
                    callbacks.rankProgress(k, progress);
                };
            const std::string path = sessionPathOf(r);
            any |= r.stream->read([&](std::string_view line) {
                const std::optional<EngineMessage> m =
                    hearLine(r.heard, line, r.config, r.readHere ? perRank : RunCallbacks{}, path);
                if (m && m->type == MessageType::Sample) {
                    std::lock_guard lock(r.sampleMutex);
                    r.allocator = {m->sample.allocatedBytes, m->sample.reservedBytes};
                }
            });
            // A rank of this machine is read here from its first word; one of another
            // machine, by the launcher there (torchrun starts one on each).
            if (!r.readHere && !r.host().empty() && r.host() == thisHost)
                r.readHere = claim(r.stream->folder());
            if (r.readHere && !r.sampler && c.liveSamples && r.heard.pid > 0 &&
                r.host() == thisHost) {
                RankState* state = &r;
                r.sampler = std::make_unique<LiveSampler>(
                    c.samplesPerSecond,
                    [state](const session::LiveSample& sample) {
                        std::lock_guard lock(state->sampleMutex);
                        state->samples.push_back(sample);
                    },
                    [state] {
                        std::lock_guard lock(state->sampleMutex);
                        return state->allocator;
                    },
                    std::string(), int(r.heard.pid));
            }
            std::vector<session::LiveSample> fresh;
            {
                std::lock_guard lock(r.sampleMutex);
                fresh.assign(r.samples.begin() + std::ptrdiff_t(r.samplesHandedOut),
                             r.samples.end());
                r.samplesHandedOut = r.samples.size();
            }
            if (callbacks.rankSample)
                for (const session::LiveSample& sample : fresh)
                    callbacks.rankSample(k, sample);
        }
        return any;
    };
    auto save = [&](RankState& r, const session::Session& s) {
        std::string error;
        const bool saved = session::saveSession(s, sessionPathOf(r), error);
        r.savedSteps = r.heard.steps.size();
        return saved;
    };

    std::optional<Clock::time_point> exited;
    SignalEscalation escalation(kCancelGrace);
    Clock::time_point lastNews = Clock::now();
    std::string cancelledBy;
    for (;;) {
        std::this_thread::sleep_for(kPoll);
        findRanks();
        if (readAll())
            lastNews = Clock::now();
        if (!exited && child.reap())
            exited = lastNews = Clock::now();
        if (exited) {
            const bool allDone = std::all_of(ranks.begin(), ranks.end(), [](const auto& entry) {
                return entry.second.heard.done.has_value() ||
                       !entry.second.heard.protocolError.empty();
            });
            if (allDone || Clock::now() - lastNews > kQuietAfterExit)
                break;
            continue;
        }
        if (callbacks.run.abandon && callbacks.run.abandon->load()) {
            child.signal(SIGKILL);
            continue;
        }
        for (auto& [rank, r] : ranks)
            if (r.readHere && r.heard.steps.size() > r.savedSteps &&
                r.savePacing.due(Clock::now())) {
                const Clock::time_point began = Clock::now();
                save(r, buildSession(r.config, r.heard, r.samplesSoFar(), {}));
                r.savePacing.saved(began, Clock::now(), sessionPathOf(r));
            }
        if (callbacks.run.cancel && callbacks.run.cancel->load() && !escalation.started()) {
            cancelledBy = callbacks.run.cancelledBy ? callbacks.run.cancelledBy() : "the launcher";
            writeCancel(out, cancelledBy);
            escalation.start(Clock::now());
        }
        escalation.poll(child, Clock::now());
    }
    for (auto& [rank, r] : ranks)
        r.sampler.reset();  // its last sample closes the series
    readAll();
    if (callbacks.run.engineStarted)
        callbacks.run.engineStarted(0);
    result.waitStatus = child.status();

    // The rank whose own failure ended the job, named in the others' lines: the first that
    // failed with an error of its own, else the first that failed at all.
    std::string failedFirst, failedAny;
    for (const auto& [rank, r] : ranks) {
        if (!failedItself(r.heard))
            continue;
        if (failedAny.empty())
            failedAny = "rank " + std::to_string(rank);
        if (failedFirst.empty() && !lostPeer(r.heard.done->error))
            failedFirst = "rank " + std::to_string(rank);
    }
    if (failedFirst.empty())
        failedFirst = failedAny;
    for (auto& [rank, r] : ranks) {
        // A rank of another machine that finished and that no launcher there took.
        if (!r.readHere && r.heard.done)
            r.readHere = claim(r.stream->folder());
        RankRun run;
        run.rank = rank;
        run.folder = r.config.outDir;
        run.host = r.host();
        run.finished = r.heard.done.has_value();
        run.readHere = r.readHere;
        const std::string whoFailed = "rank " + std::to_string(rank);
        std::string problem = rankProblem(r, rank, failedFirst == whoFailed ? "" : failedFirst);
        const bool byAnother = !failedFirst.empty() && failedFirst != whoFailed &&
                               (!r.heard.done || lostPeer(r.heard.done->error));
        if (!cancelledBy.empty() && !problem.empty())
            problem.insert(0, "cancelled by " + cancelledBy + "; ");
        run.run.ok = problem.empty();
        run.run.error = problem;
        run.run.session = buildSession(r.config, r.heard, r.samplesSoFar(), problem);
        if (!problem.empty())  // how it ended, for the job's reading (core/job)
            run.run.session.config["rank_end"] = !cancelledBy.empty() ? "cancelled"
                                                 : byAnother          ? "stopped by another"
                                                 : r.heard.done       ? "failed"
                                                                      : "stopped";
        if (r.readHere) {
            if (save(r, run.run.session))
                run.run.sessionPath = sessionPathOf(r);
            else
                run.run.error =
                    (problem.empty() ? "" : problem + "; ") + "cannot save " + sessionPathOf(r);
        }
        if (const auto world = r.heard.header.config.find("world_size");
            world != r.heard.header.config.end())
            if (const std::optional<int64_t> size = format::integerIn(world->second);
                size && *size > 0 && *size <= INT32_MAX)
                result.worldSize = std::max(result.worldSize, int(*size));
        result.ranks.push_back(std::move(run));
    }

    const int status = result.waitStatus;
    const bool cleanExit = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    const std::string root = failedFirst;
    auto firstProblem =
        std::find_if(result.ranks.begin(), result.ranks.end(), [&](const RankRun& r) {
            return !r.run.ok && "rank " + std::to_string(r.rank) == root;
        });
    if (firstProblem == result.ranks.end())
        firstProblem = std::find_if(result.ranks.begin(), result.ranks.end(),
                                    [](const RankRun& r) { return !r.run.ok; });
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && ranks.empty())
        result.error = "cannot run " + command.front() + " (not a program this machine runs?)";
    else if (firstProblem != result.ranks.end())
        result.error = firstProblem->run.error;
    else if (!cleanExit)
        result.error = howItEnded(fs::path(command.front()).filename().string(), status);
    if (ranks.empty())
        result.note = "no rank started the probe (no process with RANK or SLURM_PROCID imported "
                      "torch under " +
                      fs::path(command.front()).filename().string() + "): nothing was measured";
    else if (result.worldSize > int(ranks.size()))
        result.note = format::counted(size_t(result.worldSize) - ranks.size(), "rank", "ranks") +
                      " of " + std::to_string(result.worldSize) + " wrote nothing under " +
                      out.string() + " (on other machines, --out must name a shared folder)";
    return result;
}

}  // namespace kinetoscope::lab
