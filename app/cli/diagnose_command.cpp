#include "app/cli/diagnose_command.h"

#include "app/cli/cli_main.h"
#include "app/cli/diagnose_report.h"
#include "app/cli/job_report.h"
#include "app/cli/json_output.h"
#include "app/cli/threads_option.h"
#include "core/document/document.h"
#include "core/job/job_rules.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

namespace kinetoscope::cli {

namespace {

enum class Format
{
    Text,
    Json,
    Markdown
};

// Several traces, or a folder of them: one job, diagnosed as a whole.
int diagnoseJob(const std::vector<std::string>& paths, const document::OpenOptions& options,
                const job::JobOptions& reading, const job::JobRuleOptions& rules, Format format,
                std::optional<analysis::Severity> failOn, std::ostream& out, std::ostream& err)
{
    std::string error;
    const std::optional<job::Job> job = job::openJobPaths(paths, options, error, reading);
    if (!job) {
        err << "kinetoscope: " << error << '\n';
        return kExitBadInput;
    }
    err << jobNotes(*job);
    if (const std::optional<std::string> notOneJob = job::whyNotOneJob(*job)) {
        // Separate runs: each diagnosed on its own, never as ranks of one job.
        err << "kinetoscope diagnose: these " << job->ranks.size() << " traces are " << *notOneJob
            << ": each is diagnosed on its own\n";
        nlohmann::json traces = nlohmann::json::array();
        bool failed = false;
        for (const job::Rank& r : job->ranks) {
            // One document at a time: a large job kept none.
            const std::shared_ptr<const document::Document> doc = job::rankDocument(r, options);
            if (!doc->model) {
                err << "kinetoscope: " << r.path << ": " << doc->loadMessage << '\n';
                return kExitBadInput;
            }
            const document::Document& d = *doc;
            switch (format) {
            case Format::Json:
                traces.push_back(diagnosisJson(d.path, d.findings, &d.summary));
                break;
            case Format::Markdown:
                out << diagnosisMarkdown(d.path, d.findings, &d.summary) << "\n";
                break;
            case Format::Text:
                out << diagnosisText(d.path, d.findings, &d.summary) << "\n";
                break;
            }
            for (const analysis::Finding& f : d.findings)
                failed |= failOn && f.severity >= *failOn;
        }
        if (format == Format::Json)
            out << jsonOutput({{"not_one_job", *notOneJob}, {"traces", traces}}) << '\n';
        return failed ? kExitFindings : kExitOk;
    }
    const std::vector<analysis::Finding> findings = job::diagnoseJob(*job, rules);
    switch (format) {
    case Format::Json:
        out << jsonOutput(jobDiagnosisJson(*job, findings)) << '\n';
        break;
    case Format::Markdown:
        out << jobDiagnosisMarkdown(*job, findings);
        break;
    case Format::Text:
        out << jobDiagnosisText(*job, findings);
        break;
    }
    if (failOn)
        for (const analysis::Finding& f : findings)
            if (f.severity >= *failOn)
                return kExitFindings;
    return kExitOk;
}

}  // namespace

int runDiagnose(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    Format format = Format::Text;
    std::string path;
    std::vector<std::string> paths;  // several, or a folder, make a job
    job::JobRuleOptions jobRules;
    std::optional<analysis::Severity> failOn;
    document::OpenOptions options;
    job::JobOptions reading;
    reading.keepDocumentsUpTo = kJobDocumentsKept;
    analysis::Thresholds& thresholds = options.thresholds;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        const bool hasValue = i + 1 < args.size();
        if (arg == "--json") {
            format = Format::Json;
        } else if (arg == "--markdown") {
            format = Format::Markdown;
        } else if (arg == "--no-digests") {
            reading.digests = false;
        } else if (arg == "--fail-on" && hasValue) {
            analysis::Severity severity;
            if (!analysis::parseSeverity(args[++i], severity)) {
                err << "kinetoscope diagnose: --fail-on takes low, medium or high, not '" << args[i]
                    << "'\n";
                return kExitBadInput;
            }
            failOn = severity;
        } else if (arg == "--threshold" && hasValue) {
            const std::string& setting = args[++i];
            const size_t eq = setting.find('=');
            double value = 0;
            try {
                if (eq == std::string::npos)
                    throw std::invalid_argument("no '='");
                value = std::stod(setting.substr(eq + 1));
            } catch (const std::exception&) {
                err << "kinetoscope diagnose: --threshold takes NAME=NUMBER, not '" << setting
                    << "'\n";
                return kExitBadInput;
            }
            if (!thresholds.set(setting.substr(0, eq), value)) {
                const std::string name = setting.substr(0, eq);
                if (name.ends_with("_high"))  // retired: a finding's severity follows its gain
                    err << "kinetoscope diagnose: the threshold '" << name
                        << "' is gone: a time finding's severity "
                        << "comes from its gain's share of the step (docs/diagnosis.md)\n";
                else
                    err << "kinetoscope diagnose: no threshold named '" << name
                        << "' (see docs/diagnosis.md)\n";
                return kExitBadInput;
            }
        } else if (arg == "--step-marker" && hasValue) {
            options.summary.steps.marker = args[++i];
        } else if (arg == kThreadsOption) {
            if (!readThreadsOption(args, i, "diagnose", err, options.threads))
                return kExitBadInput;
        } else if (arg == "--link-gbps" && hasValue) {
            try {
                jobRules.linkBytesPerS = std::stod(args[++i]) * 1e9;
            } catch (const std::exception&) {
                jobRules.linkBytesPerS = -1;
            }
            if (!(jobRules.linkBytesPerS > 0)) {
                err << "kinetoscope diagnose: --link-gbps takes a positive number of GB/s, not '"
                    << args[i] << "'\n";
                return kExitBadInput;
            }
        } else if (arg.starts_with("-")) {
            err << "kinetoscope diagnose: unknown option or missing value: '" << arg << "'\n";
            return kExitBadInput;
        } else {
            paths.push_back(arg);
            if (path.empty())
                path = arg;
        }
    }
    if (job::isJob(paths))
        return diagnoseJob(paths, options, reading, jobRules, format, failOn, out, err);
    if (path.empty()) {
        err << "kinetoscope diagnose: which trace? usage: kinetoscope diagnose TRACE|SESSION "
               "[--json|--markdown] "
               "[--fail-on low|medium|high] [--threshold NAME=VALUE] [--step-marker NAME] "
               "[--threads N]\n";
        return kExitBadInput;
    }
    const auto analysed = document::open(path, options);
    if (!analysed->model && !analysed->ok()) {
        err << "kinetoscope: " << path << ": " << analysed->loadMessage << '\n';
        return kExitBadInput;
    }
    // A lab session recorded without a trace: its measured findings, no trace summary.
    const analysis::TraceSummary* summary = analysed->hasTrace() ? &analysed->summary : nullptr;
    const std::vector<analysis::Finding>& findings = analysed->findings;
    switch (format) {
    case Format::Json:
        out << jsonOutput(diagnosisJson(path, findings, summary)) << '\n';
        break;
    case Format::Markdown:
        out << diagnosisMarkdown(path, findings, summary);
        break;
    case Format::Text:
        out << diagnosisText(path, findings, summary);
        break;
    }
    if (analysed->loadStatus != trace::LoadStatus::Ok) {
        err << "kinetoscope: " << path << ": " << analysed->loadMessage << '\n';
        return kExitBadInput;
    }
    if (failOn)
        for (const analysis::Finding& f : findings)
            if (f.severity >= *failOn)
                return kExitFindings;
    return kExitOk;
}

}  // namespace kinetoscope::cli
