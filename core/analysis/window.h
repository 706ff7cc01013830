#pragma once
// What a trace's window is, decided before any rule judges it: training or inference,
// which iterations are the steady state and which are warm-up (module loading, library
// initialisation, allocator growth), CUDA/HIP graph capture or replay, a window with no
// device activity recorded, and what is wrong with the trace itself. The rules read it:
// warm-up steps are left out of every average, a capture window is not "idle", an
// inference run gets inference advice.
#include "core/analysis/steps.h"

#include <string>
#include <vector>

namespace kinetoscope::analysis {

enum class RunKind : uint8_t
{
    Training,
    Inference,
    Unknown
};
const char* runKindName(RunKind kind);  // "training", "inference", "unknown"

enum class StepRole : uint8_t
{
    Steady,
    WarmUp,     // a first step slowed by one-off costs (or far slower than the rest)
    Outlier,    // a later step holding a one-off cost
    ExtraPass,  // a later step that also ran a pass over other batches (an evaluation)
};
// "steady", "warm-up", "outlier", "extra-pass"
const char* stepRoleName(StepRole role);

// A step that fetched more DataLoader batches than a steady step and took far longer: work
// besides the training step ran inside it (an evaluation over a validation loader, as a
// Trainer's eval_steps does). Its time is not the step's; it is left out of every average.
struct ExtraPass
{
    size_t step = 0;            // index into WindowClass::allSteps
    int64_t batches = 0;        // DataLoader __next__ calls inside it
    int64_t steadyBatches = 0;  // the median of the steps' calls
};

// A cost paid once, not per step: a host call that lasted far longer than it does in a
// steady loop because it loaded kernels, created the context or grew the allocator.
struct OneOffCost
{
    std::string what;           // "module loading in the first cudaLaunchKernel", ...
    std::string call;           // the call's name
    bool beforeWindow = false;  // a blocking call that waited for device work launched
                                // before the profiler started (not warm-up)
    int64_t beginNs = 0;
    int64_t endNs = 0;
    int64_t lengthNs() const { return endNs - beginNs; }
};

// Something about the trace itself that limits what can be read from it.
struct QualityIssue
{
    std::string code;     // stable: "overlapping-on-stream", "clock-skew", ...
    std::string message;  // one line, with the count
    int64_t count = 0;
};

// A window shorter than this is too short to judge (100 µs), whatever it holds.
inline constexpr int64_t kNearlyEmptyWindowNs = 100'000;

struct WindowClass
{
    RunKind kind = RunKind::Unknown;  // a cut file is never called inference: see partlyRead
    std::string
        kindEvidence;  // why: "backward ops and Optimizer.step", "no backward or optimizer op"
    StepSource stepSource = StepSource::Window;
    std::string foundBy;  // how repeated-call iterations were cut (StepDetection::foundBy)
    std::string stepMarker = "ProfilerStep#";  // the name prefix steps were looked for by
    std::vector<Step> allSteps;                // every step found, warm-up included
    std::vector<StepRole> roles;               // one per step of allSteps
    std::vector<OneOffCost> oneOffs;           // longest first
    std::vector<ExtraPass> extraPasses;        // in step order (their role is ExtraPass)
    int64_t oneOffNs = 0;                      // the union of the warm-up ones (not beforeWindow)
    int64_t windowNs = 0;                      // first step's begin to last step's end, all steps
    int64_t deviceActivities = 0;              // kernels, copies and memsets in the trace
    int64_t kernelLaunchCalls = 0;
    int64_t launchesWithoutActivity = 0;  // kernel launch calls with no device activity
    int64_t graphLaunches = 0;            // cudaGraphLaunch / hipGraphLaunch calls
    int64_t graphCaptureCalls = 0;        // Begin/EndCapture, instantiation
    bool captureWindow = false;           // a graph was captured here: nothing ran by design
    bool graphReplay = false;             // kernels ran from graph launches
    bool deviceActivityMissing = false;   // launches, but no device activity recorded
    bool countersOnly = false;            // CUPTI range-profiler records instead of activities
    bool cpuOnly = false;                 // no launch and no device activity at all
    bool nearlyEmpty = false;             // too short to judge (under kNearlyEmptyWindowNs)
    bool sparse = false;                  // few events: judged only where one cost dominates its
                                          // steps (diagnosis.cpp), with a small-sample caveat
    bool warmUpDominated = false;         // one-off costs are most of the window
    bool sampled = false;                 // most host events were dropped (a sampled trace)
    bool hostOpsRecorded = true;          // CPU ops are in the trace (a GPU-only trace has none)
    std::vector<QualityIssue> quality;

    size_t steadyCount() const;
    // The reader stopped before the end of the file: what it holds after is missing.
    bool partlyRead() const;
    bool hasWarmUp() const { return !oneOffs.empty() || steadyCount() < allSteps.size(); }
    // Can per-step rules judge this window at all?
    bool diagnosable() const
    {
        return !captureWindow && !deviceActivityMissing && !countersOnly && !nearlyEmpty &&
               !cpuOnly && !sampled && !warmUpDominated;
    }
    // One line: "training, 6 steady steps (ProfilerStep markers), 1 warm-up step; ..."
    std::string headline() const;
};

// Classifies the window and returns it; `steps` is the full detection (detectSteps).
WindowClass classifyWindow(const trace::TraceModel& model, const StepDetection& steps);

// The steps the rules judge: the steady ones, or all of them when none is steady. For a
// single window that holds one-off costs, the window starts after the last of them when
// device work remains there.
StepDetection steadyState(const trace::TraceModel& model, const StepDetection& steps,
                          const WindowClass& window);

}  // namespace kinetoscope::analysis
