#include "core/analysis/diagnosis/thresholds.h"

#include <tuple>

namespace kinetoscope::analysis {

namespace {

struct Entry
{
    const char* name;
    double Thresholds::*field;
    const char* meaning;
};

constexpr Entry kEntries[] = {
    {"dataloader_share", &Thresholds::dataloaderShare,
     "dataloader-bound fires above this share of the step saved without the DataLoader's wait"},
    {"low_utilization", &Thresholds::lowUtilization,
     "low-gpu-utilization fires below this kernel-busy fraction"},
    {"idle_stretch_us", &Thresholds::idleStretchUs,
     "an unbroken GPU idle stretch longer than this is reported"},
    {"python_share", &Thresholds::pythonShare,
     "python-bound: step share saved without Python between launches"},
    {"launch_host_wait_share", &Thresholds::launchHostWaitShare,
     "launch-bound: GPU idle while launching, and the gain, as step shares"},
    {"tensor_core_eligible_share", &Thresholds::tensorCoreEligibleShare,
     "no-tensor-cores: GEMM/conv share of kernel time at least"},
    {"tensor_core_share_max", &Thresholds::tensorCoreShareMax,
     "no-tensor-cores: fires when Tensor Core kernels are under this share"},
    {"misaligned_share", &Thresholds::misalignedShare,
     "tensor-core-misaligned: misaligned ops' share of kernel time"},
    {"host_sync_share", &Thresholds::hostSyncShare, "host-sync: blocked share of the step"},
    {"pageable_share", &Thresholds::pageableShare,
     "pageable-memcpy: pageable HtoD copy share of the step"},
    {"copy_share", &Thresholds::copyShare,
     "copy-heavy: device time of in-model copies, share of the step"},
    {"memory_growth_share", &Thresholds::memoryGrowthShare,
     "memory-growth: growth across steps as a share of the peak"},
    {"memory_growth_min_steps", &Thresholds::memoryGrowthMinSteps, "memory-growth: steps needed"},
    {"fragmentation_ratio", &Thresholds::fragmentationRatio,
     "allocator-fragmentation: peak reserved / peak allocated"},
    {"fragmentation_min_bytes", &Thresholds::fragmentationMinBytes,
     "allocator-fragmentation: reserved minus allocated at least"},
    {"near_oom_share", &Thresholds::nearOomShare,
     "near-oom: peak memory share of the device memory"},
    {"communication_share", &Thresholds::communicationShare,
     "communication-heavy: exposed collective share of the step"},
    {"optimizer_kernels_per_step", &Thresholds::optimizerKernelsPerStep,
     "optimizer-unfused: kernels per optimizer step"},
    {"unstable_cv", &Thresholds::unstableCv,
     "unstable-steps: coefficient of variation of step times"},
    {"unstable_max_over_median", &Thresholds::unstableMaxOverMedian,
     "unstable-steps: slowest step / median step"},
    {"allocator_churn_share", &Thresholds::allocatorChurnShare,
     "allocator-churn: driver allocation calls' share of a step, in most steps"},
    {"fusible_share", &Thresholds::fusibleShare,
     "unfused-elementwise: memory-bound pointwise/norm/reduction share of kernel time"},
    {"compiled_below_bandwidth_share", &Thresholds::compiledBelowBandwidthShare,
     "compiled-below-bandwidth: generated kernels far under the memory bandwidth, share of the "
     "step"},
    {"random_data_share", &Thresholds::randomDataShare,
     "random-data-in-loop (no device activity): random data drawn by the loop, share of the step"},
    {"host_outside_ops_share", &Thresholds::hostOutsideOpsShare,
     "python-bound (no device activity): time in no recorded op, share of the step"},
    {"host_hotspot_share", &Thresholds::hostHotspotShare,
     "host-compute-bound (a CPU run): one op's self time, share of the step"},
};

}  // namespace

bool Thresholds::set(std::string_view name, double value)
{
    for (const Entry& e : kEntries) {
        if (name == e.name) {
            this->*(e.field) = value;
            return true;
        }
    }
    return false;
}

std::vector<std::tuple<std::string, double, std::string>> Thresholds::describe() const
{
    std::vector<std::tuple<std::string, double, std::string>> out;
    for (const Entry& e : kEntries)
        out.emplace_back(e.name, this->*(e.field), e.meaning);
    return out;
}

}  // namespace kinetoscope::analysis
