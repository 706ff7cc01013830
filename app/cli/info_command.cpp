#include "app/cli/info_command.h"

#include "app/cli/cli_main.h"
#include "app/cli/info_report.h"
#include "app/cli/json_output.h"
#include "app/cli/threads_option.h"
#include "core/document/document.h"
#include "core/session/session.h"

#include <nlohmann/json.hpp>
#include <ostream>

namespace kinetoscope::cli {

int runInfo(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::string path;
    bool asJson = false;
    document::OpenOptions options;
    options.depth = document::Depth::Read;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg == "--json") {
            asJson = true;
        } else if (arg == kThreadsOption) {
            if (!readThreadsOption(args, i, "info", err, options.threads))
                return kExitBadInput;
        } else if (arg.starts_with("-")) {
            err << "kinetoscope info: unknown option '" << arg << "'\n";
            return kExitBadInput;
        } else if (path.empty()) {
            path = arg;
        } else {
            err << "kinetoscope info: one trace at a time ('" << arg << "' is extra)\n";
            return kExitBadInput;
        }
    }
    if (path.empty()) {
        err << "kinetoscope info: which trace? usage: kinetoscope info TRACE [--json] [--threads "
               "N]\n";
        return kExitBadInput;
    }

    const auto opened = document::open(path, options);
    if (opened->ok() && !opened->hasTrace()) {  // a lab session recorded without a trace
        const std::string what =
            "a session recorded without a trace (" +
            (opened->session ? session::noTraceAdvice(*opened->session) : session::kNoTraceAdvice) +
            "); its measurements: kinetoscope summary " + path;
        if (asJson)
            out << jsonOutput(
                       {{"source", path}, {"session", true}, {"trace", false}, {"note", what}})
                << '\n';
        else
            out << path << ": " << what << "\n";
        return kExitOk;
    }
    const trace::LoadResult result = opened->loadResult();
    if (result.model) {
        if (asJson)
            out << jsonOutput(infoJson(path, result)) << '\n';
        else
            out << infoText(path, result);
    }
    if (!result.ok()) {
        err << "kinetoscope: " << path << ": " << result.message << '\n';
        return kExitBadInput;
    }
    return kExitOk;
}

}  // namespace kinetoscope::cli
