#include "core/analysis/breakdown.h"

#include "core/analysis/name_match.h"
#include "core/analysis/time_ranges.h"

#include <set>

namespace kinetoscope::analysis {

using namespace kinetoscope::trace;

std::string_view timeCategoryKey(TimeCategory category)
{
    static constexpr std::array<std::string_view, kTimeCategoryCount> keys = {
        "kernel",  "memcpy",     "memset",   "communication",
        "runtime", "dataloader", "cpu_exec", "other"};
    return keys[static_cast<size_t>(category)];
}

bool isDataLoaderOp(std::string_view name)
{
    return (name.starts_with("enumerate(DataLoader)#") && name.ends_with(".__next__")) ||
           name.starts_with("enumerate(DataPipe)#");
}

bool isTrainingOp(std::string_view name)
{
    return containsNoCase(name, "backward") || name.starts_with("Optimizer.step#") ||
           name.starts_with("Optimizer.zero_grad#") ||
           name.starts_with("autograd::engine::evaluate_function") ||
           name == "torch::autograd::AccumulateGrad";
}

bool isCommunicationOp(std::string_view name)
{
    return name.starts_with("nccl:") || name.starts_with("gloo:") || name.starts_with("c10d::") ||
           name.starts_with("record_param_comms");
}

bool isCommunicationKernel(std::string_view name)
{
    return name.starts_with("nccl") || name.starts_with("ncclKernel") ||
           name.starts_with("ncclDevKernel") || name.starts_with("rccl") ||
           name.starts_with("void ncclKernel") || name.starts_with("void ncclDevKernel");
}

bool isScalarReadOp(std::string_view name)
{
    return name == "aten::item" || name == "aten::_local_scalar_dense";
}

bool isCopyOp(std::string_view name)
{
    return name == "aten::copy_" || name == "aten::to" || name == "aten::_to_copy";
}

namespace {

using RoleRanges = std::array<std::vector<TimeRange>, kTimeCategoryCount - 1>;

void add(RoleRanges& roles, TimeCategory category, const Event& e)
{
    roles[static_cast<size_t>(category)].push_back({e.startNs, e.endNs()});
}

// The intervals of every category over the whole trace. `device` < 0: all devices.
// Where we differ from the plugin, on purpose:
//  - launch calls include `cuda_driver` and the `cuda_runtime`/`hip*` names of newer
//    traces (the plugin's last release only knew the 2021 `Runtime` category);
//  - a DataLoader span may be a user_annotation (it is one since PyTorch 1.11);
//  - communication kernels are recognised by name as well as by their op, and any
//    nccl:/gloo:/c10d op counts, not only five collective names;
//  - gpu_user_annotation spans are not CPU work.
RoleRanges roleRanges(const TraceModel& model, const std::string& marker, int64_t device)
{
    RoleRanges roles;
    for (const Track& track : model.tracks()) {
        const bool gpuTrack = track.kind == TrackKind::GpuStream;
        if (gpuTrack && device >= 0 && track.pid != device)
            continue;
        for (const Event& e :
             model.events(TrackId{static_cast<uint32_t>(&track - model.tracks().data())})) {
            const std::string_view name = model.text(e.name);
            switch (e.category) {
            case Category::Kernel: {
                const bool comm =
                    isCommunicationKernel(name) ||
                    (e.op.valid() && isCommunicationOp(model.text(model.event(e.op).name)));
                add(roles, comm ? TimeCategory::Communication : TimeCategory::Kernel, e);
                break;
            }
            case Category::Memcpy:
                add(roles, TimeCategory::Memcpy, e);
                break;
            case Category::Memset:
                add(roles, TimeCategory::Memset, e);
                break;
            case Category::Runtime:
            case Category::Driver:
                add(roles, TimeCategory::Runtime, e);
                break;
            case Category::CpuOp:
            case Category::UserAnnotation:
            case Category::PythonFunction:
                if ((!marker.empty() && name.starts_with(marker)) ||
                    name.starts_with("PyTorch Profiler"))
                    break;  // the step markers and the profiler's span say nothing of the CPU
                if (isDataLoaderOp(name))
                    add(roles, TimeCategory::DataLoader, e);
                else if (isCommunicationOp(name))
                    add(roles, TimeCategory::Communication, e);
                else
                    add(roles, TimeCategory::CpuExec, e);  // ops, Python, record_function ranges
                break;
            default:
                break;
            }
        }
    }
    return roles;
}

Breakdown breakdownFor(const TraceModel& model, const StepDetection& detection, int64_t device)
{
    const std::vector<Step>& steps = detection.steps;
    Breakdown result;
    if (steps.empty())
        return result;
    RoleRanges roles =
        roleRanges(model, detection.fromMarkers ? detection.marker : std::string(), device);

    std::vector<TimeRange> stepRanges;
    stepRanges.reserve(steps.size());
    for (const Step& s : steps)
        stepRanges.push_back({s.beginNs, s.endNs});
    RangeSet unclaimed = unionOf(stepRanges);
    std::array<RangeSet, kTimeCategoryCount> claimed;
    for (size_t c = 0; c + 1 < kTimeCategoryCount; ++c) {
        claimed[c] = intersect(unclaimed, unionOf(std::move(roles[c])));
        unclaimed = subtract(unclaimed, claimed[c]);
    }
    claimed[kTimeCategoryCount - 1] = unclaimed;

    for (const Step& s : steps) {
        CategoryTimes times;
        times.totalNs = s.durationNs();
        for (size_t c = 0; c < kTimeCategoryCount; ++c)
            times.ns[c] = lengthWithin(claimed[c], s.beginNs, s.endNs);
        result.perStep.push_back(times);
    }
    for (const CategoryTimes& t : result.perStep) {
        for (size_t c = 0; c < kTimeCategoryCount; ++c)
            result.averageNs[c] += static_cast<double>(t.ns[c]);
        result.averageTotalNs += static_cast<double>(t.totalNs);
    }
    const double n = static_cast<double>(result.perStep.size());
    for (double& v : result.averageNs)
        v /= n;
    result.averageTotalNs /= n;
    return result;
}

}  // namespace

BreakdownResult computeBreakdown(const TraceModel& model, const StepDetection& steps)
{
    BreakdownResult result;
    result.all = breakdownFor(model, steps, -1);
    std::set<int64_t> devices;
    for (const Track& t : model.tracks())
        if (t.kind == TrackKind::GpuStream && t.eventCount > 0)
            devices.insert(t.pid);
    if (devices.size() > 1)
        for (int64_t d : devices)
            result.perDevice[d] = breakdownFor(model, steps, d);
    return result;
}

}  // namespace kinetoscope::analysis
