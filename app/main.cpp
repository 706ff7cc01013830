// `kinetoscope`: the command-line tools when the first argument names one, else the GUI.
#include "app/cli/cli_main.h"
#include "app/gui/gui_main.h"

#include <string_view>

int main(int argc, char** argv)
{
    const std::string_view command = argc > 1 ? argv[1] : "";
    if (command == "report")
        return kinetoscope::gui::runReport(argc, argv);
    if (kinetoscope::cli::isCommand(command))
        return kinetoscope::cli::run(argc, argv);
    return kinetoscope::gui::runGui(argc, argv);
}
