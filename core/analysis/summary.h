#pragma once
// Everything the analysis computes for one trace, in one immutable value: what the
// `summary` command prints, the GUI shows and the diagnosis reads.
#include "core/analysis/breakdown.h"
#include "core/analysis/device_activity.h"
#include "core/analysis/gpu_metrics.h"
#include "core/analysis/host_profile.h"
#include "core/analysis/kernel_table.h"
#include "core/analysis/memory_usage.h"
#include "core/analysis/module_tree.h"
#include "core/analysis/op_table.h"
#include "core/analysis/step_model.h"
#include "core/analysis/window.h"
#include "core/compiled/compiled_window.h"
#include "core/roofline/roofline.h"

namespace kinetoscope::analysis {

struct SummaryOptions
{
    StepOptions steps;
    int utilizationBuckets = 1000;
    // Threads for the analysis (core/parallel/thread_count.h): 0 = every core, 1 = serial (no
    // thread started). Passes that do not read each other's results run side by side, and
    // the causal model's sampled steps are modelled in parallel and summed in step order:
    // the summary is the same, bit for bit, whatever the number.
    unsigned threads = 0;
};

struct TraceSummary
{
    WindowClass window;   // what the trace is: read first, by the reports and the rules
    StepDetection steps;  // the steady steps every figure below is computed over
    BreakdownResult breakdown;
    std::map<int64_t, GpuMetrics> gpu;
    IdleGaps idleGaps;
    LaunchStats launches;
    SyncStats sync;
    UtilizationSeries utilization;
    OpTables ops;
    std::vector<KernelStats> kernels;          // one row per kernel name
    std::vector<KernelStats> kernelsByOp;      // per kernel name and launching op
    std::vector<KernelStats> kernelsByLaunch;  // per kernel name and launch configuration
    std::vector<MemcpyStats> memcpy;
    std::map<std::string, DeviceMemory> memory;
    ModuleTree modules;           // empty when the trace has no nn.Module spans
    roofline::Roofline roofline;  // each catalogued op's and kernel's work against the
                                  // device's roofs; its window figures are the steady steps'
    RoofGaps roofGaps;            // the op groups the roofline finds below their roof
    CausalModel causal;           // the steady step's causal model: idle attribution and gains
    HostProfile host;             // where the loop thread's time goes per step: computed for a
                       // window without device activity (what it has to tell), else empty
    compiled::CompiledWindow compiled;  // what torch.compile made of the window (compiled = false
                                        // when nothing was compiled)
};

TraceSummary summarize(const trace::TraceModel& model, const SummaryOptions& options = {});

}  // namespace kinetoscope::analysis
