// Rules about keeping the GPU fed: dataloader-bound, low-gpu-utilization, launch-bound,
// unstable-steps.
#include "core/analysis/diagnosis/rule_helpers.h"
#include "core/analysis/diagnosis/rules.h"

#include <algorithm>
#include <cmath>

namespace kinetoscope::analysis::rules {

void dataloaderBound(const DiagnosisInput& in, std::vector<Finding>& out)
{
    // The breakdown gives the DataLoader only the time no kernel or copy claimed: it is
    // exactly the time the GPU waited for data.
    const Breakdown& b = in.summary.breakdown.all;
    const double step = stepMeanNs(in);
    const double waiting = b.average(TimeCategory::DataLoader);
    const double fraction = share(waiting, step);
    double labFraction = 0.0;
    if (in.lab && in.lab->dataLoaderNs && in.lab->computeNs)
        labFraction = share(*in.lab->dataLoaderNs, *in.lab->dataLoaderNs + *in.lab->computeNs);
    if (fraction <= in.thresholds.dataloaderShare && labFraction <= 0.5)
        return;
    Finding f;
    f.id = "dataloader-bound";
    f.severity = fraction >= in.thresholds.dataloaderShareHigh || labFraction > 0.5 ? Severity::High
                 : fraction >= 2 * in.thresholds.dataloaderShare                   ? Severity::Medium
                                                                                    : Severity::Low;
    f.title = "The GPU waits for data " + formatPercent(fraction) + " of each step (" + formatMs(waiting) + ")";
    f.explanation = "Each step spends " + formatMs(waiting) +
                    " in the DataLoader's __next__ with no kernel or copy running: the input pipeline, "
                    "not the model, sets the pace. Loading the next batch in worker processes while "
                    "the GPU computes hides this time.";
    f.evidence.figures = {{"dataloader_wait_per_step_us", waiting / 1e3, "us"},
                          {"dataloader_share_of_step", fraction, "fraction"},
                          {"step_time_us", step / 1e3, "us"}};
    if (labFraction > 0)
        f.evidence.figures.push_back({"lab_dataloader_share", labFraction, "fraction"});
    f.evidence.steps = worstSteps(in, [&](size_t i) { return b.perStep[i][TimeCategory::DataLoader]; });
    for (const Event& e : in.model.events()) {
        if ((e.category == trace::Category::CpuOp || e.category == trace::Category::UserAnnotation) &&
            isDataLoaderOp(in.model.text(e.name))) {
            if (f.evidence.ops.empty())
                f.evidence.ops.emplace_back(in.model.text(e.name));
            if (f.evidence.ranges.size() < 5)
                f.evidence.ranges.push_back({e.startNs, e.endNs()});
        }
    }
    f.estimatedGainNs = waiting;
    f.gainMethod = "the GPU-idle DataLoader time per step, all of which overlaps compute once batches are prefetched";
    f.fix = "Load batches in parallel worker processes and keep them ahead of the GPU; pin host memory so the "
            "copy can overlap. If workers are already many, make the per-sample work cheaper (decode once, "
            "cache, move augmentation to the GPU).";
    f.snippet = "loader = torch.utils.data.DataLoader(\n"
                "    dataset, batch_size=batch_size, shuffle=True,\n"
                "    num_workers=8,            # about the CPU cores per GPU\n"
                "    pin_memory=True,          # page-locked batches: async copies\n"
                "    persistent_workers=True,  # no worker restart each epoch\n"
                "    prefetch_factor=4)        # batches queued per worker\n";
    out.push_back(std::move(f));
}

void lowGpuUtilization(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const UtilizationSeries& series = in.summary.utilization;
    for (const auto& [device, m] : in.summary.gpu) {
        if (!m.utilization)
            continue;
        // The longest stretch of buckets in which the GPU was idle (< 5 % busy).
        int64_t longestIdleNs = 0, runNs = 0, runStart = 0, bestStart = 0;
        if (const auto it = series.gpuBusy.find(device); it != series.gpuBusy.end()) {
            for (size_t b = 0; b < it->second.size(); ++b) {
                if (it->second[b] < 0.05f) {
                    if (runNs == 0)
                        runStart = series.beginNs + static_cast<int64_t>(b) * series.bucketNs;
                    runNs += series.bucketNs;
                    if (runNs > longestIdleNs) {
                        longestIdleNs = runNs;
                        bestStart = runStart;
                    }
                } else {
                    runNs = 0;
                }
            }
        }
        const bool lowOverall = *m.utilization < in.thresholds.lowUtilization;
        const bool starved = static_cast<double>(longestIdleNs) / 1e3 > in.thresholds.idleStretchUs;
        if (!lowOverall && !starved)
            continue;
        Finding f;
        f.id = "low-gpu-utilization";
        f.severity = *m.utilization < in.thresholds.lowUtilizationHigh ? Severity::High
                     : lowOverall                                       ? Severity::Medium
                                                                        : Severity::Low;
        f.title = "GPU " + std::to_string(device) + " runs kernels " + formatPercent(*m.utilization) +
                  " of the time";
        f.explanation = "Kernels cover " + formatPercent(*m.utilization) +
                        " of the steps' span on this device; the rest of the time it is idle. The other "
                        "findings say why (waiting for data, for launches, for synchronisation); if none "
                        "applies, the work per step is too small for the GPU.";
        f.evidence.figures = {{"utilization", *m.utilization, "fraction"},
                              {"longest_idle_stretch_us", static_cast<double>(longestIdleNs) / 1e3, "us"}};
        if (m.smEfficiency)
            f.evidence.figures.push_back({"sm_efficiency", *m.smEfficiency, "fraction"});
        if (longestIdleNs > 0)
            f.evidence.ranges.push_back({bestStart, bestStart + longestIdleNs});
        const double target = std::max(*m.utilization, in.thresholds.lowUtilization);
        f.estimatedGainNs = stepMeanNs(in) * std::max(0.0, target - *m.utilization);
        f.gainMethod = "idle time per step below the " + formatPercent(in.thresholds.lowUtilization) +
                       " utilisation mark (overlaps the gains of the findings that explain it)";
        f.fix = "Fix the cause the other findings name first. If the GPU is simply under-loaded, give it more "
                "work per step: a larger batch (scale the learning rate), or several micro-batches per step.";
        f.snippet = "# more work per launch: a larger batch, or accumulate micro-batches\n"
                    "loader = DataLoader(dataset, batch_size=2 * batch_size, num_workers=8, pin_memory=True)\n"
                    "for group in optimizer.param_groups:\n"
                    "    group[\"lr\"] *= 2  # linear scaling rule\n";
        out.push_back(std::move(f));
    }
}

void launchBound(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const TraceSummary& s = in.summary;
    if (s.gpu.empty() || s.steps.steps.empty())
        return;
    const double step = stepMeanNs(in);
    const double steps = static_cast<double>(s.steps.steps.size());
    // Time the whole GPU sat idle waiting for launches, not already explained by the
    // DataLoader.
    double hostWait = 0;
    for (int64_t ns : s.idleGaps.hostWaitIdleNsPerStep)
        hostWait += static_cast<double>(ns);
    hostWait /= steps;
    const double unexplained = std::max(0.0, hostWait - s.breakdown.all.average(TimeCategory::DataLoader));
    double kernelsPerStep = 0;
    for (int64_t k : s.launches.kernelsPerStep)
        kernelsPerStep += static_cast<double>(k);
    kernelsPerStep /= steps;
    const double shortShare = s.launches.shortKernelShare.value_or(0.0);
    if (share(unexplained, step) < in.thresholds.launchHostWaitShare ||
        kernelsPerStep < in.thresholds.launchMinKernelsPerStep || shortShare < in.thresholds.launchShortKernelShare)
        return;
    Finding f;
    f.id = "launch-bound";
    const double fraction = share(unexplained, step);
    f.severity = fraction >= 0.25 ? Severity::High : fraction >= 0.15 ? Severity::Medium : Severity::Low;
    f.title = "Kernel launches cannot keep up: " + std::to_string(static_cast<int64_t>(kernelsPerStep)) +
              " kernels per step, the GPU waits on the CPU " + formatPercent(fraction) + " of the step";
    f.explanation = formatPercent(shortShare) + " of the kernels run under 10 us, shorter than it takes the CPU "
                    "to launch them, so the stream drains and waits for the next launch (" +
                    formatMs(unexplained) + " per step). Fusing kernels, or replaying the step as a CUDA graph, "
                    "removes most of the per-kernel launch cost.";
    f.evidence.figures = {{"kernels_per_step", kernelsPerStep, "count"},
                          {"short_kernel_share", shortShare, "fraction"},
                          {"host_wait_idle_per_step_us", unexplained / 1e3, "us"},
                          {"launch_call_mean_us", s.launches.launchCallDuration.mean / 1e3, "us"}};
    f.evidence.steps = worstSteps(in, [&](size_t i) { return s.idleGaps.hostWaitIdleNsPerStep[i]; });
    for (const IdleGap& g : s.idleGaps.largest)
        if (g.kind == GapKind::HostWait && f.evidence.ranges.size() < 5)
            f.evidence.ranges.push_back({g.beginNs, g.endNs});
    for (size_t i = 0; i < s.kernels.size() && f.evidence.kernels.size() < 5; ++i)
        if (s.kernels[i].meanNs() < 10'000)
            f.evidence.kernels.push_back(s.kernels[i].name);
    f.estimatedGainNs = unexplained * 0.8;
    f.gainMethod = "80 % of the host-wait idle per step not explained by the DataLoader (CUDA graphs and "
                   "fusion typically remove most but not all launch gaps)";
    f.fix = "Cut the number of launches: compile the model (fuses elementwise chains), capture the whole "
            "step in a CUDA graph when shapes are static, use fused optimizers, and avoid Python loops over "
            "small tensors.";
    f.snippet = "model = torch.compile(model, mode=\"reduce-overhead\")  # fusion + CUDA graphs\n"
                "optimizer = torch.optim.AdamW(model.parameters(), lr=lr, fused=True)\n";
    out.push_back(std::move(f));
}

void unstableSteps(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const std::vector<Step>& steps = in.summary.steps.steps;
    if (steps.size() < 3)
        return;
    std::vector<double> durations;
    for (const Step& s : steps)
        durations.push_back(static_cast<double>(s.durationNs()));
    std::vector<double> sorted = durations;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[sorted.size() / 2];
    double mean = 0;
    for (double d : durations)
        mean += d;
    mean /= static_cast<double>(durations.size());
    double variance = 0;
    for (double d : durations)
        variance += (d - mean) * (d - mean);
    const double cv = std::sqrt(variance / static_cast<double>(durations.size())) / mean;
    const double maxOverMedian = sorted.back() / median;
    if (cv < in.thresholds.unstableCv && maxOverMedian < in.thresholds.unstableMaxOverMedian)
        return;
    Finding f;
    f.id = "unstable-steps";
    f.severity = cv >= 2 * in.thresholds.unstableCv ? Severity::Medium : Severity::Low;
    const bool firstSlow = durations.front() == sorted.back();
    f.title = "Step times vary: the slowest is " + formatRatio(maxOverMedian) + " the median" +
              (firstSlow ? " (the first step)" : "");
    f.explanation = "Steps take " + formatMs(median) + " at the median but up to " + formatMs(sorted.back()) +
                    ". Slow first steps are warm-up (allocator, cuDNN autotuning, compilation) and should be "
                    "excluded from measurements; slow steps later point to periodic work (checkpointing, "
                    "logging, evaluation) or a stalled input pipeline.";
    f.evidence.figures = {{"median_step_us", median / 1e3, "us"},
                          {"slowest_step_us", sorted.back() / 1e3, "us"},
                          {"coefficient_of_variation", cv, "ratio"}};
    f.evidence.steps = worstSteps(in, [&](size_t i) { return durations[i]; });
    f.estimatedGainNs = std::max(0.0, mean - median);
    f.gainMethod = "mean step time minus median step time";
    f.fix = "Warm up before timing or profiling (the profiler schedule's `warmup`), set "
            "torch.backends.cudnn.benchmark for static shapes, and move periodic work (logging, "
            "checkpoints, evaluation) off the training step or make it asynchronous.";
    f.snippet = "torch.backends.cudnn.benchmark = True  # static input shapes\n"
                "schedule = torch.profiler.schedule(wait=1, warmup=3, active=5)\n"
                "if step % log_every == 0:\n"
                "    log(loss.detach())  # no .item() every step\n";
    out.push_back(std::move(f));
}

}  // namespace kinetoscope::analysis::rules
