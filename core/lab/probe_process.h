#pragma once
// A user's own training script run under the probe: `kinetoscope profile -- python
// train.py ARGS` and the app's *Profile a script*. The command runs in the user's own
// interpreter and environment; a pure-Python probe (python/kinetoscope/probe, put on its
// path through a sitecustomize that does nothing unless KINETOSCOPE_PROBE_FD is set) finds
// the loop from torch's own hooks and speaks the engine's protocol (core/lab/
// engine_protocol.h) on a socket of its own, never on the script's output. This side
// samples the machine, builds the session from what the probe streams, saves it
// (atomically) as it goes and when the script ends however it ends. docs/profile.md.
// Torch-free.
#include "core/lab/run_result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kinetoscope::lab {

struct ProfileConfig
{
    std::vector<std::string> command;  // the user's: {"python", "train.py", "--lr", "0.1"}
    std::string workingDirectory;      // where it runs; empty: this process's
    std::string outDir;                // the session's folder: new, or empty
    // Steps 0..skip-1 are warm-up (compilation, the first iterations): neither measured
    // nor profiled. The next `active` steps are the profiler window (a Kineto trace,
    // OUT/trace.json); every step after is measured. steps > 0: the script is stopped
    // cleanly after skip + active + steps steps; 0: it runs to its end.
    int64_t skip = 5;
    int64_t active = 3;
    int64_t steps = 0;
    // A step is one exit of this record_function label, or one call of this function
    // (`train_step` in the script, `package.module:function`); empty: the optimizer's
    // step, or the outermost module's forward without one.
    std::string stepMarker;
    bool recordShapes = true;
    bool profileMemory = true;
    bool withStack = false;
    bool memorySnapshot = false;  // CUDA: the allocator's history, dumped at the end or at an OOM
    bool liveSamples = true;
    int samplesPerSecond = 20;  // 10-20
    // What a script lab's run changes in the script (core/lab/script_lab.h), through the
    // probe: empty / -1 leave the script as written.
    std::string arm;          // "fp32", "bf16" (autocast), "bf16+compile" (+ torch.compile)
    std::string compileMode;  // torch.compile's mode; empty: its default
    int64_t seed = -1;        // torch, random and numpy seeded before the script goes on
    // Set at every DataLoader's construction: num_workers, pin_memory, persistent_workers,
    // batch_size (-1: the script's own).
    int64_t loaderWorkers = -1;
    int64_t loaderBatchSize = -1;
    int pinMemory = -1;  // 0 or 1
    int persistentWorkers = -1;
    // A job (core/lab/profile_job.h): this many processes on this machine through the
    // user's torch.distributed.run; 0: one process, or the ranks the command itself starts.
    int nproc = 0;
    // The probe's folder (holding boot/sitecustomize.py and kinetoscope/); empty: findProbe().
    std::string probeDirectory;
    // From a terminal (`kinetoscope profile`): the script keeps this process's group,
    // standard input and output, as if run alone, and lives on if this process dies. From
    // the app: a group of its own, its output in OUT/output.log, killed with the app.
    bool fromTerminal = true;
};

struct ProfileResult
{
    RunResult run;            // ok: the script ended with status 0 (or was stopped by --steps)
    int waitStatus = 0;       // the script's, as waitpid gave it
    bool started = false;     // the script ran (the command could be executed)
    bool probeSpoke = false;  // the probe said hello (it was on the interpreter's path)
    // What a clean run should still hear, in one line: nothing was measured and why, or
    // the script was stopped by --steps or a cancel. Empty when there is nothing to say.
    std::string note;
    // The exit code a shell would give for the script: its own, or 128 + its signal.
    int exitCode() const;
};

// One line when the configuration cannot run (no command, an output folder that holds
// files, a negative count), else empty. Checked before anything is started or written.
std::string validateProfileConfig(const ProfileConfig& config);

// $KINETOSCOPE_PROBE_DIR, else the installed folder (PREFIX/share/kinetoscope/python beside
// this executable's bin/), else the source tree's python/ (a build). Empty if none holds
// boot/sitecustomize.py.
std::string findProbe();

// config.probeDirectory, else findProbe(); empty with `error` set when it holds no probe.
std::string probeFolder(const ProfileConfig& config, std::string& error);

// The flag of a Python command that keeps the interpreter from PYTHONPATH or `site`, where
// the probe comes in ("-I", "-E" or "-S", alone or grouped: `python -uI train.py`), else ""
// (not Python, or Python with neither).
std::string flagThatShutsOutTheProbe(const std::vector<std::string>& command);

// This process's environment with the probe on the interpreter's path (PYTHONPATH), its
// options, and where it writes: KINETOSCOPE_PROBE_OUT (one process, beside the socket the
// spawn adds), or KINETOSCOPE_PROBE_JOB (every rank of a job, each in OUT/rank-K).
std::vector<std::string> probeEnvironment(const ProfileConfig& config, const std::string& probe,
                                          bool job);

// Where the session is saved: OUT/session.kinetoscope.json.
std::string profileSessionPath(const ProfileConfig& config);

// Blocks until the script has ended. Never throws. `callbacks.cancel` asks the probe to
// stop the script after its step in flight (then SIGINT, SIGTERM, SIGKILL after grace
// periods); callbacks.abandon kills it at once.
ProfileResult runProfile(const ProfileConfig& config, const RunCallbacks& callbacks);

}  // namespace kinetoscope::lab
