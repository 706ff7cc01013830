#include "core/lab/python_children.h"

#include "core/lab/python_command.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>

namespace kinetoscope::lab {

namespace {

namespace fs = std::filesystem;

constexpr size_t kMostKept = 16;

std::string readWhole(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// NUL-separated words (/proc/PID/cmdline, /proc/PID/environ).
std::vector<std::string> words(const std::string& text)
{
    std::vector<std::string> out;
    size_t from = 0;
    while (from < text.size()) {
        const size_t end = text.find('\0', from);
        out.push_back(text.substr(from, end == std::string::npos ? std::string::npos : end - from));
        if (end == std::string::npos)
            break;
        from = end + 1;
    }
    return out;
}

std::vector<std::string> commandOf(int pid)
{
    return words(readWhole("/proc/" + std::to_string(pid) + "/cmdline"));
}

// Every thread's children (a process started from any of them is listed under that thread).
std::vector<int> childrenOf(int pid)
{
    std::vector<int> out;
    std::error_code ec;
    const fs::path tasks = "/proc/" + std::to_string(pid) + "/task";
    for (fs::directory_iterator it(tasks, ec), end; !ec && it != end; it.increment(ec)) {
        std::istringstream list(readWhole((it->path() / "children").string()));
        for (int child = 0; list >> child;)
            out.push_back(child);
    }
    return out;
}

bool runsPython(int pid, const std::vector<std::string>& argv)
{
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec);
    return (!ec && exe.filename().string().starts_with("python")) ||
           (!argv.empty() && fs::path(argv.front()).filename().string().starts_with("python"));
}

std::string worldSizeOf(int pid)
{
    for (const std::string& entry : words(readWhole("/proc/" + std::to_string(pid) + "/environ")))
        if (entry.starts_with("WORLD_SIZE="))
            return entry.substr(11);
    return {};
}

// For showing a command: each word as a shell reads it back.
std::string shellWords(const std::vector<std::string>& argv)
{
    std::string out;
    for (const std::string& word : argv) {
        if (!out.empty())
            out += ' ';
        const bool plain =
            !word.empty() &&
            word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                   "0123456789_-./=:,+@%") == std::string::npos;
        if (plain) {
            out += word;
            continue;
        }
        out += '\'';
        for (const char c : word)
            out += c == '\'' ? std::string("'\\''") : std::string(1, c);
        out += '\'';
    }
    return out;
}

}  // namespace

bool isInterpreterHelper(const std::vector<std::string>& argv)
{
    // Python (readPythonCommand) or a program whose argv[0] is not "python..." but whose
    // executable is (multiprocessing starts sys.executable by its path: still python...).
    std::vector<std::string> asPython = argv;
    if (!asPython.empty())
        asPython.front() = "python";
    const std::optional<PythonCommand> command = readPythonCommand(asPython);
    if (!command || command->runs == PythonCommand::Runs::Code ||
        command->runs == PythonCommand::Runs::Stdin)
        return true;
    if (command->runs == PythonCommand::Runs::Module) {
        const std::string& module = command->target;
        if (module.starts_with("torch.distributed."))
            return false;  // torchrun's agent (`-m torch.distributed.run`): a launcher
        for (const char* library : {"multiprocessing", "torch.", "ipykernel", "wandb"})
            if (module.starts_with(library))
                return true;
        return false;
    }
    // A library's own worker script (Ray's, inductor's compile workers); a torch built from
    // source is outside site-packages.
    const std::string& path = command->target;
    return path.find("/site-packages/") != std::string::npos ||
           path.find("/dist-packages/") != std::string::npos ||
           path.find("torch/_inductor/") != std::string::npos;
}

void PythonChildren::poll()
{
    if (m_seen.size() >= kMostKept)
        return;
    const std::vector<std::string> script = commandOf(m_root);
    std::vector<std::pair<int, int>> next;  // (pid, depth), breadth first
    for (const int child : childrenOf(m_root))
        next.emplace_back(child, 1);
    for (size_t at = 0; at < next.size() && m_seen.size() < kMostKept; ++at) {
        const auto [pid, depth] = next[at];
        for (const int child : childrenOf(pid))
            next.emplace_back(child, depth + 1);
        if (!m_looked.insert(pid).second)
            continue;
        PythonChild found;
        found.pid = pid;
        found.depth = depth;
        found.argv = commandOf(pid);
        if (found.argv.empty() || found.argv == script || !runsPython(pid, found.argv) ||
            isInterpreterHelper(found.argv))
            continue;  // gone, a fork of the script (a DataLoader worker), not a script
        bool again = false;
        for (const PythonChild& known : m_seen)
            again = again || known.argv == found.argv;  // a fork of one already seen
        if (again)
            continue;
        found.worldSize = worldSizeOf(pid);
        m_seen.push_back(std::move(found));
    }
}

std::string pythonChildAdvice(const std::vector<PythonChild>& seen)
{
    const PythonChild* deepest = nullptr;
    for (const PythonChild& child : seen)
        if (!deepest || child.depth > deepest->depth)
            deepest = &child;
    if (!deepest)
        return {};
    std::string advice = "it started another Python, `" + shellWords(deepest->argv) + "` (pid " +
                         std::to_string(deepest->pid) +
                         "), and the probe rides in the first Python only: profile that "
                         "command itself, `kinetoscope profile ";
    if (!deepest->worldSize.empty() && deepest->worldSize != "1")
        advice += "--nproc " + deepest->worldSize + " ";  // one rank of a job: all of them
    return advice + "-- " + shellWords(deepest->argv) + "`";
}

}  // namespace kinetoscope::lab
