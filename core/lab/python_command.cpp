#include "core/lab/python_command.h"

#include <filesystem>

namespace kinetoscope::lab {

std::optional<PythonCommand> readPythonCommand(const std::vector<std::string>& argv)
{
    if (argv.empty() ||
        !std::filesystem::path(argv.front()).filename().string().starts_with("python"))
        return std::nullopt;
    PythonCommand command;
    for (size_t i = 1; i < argv.size(); ++i) {
        const std::string& word = argv[i];
        if (word == "--check-hash-based-pycs") {
            ++i;  // (its value)
            continue;
        }
        if (word == "--") {
            if (i + 1 < argv.size()) {
                command.runs = PythonCommand::Runs::Script;
                command.target = argv[i + 1];
            }
            return command;
        }
        if (word == "-")
            return command;  // standard input
        if (!word.starts_with("-")) {
            command.runs = PythonCommand::Runs::Script;
            command.target = word;
            return command;
        }
        if (word.starts_with("--"))
            continue;  // --help, --version: nothing runs
        for (size_t at = 1; at < word.size(); ++at) {
            const char flag = word[at];
            if ((flag == 'I' || flag == 'E' || flag == 'S') && command.shutOutFlag.empty())
                command.shutOutFlag = std::string("-") + flag;
            if (flag == 'c' || flag == 'm' || flag == 'W' || flag == 'X') {
                // The value: this word's rest, or the next word.
                std::string value = word.substr(at + 1);
                if (value.empty() && i + 1 < argv.size())
                    value = argv[++i];
                if (flag == 'c' || flag == 'm') {
                    command.runs =
                        flag == 'c' ? PythonCommand::Runs::Code : PythonCommand::Runs::Module;
                    command.target = value;
                    return command;
                }
                break;
            }
        }
    }
    return command;
}

}  // namespace kinetoscope::lab
