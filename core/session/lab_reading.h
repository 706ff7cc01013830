#pragma once
// The seeds' reading of a lab run, in sentences: the two ratios of the three-run
// baseline (fp32 -> bf16: is precision the bottleneck? bf16 -> CUDA graph: are the
// kernels already fused?), the DataLoader-vs-compute verdict and the best sweep point.
#include "core/session/session.h"

#include <optional>
#include <string>
#include <vector>

namespace kinetoscope::session {

// A jump below this ratio of samples/s is "small" (the seed: less than 20 %).
inline constexpr double kSmallLabJump = 1.2;
// Below this ratio the second arm is slower, beyond run-to-run noise: a slowdown, never
// called a small jump.
inline constexpr double kLabSlowdown = 0.9;
// A DataLoader wait under the compute still holds the step back from this share of it (the
// TensorBoard plugin's 5 %): analysis::Thresholds' dataloaderShare default, which
// core/document checks is the same number.
inline constexpr double kLoaderWaitShare = 0.05;

// A run shared the machine when other processes used at least this many cores on average
// while it went on, and at least this share of the machine's cores: its figures are then
// the machine's as much as the model's, and a jump between two runs may be the machine's.
inline constexpr double kSharedMachineCores = 0.5;
inline constexpr double kSharedMachineShare = 0.1;
// `otherCores` < 0: not measured; `machineCores` 0: not known (the share is not checked).
bool sharedMachine(double otherCores, int machineCores);
// The machine's logical cores as the session recorded them (environment "host_threads"),
// or 0.
int machineCores(const Session& session);

// A lab run (an arm, a sweep point) during which other processes used the CPU.
struct SharedRun
{
    std::string run;  // "bf16", "workers = 4"
    double otherCores = 0;
};
std::vector<SharedRun> sharedRuns(const Session& session);

// The workers sweep against the run itself: its fastest point, and the point at the run's own
// num_workers (config "workers"), where the run's DataLoader-vs-compute split was measured.
// Absent when the sweep has no such point, or the run's point is the fastest.
struct WorkersAgainstRun
{
    const SweepPoint* ran = nullptr;
    const SweepPoint* best = nullptr;
    double bestOverRan() const { return best->samplesPerSecond / ran->samplesPerSecond; }
};
std::optional<WorkersAgainstRun> workersAgainstRun(const Session& session);

// Why bf16 autocast runs slower than fp32 on this run's device, in a clause: on a CPU
// whose flags (the session's environment "cpu_bf16") show no bf16 matrix units, that;
// else the usual causes on a CPU or a GPU.
std::string bf16SlowdownCause(const Session& session);

// A run that stopped before it finished (cancelled, or its engine killed), in a sentence
// that leads its reading: "This run did not finish: cancelled by Ctrl-C (SIGINT) in the fp32
// arm after step 7 of 22. What it holds was measured before: 5 measured steps, no arm
// finished."; nullopt for a run that finished.
std::optional<std::string> stoppedEarly(const Session& session);

struct LabReading
{
    std::optional<double> bf16OverFp32;   // samples/s ratio
    std::optional<double> graphOverBf16;  // samples/s ratio
    std::optional<bool> dataBound;        // DataLoader wait > compute per step
    std::vector<std::string> lines;       // one sentence per conclusion
};

LabReading readLab(const Session& session);

}  // namespace kinetoscope::session
