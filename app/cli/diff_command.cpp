#include "app/cli/diff_command.h"

#include "app/cli/cli_main.h"
#include "app/cli/diff_report.h"
#include "app/cli/json_output.h"
#include "app/cli/threads_option.h"
#include "core/compare/comparison_markdown.h"

#include <charconv>
#include <ostream>

namespace kinetoscope::cli {

namespace {

constexpr const char* kDiffUsage = "usage: kinetoscope diff BEFORE AFTER [--json|--markdown] "
                                   "[--fail-on-regression PCT] [--step-marker NAME] "
                                   "[--threads N]";

bool parsePercent(const std::string& text, double& value)
{
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    return error == std::errc() && end == text.data() + text.size() && value >= 0 && value < 1e6;
}

}  // namespace

int runDiff(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    enum class Format
    {
        Text,
        Json,
        Markdown
    } format = Format::Text;
    std::vector<std::string> paths;
    std::optional<double> failOnPercent;
    document::OpenOptions options;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        const bool hasValue = i + 1 < args.size();
        if (arg == "--json") {
            format = Format::Json;
        } else if (arg == "--markdown") {
            format = Format::Markdown;
        } else if (arg == "--fail-on-regression" && hasValue) {
            double percent = 0;
            if (!parsePercent(args[++i], percent)) {
                err << "kinetoscope diff: --fail-on-regression takes a percentage (e.g. 5), not '"
                    << args[i] << "'\n";
                return kExitBadInput;
            }
            failOnPercent = percent;
        } else if (arg == "--step-marker" && hasValue) {
            options.summary.steps.marker = args[++i];
        } else if (arg == kThreadsOption) {
            if (!readThreadsOption(args, i, "diff", err, options.threads))
                return kExitBadInput;
        } else if (arg.starts_with("-")) {
            err << "kinetoscope diff: unknown option or missing value: '" << arg << "'\n";
            return kExitBadInput;
        } else {
            paths.push_back(arg);
        }
    }
    if (paths.size() != 2) {
        err << "kinetoscope diff: "
            << (paths.size() < 2 ? "two files are needed. " : "two files, not more. ") << kDiffUsage
            << "\n";
        return kExitBadInput;
    }
    std::string error;
    const compare::CompareInput input = compare::openBoth(paths[0], paths[1], options, error);
    if (!input.before) {
        err << "kinetoscope: " << error << '\n';
        return kExitBadInput;
    }
    const compare::Comparison comparison = compare::compareDocuments(*input.before, *input.after);
    switch (format) {
    case Format::Json:
        out << jsonOutput(comparisonJson(comparison)) << '\n';
        break;
    case Format::Markdown:
        out << compare::comparisonMarkdown(comparison);
        break;
    case Format::Text:
        out << comparisonText(comparison);
        break;
    }
    if (failOnPercent && comparison.slowerBeyond(*failOnPercent / 100.0))
        return kExitFindings;
    return kExitOk;
}

}  // namespace kinetoscope::cli
