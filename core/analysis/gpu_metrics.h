#pragma once
// Per-device GPU metrics over the steps' span, as the TensorBoard plugin defined them:
//   utilisation      = union of kernel time / span (memcpy and memset not counted)
//   SM efficiency    = time-weighted min(sum of blocks-per-SM of running kernels, 1) / span
//   occupancy        = duration-weighted mean of the kernels' `est. achieved occupancy %`
//   Tensor Core share = time of Tensor Core kernels / all kernel time
// A metric whose inputs the trace lacks is std::nullopt ("not available"), never 0.
#include "core/analysis/steps.h"

#include <map>
#include <optional>

namespace kinetoscope::analysis {

struct GpuMetrics
{
    int64_t device = 0;
    int64_t kernelCount = 0;
    int64_t kernelTimeNs = 0;                 // sum of kernel durations inside the span
    std::optional<double> utilization;        // 0..1
    std::optional<double> smEfficiency;       // 0..1
    std::optional<double> achievedOccupancy;  // percent, 0..100
    std::optional<double> tensorCoreShare;    // 0..1
};

// Metrics for every device that ran kernels, by device id.
std::map<int64_t, GpuMetrics> computeGpuMetrics(const trace::TraceModel& model,
                                                const StepDetection& detection);

}  // namespace kinetoscope::analysis
