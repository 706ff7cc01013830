// Rules about the host waiting on the device: host-sync, pageable-memcpy.
#include "core/analysis/diagnosis/rule_helpers.h"
#include "core/analysis/diagnosis/rules.h"

#include <map>

namespace kinetoscope::analysis::rules {

using trace::Category;

namespace {

bool isScalarRead(std::string_view name)
{
    return name == "aten::item" || name == "aten::_local_scalar_dense";
}

// The nearest enclosing op or annotation that says where a call comes from (the step
// marker and the scalar-read ops themselves are skipped).
std::string origin(const trace::TraceModel& model, const Event& e, const std::string& marker)
{
    for (trace::EventId p = e.parent; p.valid(); p = model.event(p).parent) {
        const Event& parent = model.event(p);
        const std::string_view name = model.text(parent.name);
        if ((parent.category == Category::CpuOp || parent.category == Category::UserAnnotation ||
             parent.category == Category::PythonFunction) &&
            !isScalarRead(name) && !(marker.size() && name.starts_with(marker)))
            return std::string(name);
    }
    return "(top level)";
}

}  // namespace

void hostSync(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const std::vector<Step>& steps = in.summary.steps.steps;
    if (steps.empty() || in.summary.gpu.empty())
        return;
    const int64_t begin = steps.front().beginNs, end = steps.back().endNs;
    const std::string marker = in.summary.steps.fromMarkers ? in.summary.steps.marker : std::string();
    double blocked = 0;
    int64_t calls = 0, scalarReads = 0;
    std::map<std::string, double> origins;
    std::vector<TimeRange> ranges;
    for (const Event& e : in.model.events()) {
        if (e.startNs < begin || e.startNs >= end)
            continue;
        const std::string_view name = in.model.text(e.name);
        bool counted = false;
        if (e.category == Category::CpuOp && name == "aten::item") {
            ++scalarReads;
            counted = true;
        } else if (trace::isLaunchCall(e.category) && isSynchronizingCall(name)) {
            // A sync inside aten::item is already counted with it.
            bool insideItem = false;
            for (trace::EventId p = e.parent; p.valid() && !insideItem; p = in.model.event(p).parent)
                insideItem = isScalarRead(in.model.text(in.model.event(p).name));
            if (!insideItem) {
                ++calls;
                counted = true;
            }
        }
        if (!counted)
            continue;
        blocked += static_cast<double>(e.durationNs);
        origins[std::string(name) + " in " + origin(in.model, e, marker)] += static_cast<double>(e.durationNs);
        ranges.push_back({e.startNs, e.endNs()});
    }
    const double n = static_cast<double>(steps.size());
    const double perStep = blocked / n;
    const double fraction = share(perStep, stepMeanNs(in));
    if (fraction < in.thresholds.hostSyncShare)
        return;
    Finding f;
    f.id = "host-sync";
    f.severity = fraction >= in.thresholds.hostSyncShareHigh ? Severity::High
                 : fraction >= 2.5 * in.thresholds.hostSyncShare ? Severity::Medium
                                                                  : Severity::Low;
    f.title = "The CPU blocks on the GPU " + formatMs(perStep) + " per step (" + formatPercent(fraction) + ")";
    f.explanation = "Synchronising calls (" + std::to_string(calls) + " blocking CUDA calls, " +
                    std::to_string(scalarReads) + " .item() reads over the steps) stop the CPU until the GPU "
                    "catches up, so the next launches are late and the GPU then idles. Keep values on the "
                    "GPU and read them rarely.";
    f.evidence.figures = {{"blocked_time_per_step_us", perStep / 1e3, "us"},
                          {"blocked_share_of_step", fraction, "fraction"},
                          {"sync_calls_per_step", static_cast<double>(calls) / n, "count"},
                          {"item_calls_per_step", static_cast<double>(scalarReads) / n, "count"}};
    std::vector<std::pair<double, std::string>> top;
    for (const auto& [where, ns] : origins)
        top.emplace_back(ns, where);
    std::sort(top.rbegin(), top.rend());
    for (size_t i = 0; i < std::min<size_t>(5, top.size()); ++i)
        f.evidence.ops.push_back(top[i].second);
    std::sort(ranges.begin(), ranges.end(), [](const TimeRange& a, const TimeRange& b) { return a.length() > b.length(); });
    ranges.resize(std::min<size_t>(5, ranges.size()));
    f.evidence.ranges = ranges;
    f.estimatedGainNs = perStep;
    f.gainMethod = "the time per step the CPU spends blocked in synchronising calls and .item()";
    f.fix = "Accumulate metrics on the GPU and read them every N steps; use non_blocking copies; avoid "
            ".item(), .cpu(), .numpy(), print(tensor) and data-dependent Python control flow inside the step.";
    f.snippet = "running_loss += loss.detach()          # stays on the GPU\n"
                "if step % 100 == 0:\n"
                "    print(running_loss.item() / 100)   # one sync every 100 steps\n"
                "    running_loss.zero_()\n";
    out.push_back(std::move(f));
}

void pageableMemcpy(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const std::vector<Step>& steps = in.summary.steps.steps;
    if (steps.empty())
        return;
    const int64_t begin = steps.front().beginNs, end = steps.back().endNs;
    double copyNs = 0, hostNs = 0;
    int64_t copies = 0;
    double bytes = 0;
    std::map<std::string, double> ops;
    for (const Event& e : in.model.events()) {
        if (e.category != Category::Memcpy || e.startNs < begin || e.startNs >= end)
            continue;
        const std::string_view name = in.model.text(e.name);
        if (name.find("HtoD") == std::string_view::npos || name.find("Pageable") == std::string_view::npos)
            continue;
        ++copies;
        copyNs += static_cast<double>(e.durationNs);
        if (const trace::CopyInfo* info = in.model.copyInfo(in.model.idOf(e)); info && info->bytes > 0)
            bytes += static_cast<double>(info->bytes);
        if (e.correlated.valid())
            hostNs += static_cast<double>(in.model.event(e.correlated).durationNs);
        if (e.op.valid())
            ops[std::string(in.model.text(in.model.event(e.op).name))] += static_cast<double>(e.durationNs);
    }
    const double n = static_cast<double>(steps.size());
    const double fraction = share(copyNs / n, stepMeanNs(in));
    if (copies == 0 || fraction < in.thresholds.pageableShare)
        return;
    Finding f;
    f.id = "pageable-memcpy";
    f.severity = fraction >= 0.05 ? Severity::Medium : Severity::Low;
    f.title = "Host-to-device copies come from pageable memory: " + formatMs(copyNs / n) + " per step";
    f.explanation = "Copies from pageable host memory are staged through a driver buffer and cannot overlap "
                    "compute; the CPU waits " + formatMs(hostNs / n) + " per step in the copy calls. From "
                    "pinned memory they run at full PCIe/NVLink bandwidth and asynchronously.";
    f.evidence.figures = {{"pageable_copies_per_step", static_cast<double>(copies) / n, "count"},
                          {"pageable_copy_time_per_step_us", copyNs / n / 1e3, "us"},
                          {"host_blocked_in_copy_calls_per_step_us", hostNs / n / 1e3, "us"},
                          {"bytes_per_step", bytes / n, "bytes"}};
    if (copyNs > 0 && bytes > 0)
        f.evidence.figures.push_back({"bandwidth_gb_per_s", bytes / copyNs, "GB/s"});
    for (const auto& [name, ns] : ops)
        f.evidence.ops.push_back(name);
    f.estimatedGainNs = 0.5 * copyNs / n;
    f.gainMethod = "half of the pageable copy time per step (pinned copies run about twice as fast and overlap)";
    f.fix = "Pin the batches in the DataLoader and copy them with non_blocking=True.";
    f.snippet = "loader = DataLoader(dataset, batch_size=bs, num_workers=8, pin_memory=True)\n"
                "for x, y in loader:\n"
                "    x = x.cuda(non_blocking=True)\n"
                "    y = y.cuda(non_blocking=True)\n";
    out.push_back(std::move(f));
}

}  // namespace kinetoscope::analysis::rules
