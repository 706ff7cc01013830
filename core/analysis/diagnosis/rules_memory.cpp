// Rules about device memory: memory-growth, allocator-fragmentation, near-oom, which cost
// no time per step today (their estimated gain is 0 and they rank by severity), and
// allocator-churn, the allocator going to the driver every step, which does.
#include "core/analysis/diagnosis/rule_helpers.h"
#include "core/analysis/diagnosis/rules.h"
#include "core/analysis/runtime_calls.h"
#include "core/format/number_text.h"
#include "core/trace/name_cache.h"

#include <algorithm>
#include <iterator>
#include <map>

namespace kinetoscope::analysis::rules {

namespace {

// Total memory of "cuda:N" from deviceProperties, or -1.
int64_t deviceMemoryBytes(const DiagnosisInput& in, const std::string& device)
{
    if (!device.starts_with("cuda:"))
        return -1;
    const std::optional<int64_t> id = format::integerIn(std::string_view(device).substr(5));
    if (!id)
        return -1;
    for (const trace::DeviceInfo& d : in.model.metadata().devices)
        if (d.id == *id)
            return d.totalGlobalMemBytes;
    return -1;
}

}  // namespace

void memoryGrowth(const DiagnosisInput& in, std::vector<Finding>& out)
{
    for (const auto& [device, d] : in.summary.memory) {
        if (device == "cpu")
            continue;
        std::vector<std::pair<size_t, int64_t>> points;  // (step, allocated at its start)
        for (size_t i = 0; i < d.allocatedAtStepStart.size(); ++i)
            if (d.allocatedAtStepStart[i])
                points.emplace_back(i, *d.allocatedAtStepStart[i]);
        if (static_cast<double>(points.size()) < in.thresholds.memoryGrowthMinSteps ||
            d.peakAllocatedBytes <= 0)
            continue;
        int rises = 0;
        for (size_t i = 1; i < points.size(); ++i)
            rises += points[i].second > points[i - 1].second;
        const double growth = static_cast<double>(points.back().second - points.front().second);
        const double fraction = growth / static_cast<double>(d.peakAllocatedBytes);
        if (fraction < in.thresholds.memoryGrowthShare ||
            rises < static_cast<int>(points.size() - 1) * 3 / 4)
            continue;
        const double perStep =
            growth / static_cast<double>(points.back().first - points.front().first);
        const int64_t total = deviceMemoryBytes(in, device);
        const double stepsLeft = total > 0 && perStep > 0
                                     ? static_cast<double>(total - d.peakAllocatedBytes) / perStep
                                     : -1.0;
        Finding f;
        f.id = "memory-growth";
        f.severity = stepsLeft >= 0 && stepsLeft < 10'000 ? Severity::High : Severity::Medium;
        f.title =
            "Allocated memory on " + device + " grows " + format::bytes(perStep) + " every step";
        f.explanation =
            "Memory allocated at the start of each step rises in " + format::count(rises) + " of " +
            format::count(points.size() - 1) +
            " steps: something keeps tensors alive across steps, most often a loss or metric "
            "accumulated with its autograd graph (total += loss instead of loss.item() or "
            "loss.detach()), or a growing list of outputs." +
            (stepsLeft >= 0 ? " At this rate the device runs out of memory in about " +
                                  format::count(static_cast<int64_t>(stepsLeft)) + " steps."
                            : std::string());
        f.evidence.figures = {
            {"growth_per_step_bytes", perStep, Unit::Bytes},
            {"allocated_first_step_bytes", static_cast<double>(points.front().second), Unit::Bytes},
            {"allocated_last_step_bytes", static_cast<double>(points.back().second), Unit::Bytes}};
        if (stepsLeft >= 0)
            f.evidence.figures.push_back({"steps_until_out_of_memory", stepsLeft, Unit::Count});
        for (size_t i = 0; i < std::min<size_t>(3, d.byOp.size()); ++i)
            f.evidence.ops.emplace_back(d.byOp[i].op);
        f.gainMethod = "no time saved per step; prevents an out-of-memory failure";
        f.fix = "Detach what you keep across steps: accumulate loss.detach() (or .item() every N "
                "steps), "
                "store outputs with .detach().cpu(), and clear lists of tensors.";
        f.snippet = "total_loss += loss.detach()   # not: total_loss += loss\n"
                    "outputs.append(out.detach().cpu())\n";
        out.push_back(std::move(f));
    }
}

void allocatorFragmentation(const DiagnosisInput& in, std::vector<Finding>& out)
{
    for (const auto& [device, d] : in.summary.memory) {
        if (!d.totalsRecorded || !d.peakReservedBytes || d.peakAllocatedBytes <= 0 ||
            device == "cpu")
            continue;
        const double reserved = static_cast<double>(*d.peakReservedBytes);
        const double allocated = static_cast<double>(d.peakAllocatedBytes);
        const double ratio = reserved / allocated;
        if (ratio < in.thresholds.fragmentationRatio ||
            reserved - allocated < in.thresholds.fragmentationMinBytes)
            continue;
        Finding f;
        f.id = "allocator-fragmentation";
        f.severity =
            ratio >= 2 * in.thresholds.fragmentationRatio ? Severity::Medium : Severity::Low;
        f.title = "The caching allocator holds " + format::ratio(ratio) + " the memory in use on " +
                  device;
        f.explanation =
            "Peak reserved memory (" + format::bytes(reserved) +
            ") far exceeds peak allocated memory (" + format::bytes(allocated) +
            "): freed blocks of varying sizes stay cached and fragment. "
            "It wastes memory that larger batches or models could use, and can end in an "
            "out-of-memory error with memory nominally free.";
        f.evidence.figures = {{"peak_reserved_bytes", reserved, Unit::Bytes},
                              {"peak_allocated_bytes", allocated, Unit::Bytes},
                              {"reserved_over_allocated", ratio, Unit::Ratio}};
        f.gainMethod = "no time saved per step; frees memory";
        f.fix =
            "Let the allocator grow segments instead of caching many sizes, and keep tensor shapes "
            "stable (pad variable-length batches to a few bucket sizes).";
        f.snippet = kExpandableSegmentsSnippet;
        out.push_back(std::move(f));
    }
}

void nearOom(const DiagnosisInput& in, std::vector<Finding>& out)
{
    for (const auto& [device, d] : in.summary.memory) {
        const int64_t total = deviceMemoryBytes(in, device);
        if (total <= 0)
            continue;
        const double allocated =
            static_cast<double>(d.peakAllocatedBytes) / static_cast<double>(total);
        const double reserved = d.peakReservedBytes ? static_cast<double>(*d.peakReservedBytes) /
                                                          static_cast<double>(total)
                                                    : 0.0;
        if (allocated < in.thresholds.nearOomShare && reserved < in.thresholds.nearOomShare)
            continue;
        Finding f;
        f.id = "near-oom";
        f.severity = allocated >= in.thresholds.nearOomShare ? Severity::High : Severity::Medium;
        f.title = "Peak memory on " + device + " reaches " +
                  format::percent(std::max(allocated, reserved)) + " of the device";
        f.explanation =
            "Peak allocated memory is " + format::bytes(static_cast<double>(d.peakAllocatedBytes)) +
            " of " + format::bytes(static_cast<double>(total)) +
            ": a slightly longer sequence or larger batch will fail with out-of-memory. "
            "Activation checkpointing trades recomputation for memory; bf16 halves activations.";
        f.evidence.figures = {{"peak_allocated_share_of_device", allocated, Unit::Fraction},
                              {"peak_reserved_share_of_device", reserved, Unit::Fraction},
                              {"device_memory_bytes", static_cast<double>(total), Unit::Bytes}};
        for (size_t i = 0; i < std::min<size_t>(3, d.byOp.size()); ++i)
            f.evidence.ops.emplace_back(d.byOp[i].op);
        f.gainMethod = "no time saved per step; prevents an out-of-memory failure";
        f.fix = "Checkpoint activations of the largest blocks, train in bf16, or reduce the "
                "micro-batch and "
                "accumulate gradients.";
        f.snippet = kCheckpointSnippet;
        out.push_back(std::move(f));
    }
}

}  // namespace kinetoscope::analysis::rules

namespace kinetoscope::analysis::rules {

void allocatorChurn(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const std::vector<Step>& steps = in.summary.steps.steps;
    if (!judgeable(in) || steps.size() < 2)
        return;
    // The host time of the driver's allocation calls in each steady step.
    std::vector<double> perStep(steps.size(), 0.0);
    std::map<std::string, double> byCall;
    auto allocation = perName<bool>(in.model, [](std::string_view n) {
        return classifyRuntimeCall(n) == CallKind::Allocation;
    });
    for (const Event& e : in.model.events()) {
        if (!trace::isLaunchCall(e.category) || !allocation(e.name))
            continue;
        const auto step = std::upper_bound(steps.begin(), steps.end(), e.startNs,
                                           [](int64_t t, const Step& s) { return t < s.beginNs; });
        if (step == steps.begin() || e.startNs >= std::prev(step)->endNs)
            continue;
        perStep[static_cast<size_t>(std::prev(step) - steps.begin())] +=
            static_cast<double>(e.durationNs);
        byCall[std::string(in.model.text(e.name))] += static_cast<double>(e.durationNs);
    }
    const double step = stepMeanNs(in);
    size_t recurring = 0;
    double total = 0;
    for (size_t i = 0; i < steps.size(); ++i) {
        total += perStep[i];
        recurring += perStep[i] >=
                     in.thresholds.allocatorChurnShare * static_cast<double>(steps[i].durationNs());
    }
    const double mean = total / static_cast<double>(steps.size());
    // In most steps, not a one-off growth of the pool.
    const double gain = causal(in).gain(Cause::Allocation);
    if (2 * recurring < steps.size() || share(mean, step) < in.thresholds.allocatorChurnShare ||
        gain <= 0)
        return;
    Finding f;
    f.id = "allocator-churn";
    f.basis = SeverityBasis::Gain;
    std::string calls;
    for (const std::string& call : largestFirst(byCall, 2))
        calls += (calls.empty() ? "" : ", ") + call;
    f.title = "The caching allocator calls the driver every step: " + format::duration(mean) +
              " per step in " + calls + " (" + format::percent(share(mean, step)) + ")";
    f.explanation =
        "PyTorch's caching allocator keeps freed blocks to reuse them; driver allocation calls in "
        "steady steps mean it hands memory back and asks for it again each step: "
        "torch.cuda.empty_cache() in the loop, a memory limit it keeps reaching, or tensor sizes "
        "that "
        "change every step and fragment its pool. cudaFree also waits for the device.";
    f.evidence.figures = {
        {"allocation_calls_per_step_us", mean / 1e3, Unit::Microseconds},
        {"allocation_share_of_step", share(mean, step), Unit::Fraction},
        {"steps_with_allocation_calls", static_cast<double>(recurring), Unit::Count},
        {"gain_if_removed_alone_us", causal(in).solo(Cause::Allocation) / 1e3, Unit::Microseconds}};
    for (const std::string& call : largestFirst(byCall, 3))
        f.evidence.ops.emplace_back(call);
    f.estimatedGainNs = gain;
    f.gainMethod =
        "the step replayed without the driver allocation calls (the allocator keeps its blocks); "
        "credited before the launch overhead, which would otherwise count them";
    f.fix =
        "Do not call torch.cuda.empty_cache() inside the loop; keep tensor shapes fixed from step "
        "to step "
        "(pad or bucket variable lengths); let the allocator grow segments instead of new blocks.";
    f.snippet = "# export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n"
                "for batch in loader:\n"
                "    train_step(batch)   # no torch.cuda.empty_cache() here\n";
    out.push_back(std::move(f));
}

}  // namespace kinetoscope::analysis::rules
