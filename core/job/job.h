#pragma once
// A job of several ranks: one trace per rank (a folder, several files), opened in
// parallel, each an ordinary analysed document, and the ranks read side by side: steps
// aligned by their number (ProfilerStep#N), each rank's step time split into its own work
// and its exposed communication (the breakdown's communication time: collectives no
// compute hid, which is where a rank waits for the others), and the straggler: the rank
// whose own work is longest while the others wait.
//
// A rank whose trace has a fresh digest beside it (core/job/digest.h: what this file reads
// of a rank, written where the trace was) is read from the digest alone: a job of hundreds
// of ranks opens without reading their traces, and a rank's document is opened only when
// its own pages are asked for (rankDocument).
//
// Ranks come from `distributedInfo.rank`, else from the file name ("worker3",
// "rank-3", "rank3") or its folder's ("rank-3/trace.json"), else from the order given. Clocks of
// different hosts are not trusted: the step starts' spread is reported, not used to align anything.
#include "core/document/document.h"
#include "core/job/collectives.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kinetoscope::job {

// The traces of a job: a profiled job's folder (kinetoscope profile: each rank-K folder's
// session, else its trace, else its digest alone, in rank order), every *.json / *.json.gz in a
// folder (sorted by name; a *.digest.json stands for its trace when the trace is not there), or
// the files given. Empty with `error` set when a folder holds none or a path does not exist.
// torch.profiler's other outputs in a folder (an execution trace, a memory timeline) are left
// out, each with a line in `skipped`.
std::vector<std::string> jobFiles(const std::vector<std::string>& paths, std::string& error,
                                  std::vector<std::string>* skipped = nullptr);
// "worker3.1694.pt.trace.json" -> 3, "rank-12.json.gz" -> 12; -1 when the name says none.
int rankFromFileName(std::string_view fileName);
// The rank a file's name gives, else its folder's ("rank-3/session.kinetoscope.json"); -1.
int rankFromPath(const std::string& file);

struct RankStep
{
    analysis::CategoryTimes categories;  // the step's breakdown
    int64_t beginNs = 0, endNs = 0;      // the step's span (host and device), the trace's clock
    int64_t durationNs = 0;
    int64_t communicationNs = 0;  // exposed communication (the breakdown's category)
    int64_t collectiveNs = 0;     // time inside collectives (their union), hidden or not
    int64_t ownNs() const { return durationNs - communicationNs; }
    // Communication that compute hid: in collectives while the step was not waiting.
    int64_t hiddenNs() const { return std::max<int64_t>(0, collectiveNs - communicationNs); }
};

struct Rank
{
    int rank = -1;
    const char* rankSource = "order";  // "distributedInfo", "file name" or "order"
    std::string path;                  // the rank's file: its session, else its trace
    // The rank's analysed document: kept when the rank was read from its trace and the job
    // kept documents (JobOptions); null otherwise (rankDocument opens it).
    std::shared_ptr<const document::Document> doc;
    bool fromDigest = false;
    // What the trace says of itself: distributedInfo (-1 when not recorded), the first
    // device's name ("" without one), the first event's time.
    int distributedRank = -1, distributedWorldSize = -1;
    std::string device;
    int64_t traceBeginNs = 0;
    std::map<int64_t, RankStep> steps;        // by step number: the steady steps with a number
    std::vector<RankCollective> collectives;  // every collective of the trace, in issue order
    RankSteps stepRanges;                     // the host range of each numbered step
    // The rank's own diagnosis, ranked (from a digest: id, severity, title and gain only).
    std::vector<analysis::Finding> findings;
    // Why the rank stopped early, when its session says so (a profiled job's rank that
    // failed, was killed or cancelled); empty: it ran to its end, or only a trace was read.
    std::string failure;
    // It stopped because another rank failed (the launcher ends every rank), not by itself.
    bool stoppedByAnother = false;
    size_t sessionSteps = 0;  // the steps its session measured (0 without a session)
};

// What a rank is read from the document of its trace (or session): the one reading a digest
// is written from. `file` is what was opened (the rank's path).
Rank readRank(std::shared_ptr<const document::Document> doc, const std::string& file);

struct Job
{
    std::vector<Rank> ranks;           // by rank
    std::vector<int64_t> commonSteps;  // step numbers every rank has
    int worldSize = -1;                // from distributedInfo, when recorded
    // Over the common steps: each rank's mean step, own work and exposed communication.
    std::map<int, double> meanStepNs, meanOwnNs, meanCommunicationNs;
    std::vector<int> byOwnWork;  // ranks, longest own work first
    double medianOwnNs = 0;
    // The rank with the longest own work, when it stands out: beyond the median rank's by
    // kStragglerShare of the median step, and from the next slowest by half of that excess.
    std::optional<int> straggler;
    double stragglerExcessNs = 0;  // its own work beyond the median rank's
    // The breakdown category (not communication) where the straggler spends most beyond
    // the other ranks' median: its cause ("dataloader", "kernel", "cpu_exec", ...).
    std::string stragglerCause;
    double stragglerCauseExcessNs = 0;
    double startSpreadNs = 0;     // the first common step's start, latest minus earliest
    CollectiveMatch collectives;  // matched across ranks (index = position in `ranks`)
    // One line each about how ranks were read, to say before the job: a digest that was stale,
    // unreadable or too new (its trace read instead), ranks read from their digests alone.
    std::vector<std::string> notes;
    size_t ranksFromDigests = 0;
};

// The spread of own work that makes a straggler: its own work exceeds the median rank's
// by this share of the median step.
inline constexpr double kStragglerShare = 0.05;

struct JobOptions
{
    // Read a rank from its digest where a fresh one is beside its trace (and the options
    // are the default reading a digest holds: no other step marker, no changed threshold).
    bool digests = true;
    // Keep each rank's document (the app's Timelines page draws them) when the job has at
    // most this many traces to read; beyond, each is dropped as soon as its rank is read, so
    // that a job of many traces needs one document per thread at a time.
    size_t keepDocumentsUpTo = SIZE_MAX;
};

// Opens every file: from its digest where a fresh one is beside it (see JobOptions), else
// its trace (a document::open), side by side within options.threads (0 = every core):
// min(threads, traces) ranks at once, each given parallel::shareOf(threads, that many); 1
// opens them one after another, each serially. A file that cannot be read fails the job:
// nullopt, with `error` naming it in one line.
std::optional<Job> openJob(const std::vector<std::string>& files,
                           const document::OpenOptions& options, std::string& error,
                           const JobOptions& how = {});
// A rank's document: its own when the job kept it, else its file opened now.
std::shared_ptr<const document::Document> rankDocument(const Rank& rank,
                                                       const document::OpenOptions& options = {});

// Whether the paths a command was given make a job: several, or one folder of ranks or of
// several traces (a folder of one trace is that trace: document::open reads it).
bool isJob(const std::vector<std::string>& paths);
// Traces opened together are ranks of one job when distributedInfo names each a distinct
// rank of one world, when their collectives match across them on clocks that agree
// (within kSameJobClockSpreadNs), or when their file names name distinct ranks and they
// start within that time of each other. Otherwise they are separate runs (two experiments, one
// trace before and one after a change): nullopt when they are one job, else the reason in
// one line, to say before each is read on its own.
inline constexpr double kSameJobClockSpreadNs =
    3600e9;  // an hour: hosts of one job agree far better
std::optional<std::string> whyNotOneJob(const Job& job);
// jobFiles, then openJob: the one way the CLI and the app open a job.
std::optional<Job> openJobPaths(const std::vector<std::string>& paths,
                                const document::OpenOptions& options, std::string& error,
                                const JobOptions& how = {});
// What a job is called in titles: the folder of its first rank's trace ("dlrm_8_ranks").
std::string jobName(const Job& job);

}  // namespace kinetoscope::job
