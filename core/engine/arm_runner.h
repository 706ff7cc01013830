#pragma once
// One arm of the lab: a fresh model (same seed) trained for warm-up + measured steps on
// the same data slice, timed per phase, optionally in bf16 autocast, as a whole-step
// CUDA graph, or with the profiler window. Engine-internal.
#include "core/engine/engine_internal.h"
#include "core/engine/lab_runner.h"

#include <map>
#include <optional>

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
    double samplesPerSecond = 0;      // inference: batch size over the mean latency
    double meanStepMs = 0;            // inference: the mean latency
    int64_t peakAllocatedBytes = -1;  // the largest peak of live tensor bytes of any step
    int64_t peakReservedBytes = -1;   // the CUDA caching allocator's largest hold (-1 on the CPU)
    session::PhaseTiming latency;     // inference only
    std::optional<session::MemoryTriage> memory;  // training, the arm that records its steps
    std::vector<session::PhaseTiming> phases;
    std::vector<session::StepTiming> steps;
    double meanMs(const std::string& phase) const;
};

class ArmRunner
{
public:
    // Checks the device and opens the dataset; throws UserError with the reason.
    ArmRunner(const RunConfig& config, const RunCallbacks& callbacks);
    // Trains (or, in inference mode, times the forward of) a fresh model. Throws
    // Cancelled, UserError (NaN loss, bad model), c10::Error (out of memory...).
    ArmResult run(const ArmOptions& arm, const RunConfig& config, double progressFrom,
                  double progressTo);
    bool cuda() const { return m_device.is_cuda(); }
    const std::string& tracePath() const { return m_tracePath; }

private:
    ArmResult train(const ArmOptions& arm, const RunConfig& config, double progressFrom,
                    double progressTo);
    ArmResult infer(const ArmOptions& arm, const RunConfig& config, double progressFrom,
                    double progressTo);
    // A failure inside the profiler window must not leave the profiler on for the next run.
    struct ProfilerOff
    {
        ArmRunner& runner;
        ~ProfilerOff();
    };
    // The start of every step: cancel, progress, the injected fault, the profiler window.
    void beginStep(const ArmOptions& arm, const RunConfig& config, int64_t step, int64_t steps,
                   double fraction, int64_t profileStart);
    // The next batch, inside the DataLoader annotation; `waitMs` is how long it took.
    static Batch nextBatch(Loader& loader, double& waitMs);
    void startProfiler(bool prepareOnly);
    void stopProfiler(const RunConfig& config);

    RunCallbacks m_callbacks;
    torch::Device m_device{torch::kCPU};
    std::unique_ptr<Dataset> m_dataset;
    std::string m_tracePath;
    bool m_profiling = false;  // the profiler is enabled on this thread
};

}  // namespace kinetoscope::engine::detail
