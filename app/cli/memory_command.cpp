#include "app/cli/memory_command.h"

#include "app/cli/cli_main.h"
#include "app/cli/json_output.h"
#include "app/cli/memory_report.h"

#include <nlohmann/json.hpp>

#include <ostream>

namespace kinetoscope::cli {

int runMemory(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::string path;
    bool asJson = false, asMarkdown = false;
    for (const std::string& arg : args) {
        if (arg == "--json") {
            asJson = true;
        } else if (arg == "--markdown") {
            asMarkdown = true;
        } else if (arg.starts_with("-")) {
            err << "kinetoscope memory: unknown option '" << arg << "'\n";
            return kExitBadInput;
        } else if (path.empty()) {
            path = arg;
        } else {
            err << "kinetoscope memory: one snapshot at a time ('" << arg << "' is extra)\n";
            return kExitBadInput;
        }
    }
    if (path.empty() || (asJson && asMarkdown)) {
        err << "kinetoscope memory: usage: kinetoscope memory SNAPSHOT [--json|--markdown]\n";
        return kExitBadInput;
    }
    const snapshot::LoadedSnapshot loaded = snapshot::loadSnapshotFile(path);
    if (!loaded.model) {
        err << "kinetoscope memory: " << path << ": " << loaded.error << '\n';
        return kExitBadInput;
    }
    const snapshot::SnapshotSummary summary = snapshot::summarize(*loaded.model);
    if (asJson)
        out << jsonOutput(memoryJson(path, *loaded.model, summary)) << '\n';
    else
        out << memoryText(path, *loaded.model, summary, asMarkdown);
    return kExitOk;
}

}  // namespace kinetoscope::cli
