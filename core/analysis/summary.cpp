#include "core/analysis/summary.h"

#include "core/analysis/tensor_cores.h"

namespace kinetoscope::analysis {

TraceSummary summarize(const trace::TraceModel& model, const SummaryOptions& options)
{
    TraceSummary summary;
    const StepDetection all = detectSteps(model, options.steps);
    summary.window = classifyWindow(model, all);
    summary.window.stepMarker = options.steps.marker;
    summary.steps = steadyState(model, all, summary.window);
    summary.breakdown = computeBreakdown(model, summary.steps);
    summary.gpu = computeGpuMetrics(model, summary.steps);
    summary.idleGaps = computeIdleGaps(model, summary.steps);
    summary.launches = computeLaunchStats(model, summary.steps);
    summary.sync = computeSyncStats(model, summary.steps);
    summary.utilization = computeUtilizationSeries(model, options.utilizationBuckets);
    summary.ops = computeOpTables(model);
    summary.kernels = computeKernelTable(model);
    summary.kernelsByOp = computeKernelTable(model, nullptr, KernelGrouping::NameAndOp);
    summary.kernelsByLaunch = computeKernelTable(model, nullptr, KernelGrouping::LaunchConfig);
    summary.memcpy = computeMemcpyTable(model);
    summary.memory = computeMemoryUsage(model, summary.steps);
    summary.modules = computeModuleTree(model);
    roofline::RooflineOptions rooflineOptions;
    for (const Step& step : summary.steps.steps)
        rooflineOptions.window.emplace_back(step.beginNs, step.endNs);
    rooflineOptions.onMatrixUnits = isTensorCoreKernel;
    summary.roofline = roofline::computeRoofline(model, rooflineOptions);
    summary.roofGaps = roofGaps(summary.roofline, model);
    const RoofTargets roof = roofTargets(model, summary.roofline, summary.roofGaps);
    summary.causal = buildCausalModel(model, summary.steps, &roof);
    if (summary.window.cpuOnly || summary.window.deviceActivityMissing)
        summary.host = profileHost(model, summary.steps);  // what such a window has to tell
    return summary;
}

}  // namespace kinetoscope::analysis
