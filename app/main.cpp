#include "app/cli/cli_main.h"

int main(int argc, char** argv)
{
    return kinetoscope::cli::run(argc, argv);
}
