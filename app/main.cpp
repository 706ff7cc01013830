// `kinetoscope`: the command-line tools when the first argument names one, else the GUI
// (in a build without the GUI, KINETOSCOPE_GUI=OFF, the command line only).
#include "app/cli/cli_main.h"
#if KINETOSCOPE_HAVE_GUI
#include "app/gui/gui_main.h"
#endif

#include <iostream>
#include <string_view>

int main(int argc, char** argv)
{
    const std::string_view command = argc > 1 ? argv[1] : "";
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
           "diagnose, diff, run, help, version\n";
    return kinetoscope::cli::kExitBadInput;
#endif
}
