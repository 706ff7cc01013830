#pragma once
// A Python command line as CPython reads it: its options (grouped flags: `-uI`; -c, -m,
// -W, -X taking the rest of the word or the next one; --check-hash-based-pycs taking the
// next), then what it runs. Torch-free.
#include <optional>
#include <string>
#include <vector>

namespace kinetoscope::lab {

struct PythonCommand
{
    enum class Runs
    {
        Script,
        Module,
        Code,
        Stdin
    };
    Runs runs = Runs::Stdin;
    std::string target;  // the script's path, the module's name or the code (-c)
    // The first option that keeps the interpreter from PYTHONPATH or `site`, where the probe
    // comes in ("-I", "-E" or "-S"), else empty.
    std::string shutOutFlag;
};

// Nothing when the program is not a Python (its file name does not start with "python").
std::optional<PythonCommand> readPythonCommand(const std::vector<std::string>& argv);

}  // namespace kinetoscope::lab
