#include "core/analysis/summary.h"

#include "core/analysis/tensor_cores.h"
#include "core/parallel/parallel_for.h"
#include "core/parallel/thread_count.h"

#include <functional>
#include <vector>

namespace kinetoscope::analysis {

namespace {

// Passes that read the model (and what earlier rounds computed) and each write one field
// of the summary, none another's: they may run side by side. Listed longest first, so that
// the long ones start at once and the short ones fill in behind them.
void runPasses(unsigned threads, const std::vector<std::function<void()>>& passes)
{
    parallel::parallelFor(passes.size(), threads, [&](size_t i) { passes[i](); });
}

}  // namespace

// Three rounds, each waiting for the one before: the steps with the tables that need none,
// then every pass over the steady steps (the roofline and what the causal model takes from
// it the longest), then the causal model, its sampled steps on every thread. With one
// thread every pass runs on the calling thread, one after another.
TraceSummary summarize(const trace::TraceModel& model, const SummaryOptions& options)
{
    const unsigned threads = parallel::resolveThreads(options.threads);
    TraceSummary summary;
    runPasses(threads, {
                           [&] {
                               const StepDetection all = detectSteps(model, options.steps);
                               summary.window = classifyWindow(model, all);
                               summary.window.stepMarker = options.steps.marker;
                               summary.steps = steadyState(model, all, summary.window);
                           },
                           [&] { summary.ops = computeOpTables(model); },
                           [&] { summary.modules = computeModuleTree(model); },
                           [&] { summary.kernels = computeKernelTable(model); },
                           [&] {
                               summary.kernelsByOp =
                                   computeKernelTable(model, nullptr, KernelGrouping::NameAndOp);
                           },
                           [&] {
                               summary.utilization =
                                   computeUtilizationSeries(model, options.utilizationBuckets);
                           },
                           [&] { summary.memcpy = computeMemcpyTable(model); },
                       });

    RoofTargets roof;
    runPasses(threads, {
                           [&] {
                               roofline::RooflineOptions rooflineOptions;
                               for (const Step& step : summary.steps.steps)
                                   rooflineOptions.window.emplace_back(step.beginNs, step.endNs);
                               rooflineOptions.onMatrixUnits = isTensorCoreKernel;
                               summary.roofline = roofline::computeRoofline(model, rooflineOptions);
                               summary.roofGaps = roofGaps(summary.roofline, model);
                               roof = roofTargets(model, summary.roofline, summary.roofGaps);
                           },
                           [&] {
                               summary.kernelsByLaunch =
                                   computeKernelTable(model, nullptr, KernelGrouping::LaunchConfig);
                           },
                           [&] { summary.breakdown = computeBreakdown(model, summary.steps); },
                           [&] { summary.memory = computeMemoryUsage(model, summary.steps); },
                           [&] { summary.gpu = computeGpuMetrics(model, summary.steps); },
                           [&] { summary.idleGaps = computeIdleGaps(model, summary.steps); },
                           [&] { summary.launches = computeLaunchStats(model, summary.steps); },
                           [&] { summary.sync = computeSyncStats(model, summary.steps); },
                           [&] {
                               std::vector<compiled::StepSpan> steady, all;
                               for (const Step& step : summary.steps.steps)
                                   steady.push_back({step.name, step.beginNs, step.endNs});
                               for (const Step& step : summary.window.allSteps)
                                   all.push_back({step.name, step.beginNs, step.endNs});
                               summary.compiled = compiled::readCompiledWindow(model, steady, all);
                           },
                           [&] {
                               const WindowClass& w = summary.window;
                               if (w.cpuOnly || w.deviceActivityMissing ||
                                   (w.partlyRead() && w.deviceActivities == 0))
                                   summary.host = profileHost(
                                       model, summary.steps);  // what such a window has to tell
                           },
                       });

    RangeSet graphBreaks;
    for (const auto& [begin, end] : summary.compiled.breakHostRanges)
        graphBreaks.push_back({begin, end});
    graphBreaks = unionOf(std::move(graphBreaks));
    summary.causal = buildCausalModel(model, summary.steps, &roof, threads, &graphBreaks);
    return summary;
}

}  // namespace kinetoscope::analysis
