// Rules for a window whose host side was not recorded: a trace of the device's timeline
// alone (ProfilerActivity.CUDA without CPU, or an exporter that kept the device rows).
// What the host did while the device idled is not in it, so the causal model cannot
// attribute the idle time (no host state, no launch to wait on); host-not-recorded says
// so first. The device's timeline still has a story of its own: many short kernels with
// idle gaps between them is the signature of a host that cannot keep up
// (short-kernels-idle-gaps), whatever the host was doing.
#include "core/analysis/diagnosis/rule_helpers.h"
#include "core/analysis/diagnosis/rules.h"
#include "core/analysis/runtime_calls.h"

#include <algorithm>

namespace kinetoscope::analysis::rules {

using trace::Category;

namespace {

// A kernel shorter than this is short: about what it takes the host to dispatch an op and
// launch it (5-20 µs with PyTorch's eager dispatch), so a host launching one at a time
// cannot stay ahead of a stream of them.
constexpr double kShortKernelNs = 20'000;
// What a gap between two kernels still costs when the host is no longer late (one CUDA
// graph, or one compiled region, keeps the queue full): the device's own turnaround.
constexpr int64_t kQueuedGapNs = 1'000;  // 1 µs

bool isDeviceActivity(Category c)
{
    return c == Category::Kernel || c == Category::Memcpy || c == Category::Memset;
}

const char* kProfileBothSnippet =
    "prof = torch.profiler.profile(\n"
    "    activities=[torch.profiler.ProfilerActivity.CPU,   # the host: ops, launches, Python\n"
    "                torch.profiler.ProfilerActivity.CUDA],\n"
    "    schedule=torch.profiler.schedule(wait=1, warmup=2, active=3))\n";

}  // namespace

std::optional<DeviceGaps> deviceGapsWithoutHost(const DiagnosisInput& in)
{
    const WindowClass& w = in.summary.window;
    if (w.hostOpsRecorded || !judgeable(in))
        return std::nullopt;
    const std::vector<Step>& steps = in.summary.steps.steps;
    DeviceGaps g;
    std::vector<int64_t> kernelNs;
    // Per step: the device's activities in time order, merged across streams and devices;
    // a gap is time between two of them with nothing running (before the first and after
    // the last of a step is not between kernels).
    for (const Step& s : steps) {
        std::vector<TimeRange> busy;
        for (const Event& e : in.model.events()) {
            if (!isDeviceActivity(e.category) || e.startNs < s.beginNs || e.startNs >= s.endNs)
                continue;
            busy.push_back({e.startNs, std::min(e.endNs(), s.endNs)});
            if (e.category == Category::Kernel)
                kernelNs.push_back(e.durationNs);
        }
        const RangeSet merged = unionOf(std::move(busy));
        for (size_t i = 1; i < merged.size(); ++i) {
            const int64_t gap = merged[i].begin - merged[i - 1].end;
            g.gapNs += static_cast<double>(gap);
            g.recoverableNs += static_cast<double>(std::max<int64_t>(0, gap - kQueuedGapNs));
            ++g.gaps;
        }
    }
    if (kernelNs.empty())
        return std::nullopt;
    const double n = static_cast<double>(steps.size());
    g.gapNs /= n;
    g.recoverableNs /= n;
    g.gaps /= n;
    g.kernels = static_cast<double>(kernelNs.size()) / n;
    std::nth_element(kernelNs.begin(), kernelNs.begin() + kernelNs.size() / 2, kernelNs.end());
    g.medianKernelNs = static_cast<double>(kernelNs[kernelNs.size() / 2]);
    const CausalModel& m = causal(in);
    g.busyShare = share(m.deviceBusyNs, m.stepNs);
    // The signature: the device idles most of the step, between kernels too short to be
    // launched one by one as fast as they run.
    if (g.busyShare >= in.thresholds.lowUtilization || g.medianKernelNs >= kShortKernelNs ||
        share(g.recoverableNs, stepMeanNs(in)) < in.thresholds.launchHostWaitShare)
        return std::nullopt;
    return g;
}

void hostNotRecorded(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const WindowClass& w = in.summary.window;
    // A cut file may hold the host's events beyond the cut: trace-quality says so. A window
    // too short or too sparse to judge is window-too-short's: that reading comes first.
    if (w.hostOpsRecorded || w.deviceActivities == 0 || w.partlyRead() || w.nearlyEmpty || w.sparse)
        return;
    Finding f;
    f.id = "host-not-recorded";
    f.aboutWindow = true;
    // It changes how every finding reads (no idle time has a cause): first, whatever follows.
    f.severity = Severity::High;
    f.gainMethod = "not a per-step cost: it says what the window is";
    const int64_t calls = w.kernelLaunchCalls + w.graphLaunches;
    const std::string activities =
        format::counted(uint64_t(w.deviceActivities), "device activity", "device activities");
    // With the runtime's launch calls in the trace (a ROCm export of the device's rows and
    // their launches), "only the device" would be false: the host's ops are what is missing.
    if (calls > 0) {
        f.title = "No CPU op was recorded: " + activities + " and " +
                  format::counted(uint64_t(calls), "launch call", "launch calls") +
                  ", not the host's work around them";
        f.explanation =
            "The trace holds the device's timeline and the runtime's launch calls but no CPU op "
            "(recorded without the CPU activity, or exported without the host's ops): what the "
            "host did while the device idled (loading data, running Python, the ops that "
            "launched the kernels, waiting on a synchronisation) is not in it, so the device's "
            "idle time cannot be attributed to a cause and no host-side finding can be made. The "
            "findings below read the device's timeline alone.";
    } else {
        f.title = "Only the device was recorded: " + activities + ", no CPU op";
        f.explanation =
            "The trace holds the device's timeline alone (recorded with ProfilerActivity.CUDA "
            "and not CPU, or exported without the host's rows): what the host did while the "
            "device idled (loading data, running Python, launching, waiting on a "
            "synchronisation) is not in it, so the device's idle time cannot be attributed to a "
            "cause and no host-side finding can be made. The findings below read the device's "
            "timeline alone.";
    }
    const double busy = share(causal(in).deviceBusyNs, causal(in).stepNs);
    if (judgeable(in))
        f.explanation += busy >= in.thresholds.lowUtilization
                             ? " The device is busy " + format::percent(busy) +
                                   " of the step: its own work sets the pace."
                             : " The device idles " + format::percent(1.0 - busy) +
                                   " of the step, for reasons the host would show.";
    f.evidence.figures = {
        {"device_activities", static_cast<double>(w.deviceActivities), Unit::Count},
        {"host_ops", 0.0, Unit::Count},
        {"launch_calls", static_cast<double>(calls), Unit::Count},
        {"device_busy_share", busy, Unit::Fraction}};
    f.fix = "Profile with the CPU activity as well as the device's, so that the device's idle "
            "time can be attributed to what the host was doing.";
    f.snippet = kProfileBothSnippet;
    out.push_back(std::move(f));
}

void shortKernelsIdleGaps(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const std::optional<DeviceGaps> g = deviceGapsWithoutHost(in);
    if (!g)
        return;
    const double step = stepMeanNs(in);
    Finding f;
    f.id = "short-kernels-idle-gaps";
    f.basis = SeverityBasis::Gain;
    f.title = "The device idles " + format::percent(1.0 - g->busyShare) + " of the step between " +
              format::count(static_cast<int64_t>(g->kernels)) + " short kernels (median " +
              format::duration(g->medianKernelNs) + "): the host does not keep up";
    f.explanation =
        "The device runs " + format::count(static_cast<int64_t>(g->kernels)) +
        " kernels per step, half of them shorter than " + format::duration(g->medianKernelNs) +
        ", and waits " + format::duration(g->gapNs) + " per step in " +
        format::count(static_cast<int64_t>(g->gaps)) +
        " gaps between them. Kernels that short finish before the host has dispatched and "
        "launched the next op, so the device waits for each launch: the signature of a host "
        "that cannot keep up, whatever it was doing (the host side was not recorded). Fewer, "
        "larger launches close the gaps: a CUDA graph or torch.compile of the step, or a "
        "larger batch per kernel; the step would be up to " +
        format::duration(g->recoverableNs) + " shorter.";
    f.evidence.figures = {{"device_busy_share", g->busyShare, Unit::Fraction},
                          {"kernels_per_step", g->kernels, Unit::Count},
                          {"median_kernel_us", g->medianKernelNs / 1e3, Unit::Microseconds},
                          {"idle_between_kernels_per_step_us", g->gapNs / 1e3, Unit::Microseconds},
                          {"gaps_per_step", g->gaps, Unit::Count}};
    for (size_t i = 0; i < in.summary.kernels.size() && f.evidence.kernels.size() < 5; ++i)
        if (in.summary.kernels[i].meanNs() < kShortKernelNs)
            f.evidence.kernels.emplace_back(in.summary.kernels[i].name);
    for (const IdleGap& gap : in.summary.idleGaps.largest)
        if (f.evidence.ranges.size() < 5)
            f.evidence.ranges.push_back({gap.beginNs, gap.endNs});
    f.estimatedGainNs = std::min(g->recoverableNs, step);
    f.gainMethod = "the idle time between the step's kernels, less 1 µs per gap that a full "
                   "queue still leaves (an upper bound: the host's share of it is not recorded)";
    if (isInference(in)) {
        f.fix = "Launch fewer, larger kernels: capture the forward in a CUDA graph (torch.compile "
                "with mode=\"reduce-overhead\"), and batch more requests per forward.";
        f.snippet = "model = torch.compile(model, mode=\"reduce-overhead\")  # CUDA graphs\n"
                    "with torch.inference_mode():\n"
                    "    out = model(batch)\n";
    } else {
        f.fix = "Launch fewer, larger kernels: compile the step (torch.compile fuses the small "
                "ops; mode=\"reduce-overhead\" adds CUDA graphs), or give each kernel more work "
                "with a larger batch. Record the CPU too to see which host work is late.";
        f.snippet = "model = torch.compile(model, mode=\"reduce-overhead\")  # fusion + CUDA "
                    "graphs\n"
                    "loader = DataLoader(dataset, batch_size=2 * batch_size, num_workers=8)\n";
    }
    out.push_back(std::move(f));
}

}  // namespace kinetoscope::analysis::rules
