#pragma once
// One arm of the lab: a fresh model (same seed) trained for warm-up + measured steps on
// the same data slice, timed per phase, optionally in bf16 autocast, as a whole-step
// CUDA graph, or with the profiler window. Engine-internal.
#include "core/engine/engine_internal.h"
#include "core/engine/lab_runner.h"

#include <map>

namespace kinetoscope::engine::detail {

struct Cancelled
{
};

struct ArmOptions
{
    std::string name;
    bool bf16 = false;
    bool graph = false;        // bf16 + whole-step CUDA graph
    bool profile = false;      // this arm carries the profiler window
    bool recordSteps = false;  // report each measured step (the fp32 arm)
};

struct ArmResult
{
    double samplesPerSecond = 0;
    double meanStepMs = 0;
    int64_t peakAllocatedBytes = -1;  // CUDA only
    std::vector<session::PhaseTiming> phases;
    std::vector<session::StepTiming> steps;
    double meanMs(const std::string& phase) const;
};

class ArmRunner
{
public:
    // Checks the device and opens the dataset; throws UserError with the reason.
    ArmRunner(const RunConfig& config, const RunCallbacks& callbacks);
    // Throws Cancelled, UserError (NaN loss, bad model), c10::Error (out of memory...).
    ArmResult run(const ArmOptions& arm, const RunConfig& config, double progressFrom, double progressTo);
    bool cuda() const { return m_device.is_cuda(); }
    const std::string& tracePath() const { return m_tracePath; }

private:
    void startProfiler(bool prepareOnly);
    void stopProfiler(const RunConfig& config);

    RunCallbacks m_callbacks;
    torch::Device m_device{torch::kCPU};
    std::unique_ptr<Dataset> m_dataset;
    std::string m_tracePath;
    bool m_profiling = false;  // the profiler is enabled on this thread
};

// Mean, std, median, p95, p99 of one phase's per-step times.
session::PhaseTiming phaseTiming(const std::string& phase, std::vector<double> values);

}  // namespace kinetoscope::engine::detail
