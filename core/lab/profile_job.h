#pragma once
// A distributed job under the probe: `kinetoscope profile --nproc N -- python train.py`
// (run through the user's own torch.distributed.run, N processes on this machine), or a
// launcher the user names (`-- torchrun ... train.py`, `-- srun python train.py`). The
// probe rides into every rank through the environment (KINETOSCOPE_PROBE_JOB); each rank
// writes OUT/rank-K/ itself: its protocol stream (probe.jsonl), its trace and snapshot.
// This side reads every stream as it grows, saves OUT/rank-K/session.kinetoscope.json for
// the ranks it reads (those of this machine, and at the end any other that finished and no
// other launcher took), and passes cancels on through OUT/cancel. docs/profile.md, "Ranks".
// Torch-free.
#include "core/lab/probe_process.h"

#include <functional>
#include <string>
#include <vector>

namespace kinetoscope::lab {

struct RankRun
{
    int rank = -1;
    std::string folder;     // OUT/rank-K
    std::string host;       // as the rank said (its hostname)
    RunResult run;          // its session (saved at run.sessionPath); !ok: why, in one line
    bool finished = false;  // its probe's last message (done) was heard, ok or not
    bool readHere = false;  // this launcher read it and saved its session
};

struct JobRunResult
{
    std::vector<RankRun> ranks;  // by rank
    int worldSize = -1;          // as the ranks said (WORLD_SIZE, SLURM_NTASKS)
    bool started = false;        // the command could be run
    int waitStatus = 0;          // the command's (torchrun's, srun's), as waitpid gave it
    std::string command;         // what was run, as one line
    std::string error;           // one line: why the job did not run cleanly
    std::string note;            // what a clean run should still hear
    int exitCode() const;        // a shell's: the command's own, or 128 + its signal
};

struct JobCallbacks
{
    // cancel, cancelledBy, abandon; engineStarted gets the command's process id.
    RunCallbacks run;
    std::function<void(int rank, const session::Session& header, const std::string& sessionPath)>
        rankStarted;
    std::function<void(int rank, const session::StepTiming&)> rankStep;
    std::function<void(int rank, const RunProgress&)> rankProgress;
    // A rank of this machine sampled live (its CPU and resident memory; NVML's GPU figures
    // where there is one), from the launcher's side as for one script.
    std::function<void(int rank, const session::LiveSample&)> rankSample;
};

// `python [interpreter options] train.py ARGS` (or `-m module ARGS`) run by N processes
// through the same interpreter's torch.distributed.run (torchrun, --standalone).
std::vector<std::string> distributedCommand(const std::vector<std::string>& command, int nproc);

// Whether the command starts ranks itself: torchrun, srun, mpirun / mpiexec, or
// `python -m torch.distributed.run` (or .launch).
bool launchesRanks(const std::vector<std::string>& command);

// The ranks saved here whose session holds no profiler window (they stopped before it, or
// it was off): a job is read from its ranks' windows, so these are read one by one.
std::vector<int> ranksWithoutWindow(const JobRunResult& result);

// OUT/rank-K.
std::string rankFolder(const std::string& outDir, int rank);

// Blocks until the command has ended and every rank read here has finished (or stopped
// being written). Never throws.
JobRunResult runProfileJob(const ProfileConfig& config, const JobCallbacks& callbacks);

}  // namespace kinetoscope::lab
