#pragma once
// Runs the `kinetoscope` command line in-process and captures what it prints.
#include "app/cli/cli_main.h"

#include <sstream>
#include <string>
#include <vector>

namespace kinetoscope::test {

struct CliRun
{
    int code;
    std::string out;
    std::string err;
};

inline CliRun runCli(const std::vector<std::string>& args)
{
    std::ostringstream out, err;
    const int code = cli::run(args, out, err);
    return {code, out.str(), err.str()};
}

}  // namespace kinetoscope::test
