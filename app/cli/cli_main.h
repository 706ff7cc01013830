#pragma once
// The `kinetoscope` command line: dispatches sub-commands (see DESIGN.md, "The CLI
// contract"). Exit codes: 0 success, 1 findings above --fail-on, 2 bad input or usage,
// a lab cancelled by signal N ends by N once its report is out (a shell shows 128 + N).
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope::cli {

// A lab stopped by a signal ends by that signal, what was measured kept and reported
// (InterruptCancels::endByTheSignal(); a shell shows 128 + N, 130 for Ctrl-C).
enum ExitCode : int
{
    kExitOk = 0,
    kExitFindings = 1,
    kExitBadInput = 2
};

int run(int argc, char** argv);
// Whether `name` is one of the command-line tools (info, summary, ..., help, version).
bool isCommand(std::string_view name);
// Whether the command line asks for help (--help, -h anywhere) or the version: answered by
// run() without starting anything.
bool asksForHelp(int argc, char** argv);
// The same with explicit streams, for tests.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace kinetoscope::cli
