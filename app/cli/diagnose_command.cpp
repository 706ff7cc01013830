#include "app/cli/diagnose_command.h"

#include "app/cli/cli_main.h"
#include "app/cli/json_output.h"
#include "app/cli/diagnose_report.h"
#include "core/document/document.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>

namespace kinetoscope::cli {

int runDiagnose(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    enum class Format { Text, Json, Markdown } format = Format::Text;
    std::string path;
    std::optional<analysis::Severity> failOn;
    document::OpenOptions options;
    analysis::Thresholds& thresholds = options.thresholds;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        const bool hasValue = i + 1 < args.size();
        if (arg == "--json") {
            format = Format::Json;
        } else if (arg == "--markdown") {
            format = Format::Markdown;
        } else if (arg == "--fail-on" && hasValue) {
            analysis::Severity severity;
            if (!analysis::parseSeverity(args[++i], severity)) {
                err << "kinetoscope diagnose: --fail-on takes low, medium or high, not '" << args[i] << "'\n";
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
                err << "kinetoscope diagnose: --threshold takes NAME=NUMBER, not '" << setting << "'\n";
                return kExitBadInput;
            }
            if (!thresholds.set(setting.substr(0, eq), value)) {
                err << "kinetoscope diagnose: no threshold named '" << setting.substr(0, eq)
                    << "' (see docs/diagnosis.md)\n";
                return kExitBadInput;
            }
        } else if (arg == "--step-marker" && hasValue) {
            options.summary.steps.marker = args[++i];
        } else if (arg.starts_with("-")) {
            err << "kinetoscope diagnose: unknown option or missing value: '" << arg << "'\n";
            return kExitBadInput;
        } else if (path.empty()) {
            path = arg;
        } else {
            err << "kinetoscope diagnose: one trace at a time ('" << arg << "' is extra)\n";
            return kExitBadInput;
        }
    }
    if (path.empty()) {
        err << "kinetoscope diagnose: which trace? usage: kinetoscope diagnose TRACE|SESSION [--json|--markdown] "
               "[--fail-on low|medium|high] [--threshold NAME=VALUE] [--step-marker NAME]\n";
        return kExitBadInput;
    }
    const auto analysed = document::open(path, options);
    if (!analysed->model) {
        err << "kinetoscope: " << path << ": " << analysed->loadMessage << '\n';
        return kExitBadInput;
    }
    const analysis::TraceSummary& summary = analysed->summary;
    const std::vector<analysis::Finding>& findings = analysed->findings;
    switch (format) {
    case Format::Json: out << jsonOutput(diagnosisJson(path, findings, summary)) << '\n'; break;
    case Format::Markdown: out << diagnosisMarkdown(path, findings, summary); break;
    case Format::Text: out << diagnosisText(path, findings, summary); break;
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
