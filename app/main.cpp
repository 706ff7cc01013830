// `kinetoscope`: the command-line tools when the first argument names one, else the GUI
// (in a build without the GUI, KINETOSCOPE_GUI=OFF, the command line only).
#include "app/cli/cli_main.h"
#if KINETOSCOPE_HAVE_GUI
#include "app/gui/gui_main.h"
#else
#include <iostream>
#endif

#include <string_view>

int main(int argc, char** argv)
{
    const std::string_view command = argc > 1 ? argv[1] : "";
#if KINETOSCOPE_HAVE_GUI
    if (command == "report")
        return kinetoscope::gui::runReport(argc, argv);
    if (kinetoscope::cli::isCommand(command))
        return kinetoscope::cli::run(argc, argv);
    return kinetoscope::gui::runGui(argc, argv);
#else
    if (kinetoscope::cli::isCommand(command))
        return kinetoscope::cli::run(argc, argv);
    std::cerr
        << "kinetoscope: this build has no GUI (KINETOSCOPE_GUI=OFF); commands: info, summary, "
           "diagnose, run, help\n";
    return kinetoscope::cli::kExitBadInput;
#endif
}
