#pragma once
// What `kinetoscope help`, `kinetoscope COMMAND --help` and `kinetoscope --version` print:
// one text per command, written once, so the overview and each command's own help never
// disagree.
#include <string>
#include <string_view>

namespace kinetoscope::cli {

// The overview of every command (`kinetoscope help`).
std::string usageText();
// One command's help (`kinetoscope diagnose --help`): usage, what it does, every option,
// an example. Empty for a name that is not a command.
std::string commandHelp(std::string_view command);
// A first word that is neither a command nor a file: "unknown command", the closest
// command when one is a typo away, and the list of commands; ends with a newline.
std::string unknownCommandText(std::string_view word);
// "kinetoscope 0.1.0" and what it was built with.
std::string versionText();

// Whether `arg` asks for help.
inline bool isHelpFlag(std::string_view arg)
{
    return arg == "--help" || arg == "-h";
}

}  // namespace kinetoscope::cli
