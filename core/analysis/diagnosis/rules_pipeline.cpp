// Rules about keeping the GPU fed: dataloader-bound, python-bound, launch-bound,
// low-gpu-utilization, unstable-steps. Their gains come from the causal model of the
// step (step_model.h): the step replayed without the cause.
#include "core/analysis/diagnosis/rule_helpers.h"
#include "core/analysis/diagnosis/rules.h"
#include "core/analysis/host_profile.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace kinetoscope::analysis::rules {

namespace {

void addCausalFigures(Finding& f, const DiagnosisInput& in, Cause cause, HostState state)
{
    const CausalModel& m = causal(in);
    f.evidence.figures.push_back(
        {"host_time_per_step_us", m.host(state) / 1e3, Unit::Microseconds});
    f.evidence.figures.push_back(
        {"gpu_idle_meanwhile_per_step_us", m.idleWhile(state) / 1e3, Unit::Microseconds});
    f.evidence.figures.push_back(
        {"gain_if_removed_alone_us", m.solo(cause) / 1e3, Unit::Microseconds});
}

// The outermost CPU ops in the judged steps that launch no device work, by time per step,
// the most first.
std::vector<std::pair<double, std::string>> opsLaunchingNothing(const DiagnosisInput& in)
{
    const trace::TraceModel& model = in.model;
    std::vector<bool> launches(model.events().size(), false);
    for (const Event& e : model.events())
        if (trace::isLaunchCall(e.category))
            for (trace::EventId p = model.idOf(e); p.valid() && !launches[p.value];
                 p = model.event(p).parent)
                launches[p.value] = true;
    std::map<std::string, double> byName;
    for (const Event& e : model.events()) {
        if (e.category != trace::Category::CpuOp || launches[model.idOf(e).value] ||
            !inSteps(in, e.startNs))
            continue;
        if (e.parent.valid() && model.event(e.parent).category == trace::Category::CpuOp)
            continue;  // an outer op stands for it
        byName[std::string(model.text(e.name))] += static_cast<double>(e.durationNs);
    }
    const double steps = static_cast<double>(std::max<size_t>(1, in.summary.steps.steps.size()));
    std::vector<std::pair<double, std::string>> ops;
    ops.reserve(byName.size());
    for (const auto& [name, ns] : byName)
        ops.emplace_back(ns / steps, name);
    std::sort(ops.rbegin(), ops.rend());
    return ops;
}

// Longest stretch with no device work inside the judged steps.
TimeRange longestDeviceIdle(const DiagnosisInput& in)
{
    std::vector<TimeRange> busy;
    for (const Event& e : in.model.events())
        if (e.category == trace::Category::Kernel || e.category == trace::Category::Memcpy ||
            e.category == trace::Category::Memset)
            busy.push_back({e.startNs, e.endNs()});
    std::vector<TimeRange> steps;
    steps.reserve(in.summary.steps.steps.size());
    for (const Step& s : in.summary.steps.steps)
        steps.push_back({s.beginNs, s.endNs});
    TimeRange best{0, 0};
    for (const TimeRange& r : subtract(unionOf(std::move(steps)), unionOf(std::move(busy))))
        if (r.length() > best.length())
            best = r;
    return best;
}

}  // namespace

void dataloaderBound(const DiagnosisInput& in, std::vector<Finding>& out)
{
    if (!hostJudgeable(in))
        return;
    // The plugin's figure: DataLoader time no kernel or copy claimed (the breakdown);
    // the gain: the step replayed without the DataLoader's host time.
    const Breakdown& b = in.summary.breakdown.all;
    const double step = stepMeanNs(in);
    const double waiting = b.average(TimeCategory::DataLoader);
    const double fraction = share(waiting, step);
    const double gain = causal(in).gain(Cause::DataLoader);
    // The lab's own split is dataloader-bound-measured's (rules_lab.cpp): this one reads
    // the trace, and fires on what its steps lose.
    if (share(gain, step) <= in.thresholds.dataloaderShare)
        return;
    double labFraction = 0.0;
    if (in.lab && in.lab->dataLoaderNs && in.lab->computeNs)
        labFraction = share(*in.lab->dataLoaderNs, *in.lab->dataLoaderNs + *in.lab->computeNs);
    Finding f;
    f.id = "dataloader-bound";
    f.basis = SeverityBasis::Gain;
    f.title = "The GPU waits for data " + format::percent(fraction) + " of each step (" +
              format::duration(waiting) + ")";
    f.explanation =
        "Each step spends " + format::duration(causal(in).host(HostState::DataLoader)) +
        " in the DataLoader's __next__ on the training thread, " + format::duration(waiting) +
        " of it with no kernel or copy running: the input pipeline, not the model, sets the pace. "
        "Loading batches in worker processes while the GPU computes hides it; the step would be " +
        format::duration(gain) + " shorter.";
    f.evidence.figures = {{"dataloader_wait_per_step_us", waiting / 1e3, Unit::Microseconds},
                          {"dataloader_share_of_step", fraction, Unit::Fraction},
                          {"step_time_us", step / 1e3, Unit::Microseconds}};
    addCausalFigures(f, in, Cause::DataLoader, HostState::DataLoader);
    if (labFraction > 0)
        f.evidence.figures.push_back({"lab_dataloader_share", labFraction, Unit::Fraction});
    f.evidence.steps =
        worstSteps(in, [&](size_t i) { return b.perStep[i][TimeCategory::DataLoader]; });
    for (const Event& e : in.model.events()) {
        if ((e.category == trace::Category::CpuOp ||
             e.category == trace::Category::UserAnnotation) &&
            isDataLoaderOp(in.model.text(e.name))) {
            if (f.evidence.ops.empty())
                f.evidence.ops.emplace_back(in.model.text(e.name));
            if (f.evidence.ranges.size() < 5)
                f.evidence.ranges.push_back({e.startNs, e.endNs()});
        }
    }
    f.estimatedGainNs = gain;
    f.gainMethod =
        "the step replayed with the DataLoader's host time removed (batches ready when asked for)";
    f.fix = "Load batches in parallel worker processes and keep them ahead of the GPU; pin host "
            "memory so the "
            "copy can overlap. If workers are already many, make the per-sample work cheaper "
            "(decode once, "
            "cache, move augmentation to the GPU)." +
            dataLoaderFixNote(in.lab);
    f.snippet = dataLoaderSnippet(in.lab, false);
    out.push_back(std::move(f));
}

void pythonBound(const DiagnosisInput& in, std::vector<Finding>& out)
{
    if (!hostJudgeable(in))
        return;
    // Host work that launches nothing: Python, and CPU ops on CPU tensors. Two causes in
    // the model (credited separately, so their sum claims no time twice), one finding.
    const CausalModel& m = causal(in);
    const double step = stepMeanNs(in);
    const double gain = m.gain(Cause::Python) + m.gain(Cause::CpuCompute);
    if (share(gain, step) < in.thresholds.pythonShare)
        return;
    const double hostNs = m.host(HostState::Python) + m.host(HostState::CpuCompute);
    const double idleNs = m.idleWhile(HostState::Python) + m.idleWhile(HostState::CpuCompute);
    Finding f;
    f.id = "python-bound";
    f.basis = SeverityBasis::Gain;
    f.title = "The GPU waits while the host runs Python or CPU ops: " + format::duration(idleNs) +
              " idle per step";
    f.explanation = "Python (or host code the profiler did not record as ops) and CPU ops that "
                    "launch no device "
                    "work take " +
                    format::duration(hostNs) + " per step on the training thread (" +
                    format::duration(m.host(HostState::CpuCompute)) +
                    " of it in CPU ops), and no device work is queued "
                    "meanwhile. Preprocessing, metrics, bookkeeping or element-wise Python loops "
                    "between launches "
                    "serialise with the GPU; moved out of the step, vectorised or put on the GPU, "
                    "the step would be " +
                    format::duration(gain) + " shorter.";
    f.evidence.figures = {
        {"host_time_per_step_us", hostNs / 1e3, Unit::Microseconds},
        {"cpu_op_time_per_step_us", m.host(HostState::CpuCompute) / 1e3, Unit::Microseconds},
        {"gpu_idle_meanwhile_per_step_us", idleNs / 1e3, Unit::Microseconds},
        {"step_time_us", step / 1e3, Unit::Microseconds}};
    const std::vector<std::pair<double, std::string>> ops = opsLaunchingNothing(in);
    for (size_t i = 0; i < std::min<size_t>(3, ops.size()); ++i)
        f.evidence.ops.emplace_back(ops[i].second);
    const bool randomData =
        !ops.empty() && isRandomDataOp(ops.front().second) && ops.front().first >= 0.5 * hostNs;
    if (!ops.empty())
        f.evidence.figures.push_back(
            {"top_cpu_op_time_per_step_us", ops.front().first / 1e3, Unit::Microseconds});
    if (randomData)
        f.explanation += " Most of it is " + ops.front().second + " (" +
                         format::duration(ops.front().first) +
                         " per step): random data drawn on the CPU every step.";
    f.estimatedGainNs = gain;
    f.gainMethod =
        "the step replayed without the stretches (≥ 500 µs) of Python and of CPU-only ops between "
        "launches";
    f.fix = randomData ? "Draw the random data on the device (torch.randn(..., device=\"cuda\")), "
                         "or once before the "
                         "loop; in training, produce the batches in DataLoader workers."
            : isInference(in)
                ? "Move request preprocessing out of the serving loop (a separate thread or "
                  "process), vectorise "
                  "it with tensor ops, and keep per-token bookkeeping on the GPU."
                : "Move preprocessing into DataLoader workers (the dataset's __getitem__ or a "
                  "collate_fn), "
                  "vectorise Python loops into tensor ops, and do per-batch work on the GPU.";
    f.snippet = isInference(in)
                    ? "# preprocessing in a worker thread, overlapped with the model\n"
                      "with torch.inference_mode():\n"
                      "    batch = preprocess_queue.get()   # prepared while the GPU ran\n"
                      "    out = model(batch.to(device, non_blocking=True))\n"
                    : "class Prepared(torch.utils.data.Dataset):\n"
                      "    def __getitem__(self, i):\n"
                      "        return preprocess(self.items[i])  # runs in a worker\n"
                      "loader = DataLoader(Prepared(items), num_workers=8, pin_memory=True)\n"
                      "total = values.sum()  # not: for v in values: total += v\n";
    out.push_back(std::move(f));
}

void launchBound(const DiagnosisInput& in, std::vector<Finding>& out)
{
    if (!hostJudgeable(in) || in.summary.gpu.empty())
        return;
    const TraceSummary& s = in.summary;
    const double step = stepMeanNs(in);
    const double gain = causal(in).gain(Cause::LaunchOverhead);
    const double idleLaunching = causal(in).idleWhile(HostState::Launching);
    // Host-bound is judged from what the host was doing while the GPU idled, not from a
    // kernel count.
    if (share(idleLaunching, step) < in.thresholds.launchHostWaitShare ||
        share(gain, step) < in.thresholds.launchHostWaitShare)
        return;
    double kernelsPerStep = 0;
    for (int64_t k : s.launches.kernelsPerStep)
        kernelsPerStep += static_cast<double>(k);
    kernelsPerStep /= static_cast<double>(std::max<size_t>(1, s.launches.kernelsPerStep.size()));
    const double shortShare = s.launches.shortKernelShare.value_or(0.0);
    Finding f;
    f.id = "launch-bound";
    f.basis = SeverityBasis::Gain;
    f.title = "The GPU waits on the CPU's launches " + format::percent(share(idleLaunching, step)) +
              " of the step (" + format::count(static_cast<int64_t>(kernelsPerStep)) +
              " kernels per step)";
    f.explanation =
        "While the host dispatches ops and launches kernels (" +
        format::duration(causal(in).host(HostState::Launching)) +
        " per step), the GPU has nothing queued for " + format::duration(idleLaunching) + ": " +
        format::percent(shortShare) +
        " of the kernels run under 10 µs, shorter than it takes to launch them. Replaying the step "
        "as a CUDA graph, or compiling it, removes most of the per-op host cost; the step would be "
        "up "
        "to " +
        format::duration(gain) + " shorter.";
    f.evidence.figures = {
        {"kernels_per_step", kernelsPerStep, Unit::Count},
        {"short_kernel_share", shortShare, Unit::Fraction},
        {"launch_call_mean_us", s.launches.launchCallDuration.mean / 1e3, Unit::Microseconds}};
    addCausalFigures(f, in, Cause::LaunchOverhead, HostState::Launching);
    for (const IdleGap& g : s.idleGaps.largest)
        if (g.kind == GapKind::HostWait && f.evidence.ranges.size() < 5)
            f.evidence.ranges.push_back({g.beginNs, g.endNs});
    for (size_t i = 0; i < s.kernels.size() && f.evidence.kernels.size() < 5; ++i)
        if (s.kernels[i].meanNs() < 10'000)
            f.evidence.kernels.emplace_back(s.kernels[i].name);
    f.estimatedGainNs = gain;
    f.gainMethod =
        "the step replayed with the host's op-dispatch and launch time removed (an upper bound: a "
        "CUDA graph still costs one launch)";
    if (isInference(in)) {
        f.fix = "Capture the forward pass in a CUDA graph (torch.compile with "
                "mode=\"reduce-overhead\", or "
                "torch.cuda.graphs for static shapes), use fused kernels "
                "(scaled_dot_product_attention), and "
                "batch more requests per forward.";
        f.snippet = "model = torch.compile(model, mode=\"reduce-overhead\")  # CUDA graphs\n"
                    "with torch.inference_mode():\n"
                    "    out = model(batch)\n";
    } else {
        f.fix = "Cut the number of launches: compile the model (fuses elementwise chains), capture "
                "the whole "
                "step in a CUDA graph when shapes are static, use fused optimizers, and avoid "
                "Python loops over "
                "small tensors.";
        f.snippet =
            "model = torch.compile(model, mode=\"reduce-overhead\")  # fusion + CUDA graphs\n" +
            fusedOptimizerSnippet(in.model);
    }
    // Already compiled: fusion is done, and what is left is launching what it made, one
    // kernel at a time.
    const compiled::CompiledWindow& compiledWindow = in.summary.compiled;
    if (compiledWindow.compiled && compiledWindow.deviceShare >= 0.5) {
        f.explanation += " The model is compiled already (" +
                         format::percent(compiledWindow.deviceShare) +
                         " of the device time from compiled graphs): its kernels are fused, and "
                         "launching them one by one is what is left.";
        f.fix = "Capture the compiled graphs in CUDA graphs: torch.compile(model, "
                "mode=\"reduce-overhead\") (static shapes; mark the inputs that change "
                "dynamic), remove graph breaks so fewer, larger graphs run, and give each "
                "step more work (a larger batch).";
        f.snippet = "model = torch.compile(model, mode=\"reduce-overhead\")  # CUDA graphs\n";
    }
    out.push_back(std::move(f));
}

void lowGpuUtilization(const DiagnosisInput& in, std::vector<Finding>& out)
{
    // Without the host, idle between short kernels is short-kernels-idle-gaps' reading: the
    // host did not keep up, not too little work per step.
    if (!judgeable(in) || deviceGapsWithoutHost(in))
        return;
    const CausalModel& m = causal(in);
    const double step = stepMeanNs(in);
    // The idle time the host-side findings already explain is theirs; this finding is
    // for a GPU that is under-loaded for another reason.
    double explained = 0;
    for (Cause c : {Cause::DataLoader, Cause::Python, Cause::LaunchOverhead, Cause::HostSync,
                    Cause::PageableCopy, Cause::CpuCompute})
        explained += m.gain(c);
    const TimeRange longest = longestDeviceIdle(in);
    for (const auto& [device, g] : in.summary.gpu) {
        if (!g.utilization)
            continue;
        const bool lowOverall = *g.utilization < in.thresholds.lowUtilization;
        const bool starved =
            static_cast<double>(longest.length()) / 1e3 > in.thresholds.idleStretchUs;
        const double unexplained = std::max(0.0, m.deviceIdleNs - explained);
        if ((!lowOverall && !starved) || unexplained < 0.5 * m.deviceIdleNs)
            continue;
        Finding f;
        f.id = "low-gpu-utilization";
        f.severity = share(unexplained, step) >= 0.5 ? Severity::Medium : Severity::Low;
        f.title = "GPU " + std::to_string(device) + " runs kernels " +
                  format::percent(*g.utilization) + " of the time";
        f.explanation =
            "Kernels cover " + format::percent(*g.utilization) +
            " of the steady steps on this device. " + format::duration(unexplained) +
            " of idle per step is not explained by anything the host was seen "
            "doing (data, Python, launches, synchronisation): host code the profiler did not "
            "record "
            "(profile with with_stack=True to see it), other devices or ranks, or simply too "
            "little "
            "work per step for this GPU. More work per step raises throughput; it does not shorten "
            "the step.";
        f.evidence.figures = {
            {"utilization", *g.utilization, Unit::Fraction},
            {"unexplained_idle_per_step_us", unexplained / 1e3, Unit::Microseconds},
            {"longest_idle_stretch_us", static_cast<double>(longest.length()) / 1e3,
             Unit::Microseconds}};
        if (g.smEfficiency)
            f.evidence.figures.push_back({"sm_efficiency", *g.smEfficiency, Unit::Fraction});
        if (longest.length() > 0)
            f.evidence.ranges.push_back(longest);
        f.gainMethod = "none per step: more work per step raises throughput, not step time";
        if (isInference(in)) {
            f.fix = "Batch more requests (or tokens) per forward, or run several model replicas "
                    "per GPU.";
            f.snippet = "# dynamic batching: gather requests up to a size or a deadline\n"
                        "batch = collate(queue.get_many(max_items=64, timeout_ms=5))\n"
                        "with torch.inference_mode():\n"
                        "    out = model(batch)\n";
        } else {
            f.fix = "Give the GPU more work per step: a larger batch (scale the learning rate), or "
                    "several "
                    "micro-batches per step.";
            f.snippet = "loader = DataLoader(dataset, batch_size=2 * batch_size, num_workers=8, "
                        "pin_memory=True)\n"
                        "for group in optimizer.param_groups:\n"
                        "    group[\"lr\"] *= 2  # linear scaling rule\n";
        }
        out.push_back(std::move(f));
    }
}

void unstableSteps(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const std::vector<Step>& steps = in.summary.steps.steps;
    if (!judgeable(in) || steps.size() < 3)
        return;
    // What varies once the DataLoader's wait is out: slow steps that wait for data are
    // dataloader-bound's to fix (a pipeline that drains every few steps), not another cost.
    const Breakdown& b = in.summary.breakdown.all;
    std::vector<double> durations;
    for (size_t i = 0; i < steps.size(); ++i) {
        const double waiting = i < b.perStep.size()
                                   ? static_cast<double>(b.perStep[i][TimeCategory::DataLoader])
                                   : 0.0;
        durations.push_back(std::max(0.0, static_cast<double>(steps[i].durationNs()) - waiting));
    }
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
    f.basis = SeverityBasis::Gain;
    f.title =
        "Steady step times vary: the slowest is " + format::ratio(maxOverMedian) + " the median";
    f.explanation = "Steps take " + format::duration(median) + " at the median but up to " +
                    format::duration(sorted.back()) +
                    " (warm-up already left out, and the wait for the DataLoader: that is "
                    "the DataLoader finding's). Slow "
                    "steps in the middle of a run point to periodic work (checkpointing, logging, "
                    "evaluation), or "
                    "host jitter.";
    f.evidence.figures = {{"median_step_us", median / 1e3, Unit::Microseconds},
                          {"slowest_step_us", sorted.back() / 1e3, Unit::Microseconds},
                          {"coefficient_of_variation", cv, Unit::Ratio}};
    f.evidence.steps = worstSteps(in, [&](size_t i) { return durations[i]; });
    f.estimatedGainNs = std::max(0.0, mean - median);
    f.gainMethod = "mean step time minus median step time (the slow steps' excess, per step)";
    f.fix =
        "Move periodic work (logging, checkpoints, evaluation) off the training step or make it "
        "asynchronous, and keep the input pipeline ahead (more workers, prefetch).";
    f.snippet = "if step % log_every == 0:\n"
                "    log(loss.detach())  # no .item() every step\n"
                "torch.save(state, path)  # in a background thread, or every N steps\n";
    out.push_back(std::move(f));
}

}  // namespace kinetoscope::analysis::rules
