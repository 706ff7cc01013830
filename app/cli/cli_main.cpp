#include "app/cli/cli_main.h"

#include "app/cli/command_help.h"
#include "app/cli/diagnose_command.h"
#include "app/cli/diff_command.h"
#include "app/cli/end_like_script.h"
#include "app/cli/info_command.h"
#include "app/cli/memory_command.h"
#include "app/cli/profile_command.h"
#include "app/cli/run_command.h"
#include "app/cli/summary_command.h"

#include <algorithm>
#include <iostream>
#include <new>
#include <optional>

namespace kinetoscope::cli {

namespace {

int runCommand(const std::string& command, const std::vector<std::string>& rest, std::ostream& out,
               std::ostream& err)
{
    if (command == "info")
        return runInfo(rest, out, err);
    if (command == "summary")
        return runSummary(rest, out, err);
    if (command == "diagnose")
        return runDiagnose(rest, out, err);
    if (command == "diff")
        return runDiff(rest, out, err);
    if (command == "run")
        return runRun(rest, out, err);
    if (command == "memory")
        return runMemory(rest, out, err);
    if (command == "profile")
        return runProfile(rest, out, err);
    if (command == "report") {  // a build with the GUI draws it (app/gui); this one has no Qt
        err << "kinetoscope report: this build has no GUI (KINETOSCOPE_GUI=OFF) to draw the page; "
               "'kinetoscope diagnose --markdown' writes the findings\n";
        return kExitBadInput;
    }
    err << "kinetoscope: unknown command '" << command << "' (try 'kinetoscope help')\n";
    return kExitBadInput;
}

// `help`, `help COMMAND`, `COMMAND --help` (wherever the flag stands), `version`: printed,
// nothing run. nullopt when the arguments ask for none of them.
std::optional<int> answerHelp(const std::string& command, const std::vector<std::string>& rest,
                              std::ostream& out, std::ostream& err)
{
    if (command == "version" || command == "--version") {
        out << versionText();
        return kExitOk;
    }
    if (command == "help" || isHelpFlag(command)) {
        if (rest.empty() || isHelpFlag(rest[0])) {  // `help --help` asks for the same list
            out << usageText();
            return kExitOk;
        }
        const std::string help = commandHelp(rest[0]);
        if (help.empty()) {
            err << "kinetoscope help: no command named '" << rest[0]
                << "' (try 'kinetoscope help')\n";
            return kExitBadInput;
        }
        out << help;
        return kExitOk;
    }
    // Only the options before `--`: after it come another program's own (`kinetoscope
    // profile -- python train.py --help` runs the script's help).
    if (std::any_of(rest.begin(), std::find(rest.begin(), rest.end(), "--"),
                    [](const std::string& arg) { return isHelpFlag(arg); }))
        if (const std::string help = commandHelp(command); !help.empty()) {
            out << help;
            return kExitOk;
        }
    return std::nullopt;
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    if (args.empty()) {
        err << usageText();
        return kExitBadInput;
    }
    const std::string& command = args[0];
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (const std::optional<int> answered = answerHelp(command, rest, out, err))
        return *answered;
    try {
        return runCommand(command, rest, out, err);
    } catch (const std::bad_alloc&) {
        // Loading and analysis report this themselves; this is for whatever else runs out.
        err << "kinetoscope " << command << ": out of memory: free memory and try again\n";
        return kExitBadInput;
    }
}

bool isCommand(std::string_view name)
{
    return name == "info" || name == "summary" || name == "diagnose" || name == "diff" ||
           name == "run" || name == "profile" || name == "memory" || name == "report" ||
           name == "help" || isHelpFlag(name) || name == "version" || name == "--version";
}

bool asksForHelp(int argc, char** argv)
{
    for (int i = 1; i < argc && std::string_view(argv[i]) != "--"; ++i)
        if (isHelpFlag(argv[i]) || (i == 1 && (std::string_view(argv[i]) == "version" ||
                                               std::string_view(argv[i]) == "--version")))
            return true;
    return false;
}

int run(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    const int code = run(args, std::cout, std::cerr);
    endAsRecorded();  // (`profile` of a script that a signal ended: this process too)
    return code;
}

}  // namespace kinetoscope::cli
