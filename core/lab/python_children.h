#pragma once
// The Python processes a profiled script starts itself: a launcher that runs the training in
// a child (`accelerate launch`, `deepspeed`, a wrapper calling `subprocess.run([python,
// "train.py"])`). The probe rides in the first interpreter only (the launcher's socket and
// variables are that process's alone), so a run whose own process never stepped names the
// Python below it that may have trained, and the command that profiles it. Read from /proc
// (every thread's `children`, `cmdline`, `exe`, `environ`); where /proc cannot be read,
// nothing is found. Torch-free.
#include <set>
#include <string>
#include <vector>

namespace kinetoscope::lab {

struct PythonChild
{
    int pid = 0;
    // 1: a child of the script's process, 2: a grandchild...; 0: the script's own process,
    // which replaced itself with this command (os.execv): the probe does not survive an exec.
    int depth = 1;
    std::vector<std::string> argv;  // as it was started
    // A rank of a job: its processes on this machine (LOCAL_WORLD_SIZE, else WORLD_SIZE in
    // its environment); empty when it is no rank.
    std::string worldSize;
    std::string workingDirectory;  // where it runs, when not where the script started
    // NAME=VALUE set for it beyond the script's own environment (accelerate passes its
    // options this way: ACCELERATE_MIXED_PRECISION=bf16), without the probe's variables,
    // PYTHONPATH and, for a rank of a job, what torchrun sets.
    std::vector<std::string> environmentAdded;
};

// Polled from the launcher's loop while the script has not stepped (each poll walks the
// tree below the script: a few small /proc reads per process and thread).
class PythonChildren
{
public:
    // `command` and `environment`: what the launcher started the script with.
    PythonChildren(int scriptPid, std::vector<std::string> command,
                   std::vector<std::string> environment);
    void poll();
    // Each command once, in the order first seen; the interpreter's own helpers
    // (isInterpreterHelper) and the script's forks (its own command) left out; at most 16.
    const std::vector<PythonChild>& seen() const { return m_seen; }
    bool replacedItself() const;  // the script's process exec'd another Python (depth 0)

private:
    PythonChild described(int pid, int depth, std::vector<std::string> argv) const;

    int m_root;
    std::vector<std::string> m_command, m_environment;
    std::string m_startedIn;  // the script's working folder
    std::set<int> m_looked;   // pids already read (a pid is read once: its command is fixed)
    std::vector<PythonChild> m_seen;
};

// A child that runs no script of the user's: `python -c ...` (multiprocessing's spawned
// workers, resource tracker and forkserver), a library's module (`-m multiprocessing...`,
// `torch....` but torch.distributed's launchers, `ipykernel_launcher`: a notebook's kernel,
// `wandb`), a script inside site-packages (Ray's workers, inductor's compile workers).
bool isInterpreterHelper(const std::vector<std::string>& argv);

// For a run whose script never stepped: the deepest Python below it (first seen among the
// deepest: a launcher's workers sit below the launcher; the script's own exec, at depth 0,
// when it started none) and how to profile it, in one clause; empty when there is none.
std::string pythonChildAdvice(const std::vector<PythonChild>& seen);

}  // namespace kinetoscope::lab
