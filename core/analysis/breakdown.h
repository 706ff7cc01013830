#pragma once
// The step-time breakdown: what each step spent its wall time on, each instant counted
// once, in the TensorBoard plugin's priority order
//   kernel > memcpy > memset > communication > runtime > dataloader > CPU exec > other
// (a lower category only gets the time no higher one claimed; "other" is what is left).
#include "core/analysis/steps.h"

#include <array>
#include <map>
#include <optional>
#include <string_view>

namespace kinetoscope::analysis {

enum class TimeCategory : uint8_t
{
    Kernel,
    Memcpy,
    Memset,
    Communication,
    Runtime,
    DataLoader,
    CpuExec,
    Other,
};
inline constexpr size_t kTimeCategoryCount = 8;
std::string_view timeCategoryKey(TimeCategory category);  // "kernel", ..., "cpu_exec", "other"

struct CategoryTimes
{
    std::array<int64_t, kTimeCategoryCount> ns{};  // sums to totalNs
    int64_t totalNs = 0;
    int64_t operator[](TimeCategory c) const { return ns[static_cast<size_t>(c)]; }
};

struct Breakdown
{
    std::vector<CategoryTimes> perStep;  // one per step of the StepDetection
    std::array<double, kTimeCategoryCount> averageNs{};
    double averageTotalNs = 0.0;
    double average(TimeCategory c) const { return averageNs[static_cast<size_t>(c)]; }
};

struct BreakdownResult
{
    Breakdown all;  // device work of every GPU together (the plugin's view)
    std::map<int64_t, Breakdown> perDevice;  // only where the trace has several devices
};

// Which events fall in which category (shared with the rest of the analysis).
bool isDataLoaderOp(std::string_view name);
bool isCommunicationOp(std::string_view name);      // nccl:*, gloo:*, c10d collectives
bool isCommunicationKernel(std::string_view name);  // NCCL/RCCL device kernels
bool isScalarReadOp(std::string_view name);         // aten::item, aten::_local_scalar_dense
bool isCopyOp(std::string_view name);               // aten::copy_, aten::to, aten::_to_copy
// A backward or optimizer op: *backward* (any case), Optimizer.step#, Optimizer.zero_grad#,
// autograd::engine::evaluate_function, AccumulateGrad.
bool isTrainingOp(std::string_view name);

BreakdownResult computeBreakdown(const trace::TraceModel& model, const StepDetection& steps);

}  // namespace kinetoscope::analysis
