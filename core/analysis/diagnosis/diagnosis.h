#pragma once
// The diagnosis: every rule run over one trace's summary (and a lab session's
// measurements), findings in the one order of every output (rankFindings): by severity,
// the window findings first within theirs, then by the time per step that fixing them
// would save.
#include "core/analysis/diagnosis/finding.h"
#include "core/analysis/diagnosis/thresholds.h"
#include "core/analysis/summary.h"

#include <cstdint>
#include <optional>
#include <string>

namespace kinetoscope::analysis {

// A lab jump (samples/s of one arm over the previous one) below this is "small": the
// seeds' threshold (less than 20 %), the same as session::kSmallLabJump.
inline constexpr double kSmallLabJump = 1.2;
// Below this ratio the second arm is slower, beyond run-to-run noise (session::kLabSlowdown).
inline constexpr double kLabSlowdown = 0.9;
// Reserved over peak allocated above this: the caching allocator holds freed blocks the
// step never reuses (session::kReservedOverPeak).
inline constexpr double kLabReservedOverPeak = 1.5;
// A step's memory peak under this share of the memory the run may use leaves room for a
// larger batch: its activation finding is low, below any time finding of note.
inline constexpr double kActivationPeakTightShare = 0.5;

// The trace's steps against a session's measured steps (window-unlike-run): compared from
// this many measured steps on; their medians this far apart (either way) make the finding,
// HIGH from the second.
inline constexpr size_t kMeasuredStepsToCompare = 5;
inline constexpr double kWindowUnlikeRun = 1.5;
inline constexpr double kWindowFarFromRun = 3.0;

// What set a lab step's memory peak: the phase after which it was first reached.
enum class LabPeakCause : uint8_t
{
    Activations,     // forward or loss
    Gradients,       // backward
    OptimizerState,  // the optimizer step
    Other,           // the batch itself, zero_grad
};

// What only a live run measures (the engine's three-run baseline, the DataLoader-vs-
// compute split and the memory triage; issues #6 and #19). Every field is optional: a
// trace alone has none of them. core/document fills it from a session with the session's
// own readers; nothing here knows the session format.
struct LabMeasurements
{
    bool inference = false;  // an inference run: latency per batch, no backward
    bool script = false;     // a user's own script under the probe (kinetoscope profile): no arms
    bool cpu = false;        // the lab ran on the CPU (the advice names its autocast)
    // On the CPU: its bf16 matrix units from its flags ("amx_bf16", "avx512_bf16", "none"),
    // empty when not recorded.
    std::string cpuBf16Units;

    std::optional<double> fp32StepNs;     // mean step time, fp32
    std::optional<double> bf16StepNs;     // mean step time, bf16 autocast
    std::optional<double> graphedStepNs;  // mean step time, bf16 + CUDA graph or torch.compile
    std::optional<double> fp32SamplesPerSecond;
    std::optional<double> bf16SamplesPerSecond;
    std::optional<double> graphedSamplesPerSecond;
    std::optional<double>
        fp32PeakBytes;  // peak allocated (the CUDA allocator, or the CPU counting one)
    std::optional<double> bf16PeakBytes;
    std::optional<double> graphedPeakBytes;
    std::optional<double> fp32LatencyNs;  // inference: mean latency per batch
    std::optional<double> bf16LatencyNs;
    std::optional<double> graphedLatencyNs;
    // The third arm was the real torch.compile (a script's lab), not a whole-step CUDA graph;
    // its compilation's seconds, apart from the steady figures.
    bool compiled = false;
    std::optional<double> compileSeconds;
    // The script runs its own mixed precision: the bf16 arm ran it as written, as the fp32
    // arm did, so fp32 -> bf16 was not measured (the figures stay for bf16 -> compile).
    bool bf16AsWritten = false;
    // The script compiles its model itself: the third arm did not compile it again, and
    // bf16 -> compile was not measured (every arm ran compiled).
    bool compileAsWritten = false;

    // The memory the run could use: the device's, or the run's memory limit when lower;
    // unset where neither was recorded (a CPU run without a limit, an older session).
    std::optional<double> memoryAvailableBytes;

    std::optional<double> dataLoaderNs;  // mean time per step waiting for the next batch
    std::optional<double> computeNs;     // mean time per step of forward+backward+optimizer

    struct Peak
    {
        std::string phase;  // "forward", "backward", "optimizer step", ...
        LabPeakCause cause = LabPeakCause::Other;
        double bytes = 0;
        bool firstStep = false;  // the first step's peak is the larger (optimizer state created)
    };
    std::optional<Peak> peak;  // the fp32 arm's memory triage (needs a GPU)
    struct Growth
    {
        int64_t fromStep = 0;
        double bytesPerStep = 0;
    };
    std::optional<Growth> growth;            // the peak grows at every step from fromStep on
    std::optional<double> reservedOverPeak;  // reserved after the steady step / its peak
    std::optional<double> activationBytes;   // the memory split's activations (needs a GPU)
    // The workers sweep: its fewest workers and its fastest point, as measured (the same
    // point where more workers ran no faster: fewestFastest()).
    struct WorkersSweep
    {
        int64_t fewest = 0, best = 0;               // num_workers
        double fewestSamples = 0, bestSamples = 0;  // samples/s
        double fewestWaitNs = 0, bestWaitNs = 0;    // mean data wait per step
        // The point at the run's own num_workers, where its DataLoader split was measured
        // (-1: the sweep has none, or it is the fastest).
        int64_t ran = -1;
        double ranSamples = 0;  // samples/s
        // Every count above the fewest ran slower (workers that take the cores the model
        // computes on, or that start and feed slower than the loop draws).
        bool fewestFastest() const { return best == fewest; }
    };
    std::optional<WorkersSweep> workersSweep;
    std::optional<int64_t> largestBatchFits;  // the batch-size sweep
    std::optional<int64_t> fastestBatch;
    std::optional<int64_t> firstBatchOutOfMemory;
    struct Checkpointing  // the batch-size sweep without and with activation checkpointing
    {
        std::string name;  // "checkpointing every 2nd block"
        int64_t batchSize = 0;
        double peakWithoutBytes = -1;  // -1 when not measured
        double peakWithBytes = -1;
        double stepWithoutNs = 0;
        double stepWithNs = 0;
        std::optional<int64_t> largestBatchFits;  // with checkpointing
    };
    std::optional<Checkpointing> checkpointing;
    std::string
        armsCheckpointing;  // the arms ran with it ("checkpointing every 2nd block"), or empty
    // Why the run stopped before it finished ("cancelled by Ctrl-C (SIGINT) in the fp32 arm
    // after step 7 of 22"), empty when it finished; and what it kept.
    std::string interrupted;
    // A script that ended itself with this status (sys.exit(N), no exception or signal): it
    // may have finished or stopped early by a check of its own.
    std::optional<int> exitStatus;
    size_t keptSteps = 0;  // the measured steps (after the profiler's window)
    // A script's (kinetoscope profile): the median wall time (ns) of its measured steps, set
    // from kMeasuredStepsToCompare steps with a wall time on; and the steps it ran before its
    // window (`--skip`, config skip).
    std::optional<double> measuredStepMedianNs;
    std::optional<int64_t> windowSkip;
    // A script's measured steps (as measuredStepMedianNs): the wall time they hold outside
    // the five phases (the wait for data, the copy, forward, backward, the optimizer's step),
    // where the loop does other work: validation, a checkpoint, logging, an EMA update.
    struct OutsidePhases
    {
        double share = 0;         // of the measured steps' wall time
        double perStepNs = 0;     // on average per step
        size_t steps = 0;         // the measured steps read
        int64_t every = 0;        // in bursts this many steps apart (0: none, or no interval)
        double burstNs = 0;       // a burst's median time outside the phases
        int64_t firstBurst = -1;  // the first burst's step number (-1: none); one burst alone
                                  // (every 0): one step's, a one-off
    };
    std::optional<OutsidePhases> outsidePhases;
    size_t armsFinished = 0;
    // The runs (arms, sweep points) during which other processes used the CPU
    // (session::sharedRuns): their figures, and the comparisons between runs, are the
    // machine's as much as the model's.
    struct SharedRun
    {
        std::string run;        // "bf16", "workers = 4"
        double otherCores = 0;  // cores the other processes used, on average
    };
    std::vector<SharedRun> sharedRuns;
    int machineCores = 0;  // logical cores; 0 when not recorded
    // The package whose loop iterated the DataLoader that fed the model, as the probe saw it
    // ("__main__": the script's own; "transformers": Hugging Face's Trainer, which builds
    // its loaders from TrainingArguments); empty when not recorded.
    std::string loaderLoop;
};

struct DiagnosisInput
{
    const trace::TraceModel& model;
    const TraceSummary& summary;
    const Thresholds& thresholds;
    const LabMeasurements* lab = nullptr;
};

// A rule looks at the input and returns zero or more findings.
using Rule = void (*)(const DiagnosisInput& input, std::vector<Finding>& findings);

struct RuleInfo
{
    const char* id;
    Rule rule;
    bool lab = false;  // reads only the lab's measurements, never the trace
};
// Every rule, in catalogue order (docs/diagnosis.md).
const std::vector<RuleInfo>& ruleCatalogue();

// The one order of findings, wherever they are shown (a trace's, a lab's, a job's, a
// snapshot's): by severity; within a severity, a window finding first (it changes how the
// rest reads), then what the lab measured before what was read from a trace (a measured
// gain and an estimated one are not the same kind of figure), then by the time per step a
// fix would save. Stable: findings that tie keep their rules' order.
void rankFindings(std::vector<Finding>& findings);

std::vector<Finding> diagnose(const DiagnosisInput& input);
// A lab session recorded without a trace: the lab rules alone, ranked as diagnose ranks.
std::vector<Finding> diagnoseLab(const LabMeasurements& lab, const Thresholds& thresholds);

}  // namespace kinetoscope::analysis
