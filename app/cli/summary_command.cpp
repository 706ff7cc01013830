#include "app/cli/summary_command.h"

#include "app/cli/cli_main.h"
#include "app/cli/csv_tables.h"
#include "app/cli/job_report.h"
#include "app/cli/json_output.h"
#include "app/cli/lab_report.h"
#include "app/cli/summary_report.h"
#include "app/cli/threads_option.h"
#include "core/document/document.h"
#include "core/session/session.h"

#include <charconv>
#include <nlohmann/json.hpp>
#include <ostream>

namespace kinetoscope::cli {

int runSummary(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::string path;
    std::vector<std::string> paths;  // every path given: several, or a folder, make a job
    bool asJson = false;
    std::string csvTable;  // --csv TABLE: that table alone, as CSV
    SummaryReportOptions report;
    document::OpenOptions options;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg == "--json") {
            asJson = true;
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
        const std::optional<job::Job> job = job::openJobPaths(paths, options, error);
        if (!job) {
            err << "kinetoscope: " << error << '\n';
            return kExitBadInput;
        }
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
                if (asJson)
                    traces.push_back(summaryJson(r.doc->path, r.doc->loadResult(), r.doc->summary,
                                                 r.doc->analysisSeconds, report));
                else
                    out << summaryText(r.doc->path, r.doc->loadResult(), r.doc->summary,
                                       r.doc->analysisSeconds, report)
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
            << csvTable << " table (" << session::kNoTraceAdvice << ")\n";
        return kExitBadInput;
    }
    if (!opened->hasTrace()) {  // a lab session recorded without a trace: what it measured
        if (asJson)
            out << jsonOutput(labSessionJson(path, *opened->session)) << '\n';
        else
            out << path << "\nA session recorded without a trace (" << session::kNoTraceAdvice
                << "):\n\n"
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
