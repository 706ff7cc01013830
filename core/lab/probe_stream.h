#pragma once
// What a launcher hears from one probe (a profiled script, or one rank of a job), line by
// line, and the session built from it. The same for the probe's socket (probe_process) and
// a rank's stream file (profile_job). Torch-free.
#include "core/lab/engine_protocol.h"
#include "core/lab/probe_process.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope::lab {

struct Heard
{
    bool hello = false;
    int64_t pid = 0;            // the probed process's, as its hello said
    std::string protocolError;  // the first line that broke the protocol; nothing after counts
    session::Session header;    // config and environment, merged as they come (newer wins)
    std::vector<session::StepTiming> steps;
    int64_t lastStep = -1;  // the last step that started (progress), warm-up included
    std::string stage;
    int64_t plannedSteps = 0;  // the run's steps, warm-up included, as progress said (0: unbounded)
    std::optional<EngineMessage> done;
};

// Takes one protocol line into `h` and calls what it brings (callbacks.started with the
// session so far and `sessionPath`, progress, step). Returns the message, or nullopt when
// the line broke the protocol or came after a line that did.
std::optional<EngineMessage> hearLine(Heard& h, std::string_view line, const ProfileConfig& c,
                                      const RunCallbacks& callbacks,
                                      const std::string& sessionPath);

// The session from what was heard and sampled; c.outDir is where its trace and snapshot
// are looked for. `interrupted`: why the script stopped early (empty: it did not).
session::Session buildSession(const ProfileConfig& c, const Heard& h,
                              const std::vector<session::LiveSample>& samples,
                              const std::string& interrupted);

// " at step 12 (backward)" (the step in flight, 0-based as ProfilerStep#N), " before its
// first step", or nothing when the probe never spoke.
std::string whereItWas(const Heard& h);

// The probe's `done` said the script ended on an exception: "WHAT failed at step 12 (…):
// ValueError (…)", or "WHAT was interrupted …: KeyboardInterrupt (…)" for Ctrl-C (the user's
// stop, not a fault of the script). Only when h.done && !h.done->ok.
std::string howItFailed(const std::string& what, const Heard& h);

// `name` as execvp would find it in PATH (a name with a '/' is itself); empty if nowhere.
std::string resolveInPath(const std::string& name);

// The command as one line a shell would read back: words with spaces or quotes quoted.
std::string commandLine(const std::vector<std::string>& command);

// "WHAT was killed by SIGKILL", "WHAT crashed (SIGSEGV, Segmentation fault)", "WHAT exited
// with status 3", from a wait status.
std::string howItEnded(const std::string& what, int status);

// The exit code a shell would give for a wait status: the process's own, or 128 + its signal.
int shellExitCode(int waitStatus);

}  // namespace kinetoscope::lab
