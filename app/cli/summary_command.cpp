#include "app/cli/summary_command.h"

#include "app/cli/cli_main.h"
#include "app/cli/csv_tables.h"
#include "app/cli/job_report.h"
#include "app/cli/json_output.h"
#include "app/cli/lab_report.h"
#include "app/cli/summary_report.h"
#include "app/cli/threads_option.h"
#include "core/document/document.h"
#include "core/job/digest.h"
#include "core/session/session.h"

#include <charconv>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>

namespace kinetoscope::cli {

namespace {

// The rank files `--digest` writes a digest for: a trace or session file as given; a rank
// folder (OUT/rank-K, what `srun kinetoscope summary OUT/rank-$SLURM_PROCID --digest` names)
// its session, else its trace; any other folder every rank of the job in it.
std::vector<std::string> digestTargets(const std::vector<std::string>& paths, std::string& error)
{
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    for (const std::string& path : paths) {
        std::error_code ec;
        if (!fs::is_directory(path, ec)) {
            files.push_back(path);
            continue;
        }
        bool rankFolder = false;
        for (const char* name : {"session.kinetoscope.json", "trace.json"})
            if (!rankFolder && fs::is_regular_file(fs::path(path) / name, ec)) {
                files.push_back((fs::path(path) / name).string());
                rankFolder = true;
            }
        if (rankFolder)
            continue;
        const std::vector<std::string> ranks = job::jobFiles({path}, error);
        if (ranks.empty())
            return {};
        const size_t before = files.size();
        for (const std::string& rank : ranks)
            if (!job::isDigestPath(rank))  // a digest whose trace is elsewhere: nothing to read
                files.push_back(rank);
        if (files.size() == before) {
            error = path + ": only digests here, no trace to write one from";
            return {};
        }
    }
    return files;
}

// `summary PATH... --digest`: each rank's digest written beside its trace, one line each;
// every rank is tried, and a rank that cannot be read fails the command at the end.
int writeDigests(const std::vector<std::string>& paths, unsigned threads, std::ostream& out,
                 std::ostream& err)
{
    std::string error;
    const std::vector<std::string> files = digestTargets(paths, error);
    if (files.empty()) {
        err << "kinetoscope: " << error << '\n';
        return kExitBadInput;
    }
    int exit = kExitOk;
    for (const std::string& file : files) {
        if (const std::optional<std::string> written = job::writeRankDigest(file, error, threads)) {
            out << *written << '\n';
        } else {
            err << "kinetoscope: " << error << '\n';
            exit = kExitBadInput;
        }
    }
    return exit;
}

}  // namespace

int runSummary(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::string path;
    std::vector<std::string> paths;  // every path given: several, or a folder, make a job
    bool asJson = false;
    std::string csvTable;  // --csv TABLE: that table alone, as CSV
    SummaryReportOptions report;
    document::OpenOptions options;
    bool digest = false;  // --digest: write each rank's digest instead
    job::JobOptions reading;
    reading.keepDocumentsUpTo = kJobDocumentsKept;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg == "--json") {
            asJson = true;
        } else if (arg == "--digest") {
            digest = true;
        } else if (arg == "--no-digests") {
            reading.digests = false;
        } else if (arg == "--csv") {
            csvTable = i + 1 < args.size() ? args[++i] : std::string();
            if (!isTraceCsvTable(csvTable) && !isJobCsvTable(csvTable)) {
                err << "kinetoscope summary: --csv needs a table: " << kTraceCsvTables
                    << " (a trace), or " << kJobCsvTables << " (a job)\n";
                return kExitBadInput;
            }
        } else if (arg == "--series") {
            report.includeSeries = true;
        } else if (arg == "--memory-points") {
            const std::string value = i + 1 < args.size() ? args[++i] : std::string();
            size_t points = 0;
            const auto [end, error] =
                std::from_chars(value.data(), value.data() + value.size(), points);
            if (error != std::errc() || end != value.data() + value.size() || points < 2) {
                err << "kinetoscope summary: --memory-points needs a number of points, at least "
                       "2\n";
                return kExitBadInput;
            }
            report.memoryPoints = points;
        } else if (arg == "--step-marker") {
            if (i + 1 == args.size() || args[i + 1].empty()) {
                err << "kinetoscope summary: --step-marker needs a name\n";
                return kExitBadInput;
            }
            options.summary.steps.marker = args[++i];
        } else if (arg == kThreadsOption) {
            if (!readThreadsOption(args, i, "summary", err, options.threads))
                return kExitBadInput;
        } else if (arg.starts_with("-")) {
            err << "kinetoscope summary: unknown option '" << arg << "'\n";
            return kExitBadInput;
        } else {
            paths.push_back(arg);
            if (path.empty())
                path = arg;
        }
    }
    if (digest) {
        if (asJson || !csvTable.empty() || report.includeSeries ||
            options.summary.steps.marker != analysis::StepOptions{}.marker || !reading.digests) {
            err << "kinetoscope summary: --digest writes each rank's digest (with the default "
                   "reading): it takes no --json, --csv, --series, --step-marker or "
                   "--no-digests\n";
            return kExitBadInput;
        }
        if (paths.empty()) {
            err << "kinetoscope summary: --digest needs a trace, a session or a folder of ranks\n";
            return kExitBadInput;
        }
        return writeDigests(paths, options.threads, out, err);
    }
    // The series are JSON arrays for plotting: the text has the figures they make.
    if (report.includeSeries && !asJson)
        err << "kinetoscope summary: --series adds the utilisation and memory series to --json "
               "output; "
               "without --json it changes nothing\n";
    if (!csvTable.empty() && asJson) {
        err << "kinetoscope summary: --csv and --json each choose the output: give one\n";
        return kExitBadInput;
    }
    const bool isJob = job::isJob(paths);
    if (!csvTable.empty() && isJob != isJobCsvTable(csvTable)) {
        err << "kinetoscope summary: the " << csvTable << " table is "
            << (isJob ? "a trace's" : "a job's") << "; " << (isJob ? "a job has " : "a trace has ")
            << (isJob ? kJobCsvTables : kTraceCsvTables) << "\n";
        return kExitBadInput;
    }
    if (isJob) {
        std::string error;
        const std::optional<job::Job> job = job::openJobPaths(paths, options, error, reading);
        if (!job) {
            err << "kinetoscope: " << error << '\n';
            return kExitBadInput;
        }
        err << jobNotes(*job);
        if (const std::optional<std::string> notOneJob = job::whyNotOneJob(*job);
            notOneJob && !csvTable.empty()) {
            err << "kinetoscope summary: these " << job->ranks.size() << " traces are "
                << *notOneJob << ": no " << csvTable
                << " table of one job (summarise each trace on its own)\n";
            return kExitBadInput;
        }
        if (const std::optional<std::string> notOneJob = job::whyNotOneJob(*job)) {
            // Separate runs: each summarised on its own, never merged into a job.
            err << "kinetoscope summary: these " << job->ranks.size() << " traces are "
                << *notOneJob << ": each is summarised on its own\n";
            nlohmann::json traces = nlohmann::json::array();
            for (const job::Rank& r : job->ranks) {
                // One document at a time: the job kept none.
                const auto doc = job::rankDocument(r, options);
                if (!doc->model) {
                    err << "kinetoscope: " << r.path << ": " << doc->loadMessage << '\n';
                    return kExitBadInput;
                }
                if (asJson)
                    traces.push_back(summaryJson(doc->path, doc->loadResult(), doc->summary,
                                                 doc->analysisSeconds, report));
                else
                    out << summaryText(doc->path, doc->loadResult(), doc->summary,
                                       doc->analysisSeconds, report)
                        << "\n";
            }
            if (asJson)
                out << jsonOutput({{"not_one_job", *notOneJob}, {"traces", traces}}) << '\n';
            return kExitOk;
        }
        if (!csvTable.empty())
            out << jobCsv(csvTable, *job);
        else
            out << (asJson ? jsonOutput(jobJson(*job)) + "\n" : jobText(*job));
        return kExitOk;
    }
    if (path.empty()) {
        err << "kinetoscope summary: which trace? usage: kinetoscope summary TRACE [--json] "
               "[--series] [--memory-points N] [--step-marker NAME] [--threads N]\n";
        return kExitBadInput;
    }
    const auto opened = document::open(path, options);
    if (!opened->model && !opened->ok()) {
        err << "kinetoscope: " << path << ": " << opened->loadMessage << '\n';
        return kExitBadInput;
    }
    if (!opened->hasTrace() && !csvTable.empty()) {
        err << "kinetoscope summary: " << path << " is a session recorded without a trace: no "
            << csvTable << " table (" << session::noTraceAdvice(*opened->session) << ")\n";
        return kExitBadInput;
    }
    if (!opened->hasTrace()) {  // a lab session recorded without a trace: what it measured
        if (asJson)
            out << jsonOutput(labSessionJson(path, *opened->session)) << '\n';
        else
            out << path << "\nA session recorded without a trace ("
                << session::noTraceAdvice(*opened->session) << "):\n\n"
                << labText(*opened->session);
        return kExitOk;
    }
    const trace::LoadResult loaded = opened->loadResult();
    const analysis::TraceSummary& summary = opened->summary;
    const double seconds = opened->analysisSeconds;
    if (options.summary.steps.marker != "ProfilerStep#" && !summary.steps.fromMarkers) {
        err << "kinetoscope summary: no event named '" << options.summary.steps.marker << "*' in "
            << path << "\n";
        return kExitBadInput;
    }
    if (!csvTable.empty())
        out << traceCsv(csvTable, summary, opened->model->beginNs());
    else if (asJson)
        out << jsonOutput(summaryJson(path, loaded, summary, seconds, report)) << '\n';
    else
        out << summaryText(path, loaded, summary, seconds, report);
    if (!asJson && csvTable.empty() && opened->session)
        out << "\nWhat the lab measured\n" << labText(*opened->session);
    if (!loaded.ok()) {
        err << "kinetoscope: " << path << ": " << loaded.message << '\n';
        return kExitBadInput;
    }
    return kExitOk;
}

}  // namespace kinetoscope::cli
