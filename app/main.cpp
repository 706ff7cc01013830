// `kinetoscope`: the command-line tools when the first argument names one, else the GUI
// (in a build without the GUI, KINETOSCOPE_GUI=OFF, the command line only).
#include "app/cli/cli_main.h"
#include "app/cli/command_help.h"
#if KINETOSCOPE_HAVE_GUI
#include "app/gui/gui_main.h"
#endif

#include <filesystem>
#include <iostream>
#include <string_view>

namespace {

// A first word that is neither a command, an option nor something on disk is a mistyped
// command (`kinetoscope summry TRACE`), not a file for the app to open.
bool unknownCommand(std::string_view first)
{
    std::error_code ec;
    return !first.empty() && first[0] != '-' && !kinetoscope::cli::isCommand(first) &&
           !std::filesystem::exists(std::filesystem::path(first), ec);
}

}  // namespace

int main(int argc, char** argv)
{
    const std::string_view command = argc > 1 ? argv[1] : "";
    if (unknownCommand(command)) {
        std::cerr << kinetoscope::cli::unknownCommandText(command);
        return kinetoscope::cli::kExitBadInput;
    }
#if KINETOSCOPE_HAVE_GUI
    const bool help = kinetoscope::cli::asksForHelp(argc, argv);
    if (command == "report" && !help)
        return kinetoscope::gui::runReport(argc, argv);
    if (kinetoscope::cli::isCommand(command))
        return kinetoscope::cli::run(argc, argv);
    if (help)  // `kinetoscope FILE --help`: the usage, the app not started
        return kinetoscope::cli::run({"help"}, std::cout, std::cerr);
    return kinetoscope::gui::runGui(argc, argv);
#else
    if (kinetoscope::cli::isCommand(command))
        return kinetoscope::cli::run(argc, argv);
    std::cerr
        << "kinetoscope: this build has no GUI (KINETOSCOPE_GUI=OFF); commands: info, summary, "
           "diagnose, diff, run, profile, memory, help, version\n";
    return kinetoscope::cli::kExitBadInput;
#endif
}
