#pragma once
// The `kinetoscope` command line: dispatches sub-commands (see DESIGN.md, "The CLI
// contract"). Exit codes: 0 success, 1 findings above --fail-on, 2 bad input or usage.
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope::cli {

enum ExitCode : int { kExitOk = 0, kExitFindings = 1, kExitBadInput = 2 };

int run(int argc, char** argv);
// Whether `name` is one of the command-line tools (info, summary, diagnose, help).
bool isCommand(std::string_view name);
// The same with explicit streams, for tests.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace kinetoscope::cli
