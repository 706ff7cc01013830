// Rules about several GPUs: communication-heavy, dataparallel. (The lab rules are in
// rules_lab.cpp.)
#include "core/analysis/diagnosis/rule_helpers.h"
#include "core/analysis/diagnosis/rules.h"

#include <set>

namespace kinetoscope::analysis::rules {

using trace::Category;

void communicationHeavy(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const std::vector<Step>& steps = in.summary.steps.steps;
    // CPU-only jobs (gloo) are judged too: their collectives are host time.
    const bool cpuOnly = in.summary.window.cpuOnly;
    if (!judgeable(in) && !(cpuOnly && !steps.empty() && !in.summary.window.nearlyEmpty))
        return;
    // Exposed communication: the breakdown gives collectives only the time no compute
    // kernel claimed. Total communication: the union of the same collective kernels and
    // ops in the steps, so exposed <= total by construction.
    const double exposed = in.summary.breakdown.all.average(TimeCategory::Communication);
    const double fraction = share(exposed, stepMeanNs(in));
    if (fraction < in.thresholds.communicationShare)
        return;
    std::vector<TimeRange> comm;
    std::set<std::string> kernels;
    for (const Event& e : in.model.events()) {
        const std::string_view name = in.model.text(e.name);
        if (e.category == Category::CpuOp || e.category == Category::UserAnnotation) {
            if (isCommunicationOp(name))
                comm.push_back({e.startNs, e.endNs()});
            continue;
        }
        if (e.category != Category::Kernel)
            continue;
        if (isCommunicationKernel(name) ||
            (e.op.valid() && isCommunicationOp(in.model.text(in.model.event(e.op).name)))) {
            comm.push_back({e.startNs, e.endNs()});
            if (kernels.size() < 3)
                kernels.emplace(name);
        }
    }
    double total = 0;
    const RangeSet commSet = unionOf(std::move(comm));
    for (const Step& s : steps)
        total += static_cast<double>(lengthWithin(commSet, s.beginNs, s.endNs));
    total /= static_cast<double>(steps.size());
    const double overlap = total > 0 ? std::max(0.0, 1.0 - exposed / total) : 0.0;
    Finding f;
    f.id = "communication-heavy";
    const double gain =
        cpuOnly ? exposed : std::min(causal(in).gain(Cause::Communication), exposed);
    f.basis = SeverityBasis::Gain;
    f.title = "Collective communication is exposed " + format::percent(fraction) +
              " of the step (" + format::percent(overlap) + " of it overlaps compute)";
    f.explanation =
        "Collectives take " + format::duration(total) + " per step, " + format::duration(exposed) +
        " of it with no compute kernel running. Overlapping gradient all-reduce with the backward "
        "pass (DDP buckets), fewer and larger collectives, and gradient accumulation with no_sync "
        "hide or remove most of it.";
    if (gain < 0.1 * exposed)
        f.explanation +=
            " Here the host sets the pace: hiding the collectives would not shorten the step until "
            "the host-side findings are fixed.";
    f.evidence.figures = {{"exposed_communication_per_step_us", exposed / 1e3, Unit::Microseconds},
                          {"communication_per_step_us", total / 1e3, Unit::Microseconds},
                          {"overlap_with_compute", overlap, Unit::Fraction}};
    f.evidence.kernels.assign(kernels.begin(), kernels.end());
    f.evidence.steps = worstSteps(in, [&](size_t i) {
        return in.summary.breakdown.all.perStep[i][TimeCategory::Communication];
    });
    if (const auto* distributed = &in.model.metadata().distributed; distributed->has_value())
        f.evidence.figures.push_back(
            {"world_size", static_cast<double>((*distributed)->worldSize), Unit::Count});
    f.estimatedGainNs = gain;
    f.gainMethod =
        "the step replayed with the collective kernels off the critical path (an upper bound: from "
        "one rank, waiting for a slower peer cannot be told from transfer time)";
    f.fix = "Let DDP overlap all-reduce with backward (do not call synchronising ops between "
            "backward and "
            "step), tune bucket_cap_mb, accumulate gradients over several micro-batches under "
            "no_sync(), and "
            "use NCCL on GPUs.";
    f.snippet = "model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[rank],\n"
                "                                                  bucket_cap_mb=50)\n"
                "with model.no_sync():          # accumulate without communicating\n"
                "    loss_fn(model(x1), y1).backward()\n"
                "loss_fn(model(x2), y2).backward()  # all-reduce overlaps this backward\n";
    out.push_back(std::move(f));
}

void dataParallel(const DiagnosisInput& in, std::vector<Finding>& out)
{
    bool dataParallelForward = false;
    double overheadNs = 0;
    for (const Event& e : in.model.events()) {
        if (e.category != Category::CpuOp && e.category != Category::UserAnnotation &&
            e.category != Category::PythonFunction)
            continue;
        const std::string_view name = in.model.text(e.name);
        if (name.find("DataParallel.forward") != std::string_view::npos &&
            name.find("Distributed") == std::string_view::npos)
            dataParallelForward = true;
        if (name == "Broadcast" || name == "Gather" || name == "Scatter" ||
            name == "ReduceAddCoalesced" || name == "BroadcastBackward" || name == "GatherBackward")
            overheadNs += static_cast<double>(e.durationNs);
    }
    if (!judgeable(in) || !dataParallelForward || in.summary.gpu.size() < 2)
        return;
    const double steps = static_cast<double>(std::max<size_t>(1, in.summary.steps.steps.size()));
    Finding f;
    f.id = "dataparallel";
    f.basis = SeverityBasis::Gain;
    f.title =
        "nn.DataParallel drives " + format::count(in.summary.gpu.size()) + " GPUs from one process";
    f.explanation =
        "DataParallel replicates the model, scatters inputs and gathers outputs every step from a "
        "single Python thread, and its GIL-bound replicas starve the GPUs. "
        "DistributedDataParallel runs one process per GPU and overlaps gradient all-reduce with "
        "the backward pass.";
    f.evidence.figures = {
        {"devices", static_cast<double>(in.summary.gpu.size()), Unit::Count},
        {"scatter_gather_time_per_step_us", overheadNs / steps / 1e3, Unit::Microseconds}};
    f.evidence.ops.emplace_back("DataParallel.forward");
    f.estimatedGainNs = overheadNs / steps;
    f.gainMethod = "the replicate/scatter/gather time per step (a lower bound: DDP also removes "
                   "GIL contention)";
    f.fix = "Replace nn.DataParallel with DistributedDataParallel, one process per GPU (torchrun).";
    f.snippet =
        "# torchrun --nproc_per_node=NUM_GPUS train.py\n"
        "torch.distributed.init_process_group(\"nccl\")\n"
        "rank = torch.distributed.get_rank()\n"
        "model = torch.nn.parallel.DistributedDataParallel(model.to(rank), device_ids=[rank])\n";
    out.push_back(std::move(f));
}

}  // namespace kinetoscope::analysis::rules
