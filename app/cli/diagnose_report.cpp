#include "app/cli/diagnose_report.h"

#include "core/analysis/diagnosis/finding_text.h"
#include "core/format/format.h"
#include "core/session/session.h"

#include <nlohmann/json.hpp>
#include <sstream>

namespace kinetoscope::cli {

using nlohmann::json;
using namespace kinetoscope::analysis;

namespace {

// What the trace is, then the steps judged (when the window can be judged at all); a lab
// session recorded without a trace (no summary) says what its findings rest on.
std::string stepLine(const TraceSummary* s)
{
    if (!s)
        return std::string("What this is: a session recorded without a trace: the findings are "
                           "what was measured; ") +
               session::kNoTraceAdvice;
    std::string line = "What this trace is: " + s->window.headline();
    if (!s->window.diagnosable())
        return line;
    return line + "; judged over " + format::count(s->steps.steps.size()) +
           (s->steps.source == StepSource::Window ? " window" : " steady steps") + " of " +
           format::duration(s->breakdown.all.averageTotalNs) + " on average";
}

}  // namespace

namespace {

// The JSON lists names (event ids are positions in this process's model, not data).
std::vector<std::string> names(const std::vector<EvidenceTarget>& targets)
{
    std::vector<std::string> out;
    out.reserve(targets.size());
    for (const EvidenceTarget& t : targets)
        out.push_back(t.name);
    return out;
}

}  // namespace

json findingsJson(const std::vector<Finding>& findings)
{
    json list = json::array();
    for (const Finding& f : findings) {
        json figures = json::object(), units = json::object();
        for (const Evidence::Figure& fig : f.evidence.figures) {
            figures[fig.name] = fig.value;
            units[fig.name] = unitKey(fig.unit);
        }
        json ranges = json::array();
        for (const TimeRange& r : f.evidence.ranges)
            ranges.push_back({double(r.begin) / 1e3, double(r.end) / 1e3});
        list.push_back(
            {{"id", f.id},
             {"severity", severityName(f.severity)},
             {"severity_from", f.measured                             ? "measured gain"
                               : f.basis == SeverityBasis::Own        ? "rule"
                               : f.basis == SeverityBasis::DeviceGain ? "gain, device side"
                                                                      : "gain"},
             {"title", f.title},
             {"explanation", f.explanation},
             {"evidence",
              {{"figures", figures},
               {"units", units},
               {"steps", f.evidence.steps},
               {"ranges_us", ranges},
               {"ops", names(f.evidence.ops)},
               {"kernels", names(f.evidence.kernels)}}},
             {"estimated_gain_us", f.estimatedGainNs / 1e3},
             {"gain_per", f.perBatch ? "batch" : "step"},
             {"measured", f.measured},
             {"about_window", f.aboutWindow},
             {"gain_method", f.gainMethod},
             {"fix", f.fix},
             {"snippet", f.snippet}});
    }
    return list;
}

json diagnosisJson(const std::string& source, const std::vector<Finding>& findings,
                   const TraceSummary* summary)
{
    const json list = findingsJson(findings);
    if (!summary)  // a lab session without a trace: its measured findings only
        return {{"source", source},        {"trace", false},       {"window", nullptr},
                {"run_kind", nullptr},     {"diagnosable", false}, {"steps", nullptr},
                {"step_time_us", nullptr}, {"findings", list}};
    return {{"source", source},
            {"trace", true},
            {"window", summary->window.headline()},
            {"run_kind", runKindName(summary->window.kind)},
            {"diagnosable", summary->window.diagnosable()},
            {"steps", summary->steps.steps.size()},
            {"step_time_us", summary->breakdown.all.averageTotalNs / 1e3},
            {"findings", list}};
}

std::string findingsMarkdown(const std::vector<Finding>& findings)
{
    std::ostringstream out;
    out << "| # | Severity | Finding | Estimated gain |\n|---|---|---|---|\n";
    for (size_t i = 0; i < findings.size(); ++i)
        out << "| " << i + 1 << " | " << severityName(findings[i].severity) << " | "
            << findings[i].title << " (`" << findings[i].id << "`) | " << gainText(findings[i])
            << " |\n";
    for (size_t i = 0; i < findings.size(); ++i) {
        const Finding& f = findings[i];
        out << "\n## " << i + 1 << ". " << f.title << "\n\n`" << f.id << "` · severity **"
            << severityName(f.severity) << "** · " << gainLabel(f) << " (" << f.gainMethod
            << ")\n\n"
            << f.explanation << "\n\n**Evidence**\n\n";
        for (const Evidence::Figure& fig : f.evidence.figures)
            out << "- " << figureLabel(fig) << ": " << figureValue(fig) << "\n";
        if (!f.evidence.steps.empty()) {
            out << "- steps:";
            for (const std::string& s : f.evidence.steps)
                out << " " << s;
            out << "\n";
        }
        for (const EvidenceTarget& op : f.evidence.ops)
            out << "- op: `" << targetText(op) << "`\n";
        for (const EvidenceTarget& k : f.evidence.kernels)
            out << "- kernel: `" << targetText(k) << "`\n";
        out << "\n**Fix.** " << f.fix << "\n";
        if (!f.snippet.empty())
            out << "\n```python\n"
                << f.snippet << (f.snippet.ends_with('\n') ? "" : "\n") << "```\n";
    }
    return out.str();
}

std::string diagnosisMarkdown(const std::string& source, const std::vector<Finding>& findings,
                              const TraceSummary* summary)
{
    std::ostringstream out;
    out << "# Diagnosis of `" << source << "`\n\n" << stepLine(summary) << ".\n\n";
    if (findings.empty()) {
        out << (summary ? "No finding: nothing in this trace crosses a rule's threshold.\n"
                        : "No finding: nothing the lab measured crosses a rule's threshold.\n");
        return out.str();
    }
    out << findingsMarkdown(findings);
    return out.str();
}

std::string findingsText(const std::vector<Finding>& findings)
{
    std::ostringstream out;
    for (size_t i = 0; i < findings.size(); ++i) {
        const Finding& f = findings[i];
        std::string severity = severityName(f.severity);
        for (char& c : severity)
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        out << i + 1 << ". [" << severity << "] " << f.title << "  (" << f.id << ")\n";
        out << "   " << f.explanation << "\n   evidence:";
        for (const Evidence::Figure& fig : f.evidence.figures)
            out << " " << figureLabel(fig) << " " << figureValue(fig) << ";";
        out << "\n";
        if (!f.evidence.ops.empty())
            out << "   ops: " << targetText(f.evidence.ops.front())
                << (f.evidence.ops.size() > 1 ? ", ..." : "") << "\n";
        out << "   " << gainLabel(f) << " (" << f.gainMethod << ")\n   fix: " << f.fix << "\n";
        std::istringstream snippet(f.snippet);
        for (std::string line; std::getline(snippet, line);)
            out << "     | " << line << "\n";
        out << "\n";
    }
    return out.str();
}

std::string diagnosisText(const std::string& source, const std::vector<Finding>& findings,
                          const TraceSummary* summary)
{
    std::ostringstream out;
    out << source << "\n" << stepLine(summary) << "\n\n";
    if (findings.empty()) {
        out << (summary ? "No finding: nothing in this trace crosses a rule's threshold.\n"
                        : "No finding: nothing the lab measured crosses a rule's threshold.\n");
        return out.str();
    }
    out << findingsText(findings);
    return out.str();
}

}  // namespace kinetoscope::cli
