#include "core/lab/python_children.h"

#include "core/lab/probe_stream.h"
#include "core/lab/python_command.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string_view>
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

std::vector<std::string> environmentOf(int pid)
{
    return words(readWhole("/proc/" + std::to_string(pid) + "/environ"));
}

std::string folderOf(int pid)
{
    std::error_code ec;
    const fs::path folder = fs::read_symlink("/proc/" + std::to_string(pid) + "/cwd", ec);
    return ec ? std::string() : folder.string();
}

std::string valueIn(const std::vector<std::string>& environment, std::string_view name)
{
    for (const std::string& entry : environment)
        if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=')
            return entry.substr(name.size() + 1);
    return {};
}

// Variables a child's environment gets that are not the user's to repeat: the probe's and
// its PYTHONPATH, what torch sets in os.environ as it starts CUDA; for a rank of a job, what
// torchrun sets (`kinetoscope profile --nproc N` starts torchrun, which sets them again).
bool isOurs(std::string_view name, bool rank)
{
    if (name.starts_with("KINETOSCOPE_PROBE_") || name == "PYTHONPATH" ||
        name == "CUDA_MODULE_LOADING")
        return true;
    if (!rank)
        return false;
    static const std::set<std::string_view> kTorchrun = {"RANK",
                                                         "LOCAL_RANK",
                                                         "WORLD_SIZE",
                                                         "LOCAL_WORLD_SIZE",
                                                         "GROUP_RANK",
                                                         "GROUP_WORLD_SIZE",
                                                         "ROLE_RANK",
                                                         "ROLE_NAME",
                                                         "ROLE_WORLD_SIZE",
                                                         "MASTER_ADDR",
                                                         "MASTER_PORT",
                                                         "OMP_NUM_THREADS",
                                                         "TORCH_NCCL_ASYNC_ERROR_HANDLING",
                                                         "NCCL_ASYNC_ERROR_HANDLING"};
    return kTorchrun.count(name) > 0 || name.starts_with("TORCHELASTIC_");
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

PythonChildren::PythonChildren(int scriptPid, std::vector<std::string> command,
                               std::vector<std::string> environment)
    : m_root(scriptPid), m_command(std::move(command)), m_environment(std::move(environment))
{
}

PythonChild PythonChildren::described(int pid, int depth, std::vector<std::string> argv) const
{
    PythonChild found;
    found.pid = pid;
    found.depth = depth;
    found.argv = std::move(argv);
    const std::vector<std::string> environment = environmentOf(pid);
    // A rank's processes on this machine (what --nproc starts): LOCAL_WORLD_SIZE (torchrun's),
    // else WORLD_SIZE (one machine).
    found.worldSize = valueIn(environment, "LOCAL_WORLD_SIZE");
    if (found.worldSize.empty())
        found.worldSize = valueIn(environment, "WORLD_SIZE");
    const bool rank = !found.worldSize.empty();
    const std::set<std::string> given(m_environment.begin(), m_environment.end());
    for (const std::string& entry : environment) {
        const size_t equals = entry.find('=');
        if (equals != std::string::npos && !given.count(entry) &&
            !isOurs(std::string_view(entry).substr(0, equals), rank))
            found.environmentAdded.push_back(entry);
    }
    const std::string folder = folderOf(pid);
    if (!folder.empty() && folder != m_startedIn)
        found.workingDirectory = folder;
    return found;
}

bool PythonChildren::replacedItself() const
{
    return std::any_of(m_seen.begin(), m_seen.end(),
                       [](const PythonChild& child) { return child.depth == 0; });
}

void PythonChildren::poll()
{
    if (m_seen.size() >= kMostKept)
        return;
    const std::vector<std::string> script = commandOf(m_root);
    if (m_startedIn.empty() && !script.empty())
        m_startedIn = folderOf(m_root);  // (read once it runs: the launcher may set it)
    // The script's own process replaced by another Python (os.execv): same pid, other
    // arguments (argv[0] may differ alone: an interpreter's shim execs the real one).
    const bool replaced =
        readPythonCommand(m_command) && script.size() > 1 &&
        !std::equal(script.begin() + 1, script.end(), m_command.begin() + 1, m_command.end()) &&
        runsPython(m_root, script) && !isInterpreterHelper(script);
    if (replaced && m_looked.insert(-m_root).second)  // (once: -pid marks the exec)
        m_seen.push_back(described(m_root, 0, script));

    std::vector<std::pair<int, int>> next;  // (pid, depth), breadth first
    for (const int child : childrenOf(m_root))
        next.emplace_back(child, 1);
    for (size_t at = 0; at < next.size() && m_seen.size() < kMostKept; ++at) {
        const auto [pid, depth] = next[at];
        for (const int child : childrenOf(pid))
            next.emplace_back(child, depth + 1);
        if (m_looked.count(pid))
            continue;
        std::vector<std::string> argv = commandOf(pid);
        if (argv == script)
            continue;          // a fork of the script (a DataLoader worker), or one not exec'd yet
        m_looked.insert(pid);  // (its command is fixed from here on)
        if (argv.empty() || !runsPython(pid, argv) || isInterpreterHelper(argv))
            continue;  // gone, not Python, not a script
        bool again = false;
        for (const PythonChild& known : m_seen)
            again = again || known.argv == argv;  // a fork of one already seen
        if (!again)
            m_seen.push_back(described(pid, depth, std::move(argv)));
    }
}

std::string pythonChildAdvice(const std::vector<PythonChild>& seen)
{
    const PythonChild* deepest = nullptr;
    size_t asDeep = 0;  // how many were at its depth
    for (const PythonChild& child : seen) {
        if (!deepest || child.depth > deepest->depth) {
            deepest = &child;
            asDeep = 0;
        }
        asDeep += child.depth == deepest->depth ? 1 : 0;
    }
    if (!deepest)
        return {};
    const std::string command = commandLine(deepest->argv);
    std::string advice =
        deepest->depth == 0
            ? "it replaced itself (exec) with `" + command +
                  "`, and the probe does not survive an exec"
            : "it started another Python, `" + command + "` (pid " + std::to_string(deepest->pid) +
                  (asDeep > 1 ? ", the first of " + std::to_string(asDeep) : std::string()) +
                  "), and the probe rides in the first Python only";
    advice += ": profile that command itself, `";
    constexpr size_t kMostVariables = 8;
    const std::vector<std::string>& added = deepest->environmentAdded;
    for (size_t at = 0; at < added.size() && at < kMostVariables; ++at) {
        const size_t equals = added[at].find('=');
        advice +=
            added[at].substr(0, equals + 1) + commandLine({added[at].substr(equals + 1)}) + " ";
    }
    advice += "kinetoscope profile ";
    if (!deepest->workingDirectory.empty())
        advice += "--cwd " + commandLine({deepest->workingDirectory}) + " ";
    if (!deepest->worldSize.empty() && deepest->worldSize != "1")
        advice += "--nproc " + deepest->worldSize + " ";  // one rank of a job: all of them
    advice += "-- " + command + "`";
    for (size_t at = kMostVariables; at < added.size(); ++at)
        advice += (at == kMostVariables ? " (its environment also had " : ", ") +
                  added[at].substr(0, added[at].find('='));
    return added.size() > kMostVariables ? advice + ")" : advice;
}

}  // namespace kinetoscope::lab
