// Rules about the host waiting on the device: host-sync, pageable-memcpy. A blocking call
// costs the step only what the GPU then idles for because of it: the causal model replays
// the step with the call not waiting.
#include "core/analysis/diagnosis/rule_helpers.h"
#include "core/analysis/diagnosis/rules.h"
#include "core/analysis/runtime_calls.h"

#include <map>
#include <unordered_set>

namespace kinetoscope::analysis::rules {

using trace::Category;

namespace {

// The nearest enclosing op or annotation that says where a call comes from (the step
// marker and the op plumbing of a copy or scalar read are skipped).
std::string origin(const trace::TraceModel& model, const Event& e, const std::string& marker)
{
    std::string plumbing;
    for (trace::EventId p = e.parent; p.valid(); p = model.event(p).parent) {
        const Event& parent = model.event(p);
        const std::string_view name = model.text(parent.name);
        if (parent.category != Category::CpuOp && parent.category != Category::UserAnnotation &&
            parent.category != Category::PythonFunction)
            continue;
        if (!marker.empty() && name.starts_with(marker))
            break;
        if (isScalarReadOp(name) || isCopyOp(name)) {
            plumbing = std::string(name);
            continue;
        }
        return plumbing.empty() ? std::string(name) : plumbing + " in " + std::string(name);
    }
    return plumbing.empty() ? "(top level)" : plumbing;
}

// The ops that copied device memory to the host: a read such as .item() or .cpu() is an
// asynchronous copy (to pinned memory in recent PyTorch) and then a wait, two calls under
// one op, so the wait is told a read by its op.
std::unordered_set<trace::EventId> opsCopyingToHost(const DiagnosisInput& in)
{
    std::unordered_set<trace::EventId> ops;
    for (const Event& copy : in.model.events()) {
        if (copy.category != Category::Memcpy || !copy.correlated.valid())
            continue;
        const Event& call = in.model.event(copy.correlated);
        if (call.parent.valid() && inSteps(in, call.startNs) &&
            classifyCopy(in.model.text(copy.name)).direction == CopyDirection::DeviceToHost)
            ops.insert(call.parent);
    }
    return ops;
}

}  // namespace

void hostSync(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const std::vector<Step>& steps = in.summary.steps.steps;
    if (!hostJudgeable(in) || in.summary.window.deviceActivities == 0)
        return;
    const std::string marker =
        in.summary.steps.fromMarkers ? in.summary.steps.marker : std::string();
    double blocked = 0;
    int64_t calls = 0;
    // A read is counted once however many of its calls wait (a pageable copy, then a sync).
    std::unordered_set<trace::EventId> reads;
    std::map<std::string, double> origins;
    std::vector<TimeRange> ranges;
    const std::unordered_set<trace::EventId> readingOps = opsCopyingToHost(in);
    for (const Event& e : in.model.events()) {
        if (!trace::isLaunchCall(e.category) || !inSteps(in, e.startNs) ||
            !blocksHost(in.model, e) || isSynchronousLaunch(in.model, e))
            continue;  // a synchronous launch is the device's way, not a sync to remove
        bool bulk = false, read = e.parent.valid() && readingOps.contains(e.parent);
        for (trace::EventId a : in.model.activitiesLaunchedBy(in.model.idOf(e))) {
            const Event& activity = in.model.event(a);
            bulk |= isBulkPageableCopy(in.model, activity);
            read |=
                classifyCopy(in.model.text(activity.name)).direction == CopyDirection::DeviceToHost;
        }
        if (bulk)
            continue;  // bulk copies through pageable memory: pageable-memcpy
        if (read)
            reads.insert(e.parent.valid() ? e.parent : in.model.idOf(e));
        ++calls;
        blocked += static_cast<double>(e.durationNs);
        origins[std::string(in.model.text(e.name)) + " in " + origin(in.model, e, marker)] +=
            static_cast<double>(e.durationNs);
        ranges.push_back({e.startNs, e.endNs()});
    }
    const double n = static_cast<double>(steps.size());
    const double step = stepMeanNs(in);
    const double gain = causal(in).gain(Cause::HostSync);
    if (calls == 0 || share(gain, step) < in.thresholds.hostSyncShare)
        return;
    Finding f;
    f.id = "host-sync";
    f.basis = SeverityBasis::Gain;
    f.title = "Blocking calls leave the GPU idle: " + format::duration(gain) + " per step (" +
              format::percent(share(gain, step)) + ")";
    f.explanation =
        format::count(calls) + " calls over the steps block the CPU until the GPU catches up (" +
        format::duration(blocked / n) + " per step), in which the steps read a value back " +
        format::count(int64_t(reads.size())) +
        " times (.item(), .cpu(), .to(\"cpu\")). The wait itself costs "
        "nothing while the GPU is busy; what costs is the host work after it, which could have run "
        "while the GPU computed and instead runs with the GPU idle.";
    f.evidence.figures = {
        {"gpu_idle_caused_per_step_us", gain / 1e3, Unit::Microseconds},
        {"blocked_time_per_step_us", blocked / n / 1e3, Unit::Microseconds},
        {"blocking_calls_per_step", static_cast<double>(calls) / n, Unit::Count},
        {"device_to_host_reads_per_step", static_cast<double>(reads.size()) / n, Unit::Count}};
    for (const std::string& where : largestFirst(origins, 5))
        f.evidence.ops.emplace_back(where);
    std::sort(ranges.begin(), ranges.end(),
              [](const TimeRange& a, const TimeRange& b) { return a.length() > b.length(); });
    ranges.resize(std::min<size_t>(5, ranges.size()));
    f.evidence.ranges = ranges;
    f.estimatedGainNs = gain;
    f.gainMethod =
        "the step replayed with the blocking calls returning at once (the host work after them "
        "overlapping the GPU)";
    f.fix = "Keep values on the GPU and read them rarely: accumulate metrics as tensors, read them "
            "every N "
            "steps, avoid .item(), .cpu(), .numpy(), print(tensor) and data-dependent Python "
            "control flow "
            "inside the step.";
    f.snippet = isInference(in)
                    ? "# decode loop: check the stop condition every N tokens, on the GPU\n"
                      "done = (tokens == eos_id).any(dim=-1)\n"
                      "if step % 16 == 0 and done.all().item():\n"
                      "    break\n"
                    : "running_loss += loss.detach()          # stays on the GPU\n"
                      "if step % 100 == 0:\n"
                      "    print(running_loss.item() / 100)   # one sync every 100 steps\n"
                      "    running_loss.zero_()\n";
    out.push_back(std::move(f));
}

void pageableMemcpy(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const std::vector<Step>& steps = in.summary.steps.steps;
    if (!judgeable(in))
        return;
    double copyNs = 0, hostNs = 0, bytes = 0;
    int64_t copies = 0;
    std::map<std::string, double> ops;
    for (const Event& e : in.model.events()) {
        if (e.category != Category::Memcpy || !inSteps(in, e.startNs))
            continue;
        if (!isBulkPageableCopy(in.model, e))
            continue;
        ++copies;
        copyNs += static_cast<double>(e.durationNs);
        if (const trace::CopyInfo* info = in.model.copyInfo(in.model.idOf(e));
            info && info->bytes > 0)
            bytes += static_cast<double>(info->bytes);
        if (e.correlated.valid())
            hostNs += static_cast<double>(in.model.event(e.correlated).durationNs);
        if (e.op.valid())
            ops[std::string(in.model.text(in.model.event(e.op).name))] +=
                static_cast<double>(e.durationNs);
    }
    const double n = static_cast<double>(steps.size());
    const double step = stepMeanNs(in);
    const double gain = causal(in).gain(Cause::PageableCopy);
    if (copies == 0 || share(gain, step) < in.thresholds.pageableShare)
        return;
    Finding f;
    f.id = "pageable-memcpy";
    f.basis = SeverityBasis::Gain;
    f.title = "Copies between host and device go through pageable memory: " +
              format::duration(copyNs / n) + " per step";
    f.explanation = "Copies to or from pageable host memory are staged through a driver buffer: "
                    "the CPU waits " +
                    format::duration(hostNs / n) +
                    " per step in the copy calls and the copy runs below the link's "
                    "bandwidth. From pinned memory with non_blocking=True the call returns at once "
                    "and the copy "
                    "overlaps compute; the step would be " +
                    format::duration(gain) + " shorter.";
    f.evidence.figures = {
        {"pageable_copies_per_step", static_cast<double>(copies) / n, Unit::Count},
        {"pageable_copy_time_per_step_us", copyNs / n / 1e3, Unit::Microseconds},
        {"host_blocked_in_copy_calls_per_step_us", hostNs / n / 1e3, Unit::Microseconds},
        {"bytes_per_step", bytes / n, Unit::Bytes}};
    if (copyNs > 0 && bytes > 0)
        f.evidence.figures.push_back(
            {"bandwidth_gb_per_s", bytes / copyNs, Unit::GigabytesPerSecond});
    for (const auto& [name, ns] : ops)
        f.evidence.ops.emplace_back(name);
    f.estimatedGainNs = gain;
    f.gainMethod = "the step replayed with the copy calls not blocking and the copies at pinned "
                   "bandwidth (the "
                   "fastest pinned upload in the trace, else the GPU generation's PCIe rate)";
    f.fix = "Pin the host buffers (the DataLoader's pin_memory for batches; pinned tensors "
            "allocated once for "
            "results copied back) and copy with non_blocking=True, synchronising only where the "
            "data is used.";
    f.snippet = "loader = DataLoader(dataset, batch_size=bs, num_workers=8, pin_memory=True)\n"
                "for x, y in loader:\n"
                "    x = x.cuda(non_blocking=True)\n"
                "out_host = torch.empty(out.shape, dtype=out.dtype, pin_memory=True)  # once\n"
                "out_host.copy_(out, non_blocking=True)\n";
    out.push_back(std::move(f));
}

}  // namespace kinetoscope::analysis::rules
