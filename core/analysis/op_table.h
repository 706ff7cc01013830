#pragma once
// The operator table: per op name (and per name + input shapes), calls, CPU time (self:
// less what ran inside the op on its thread) and the device time of the kernels each op
// launched (through the External id and correlation links, Event::op). All times are
// int64 nanoseconds.
#include "core/analysis/time_ranges.h"
#include "core/trace/python_frame.h"
#include "core/trace/trace_model.h"

#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope::analysis {

struct OpStats
{
    std::string name;
    std::string inputShapes;  // empty in the by-name table, or when not recorded
    // By stack: the innermost Python frames around the op (innermost first), and the
    // innermost of all its frames that is the user's code ("train.py(42): step"): not
    // torch's, not a library's, not a built-in. Empty in the other tables.
    std::vector<std::string> stack;
    std::string sourceLine;
    int64_t calls = 0;
    int64_t selfCpuNs = 0;            // duration less nested ops, ranges and runtime calls
    int64_t cpuTotalNs = 0;           // duration
    int64_t selfDeviceNs = 0;         // kernels, memcpys, memsets launched by the op itself
    int64_t deviceTotalNs = 0;        // ... by the op or any op nested in it
    bool tensorCoreEligible = false;  // GEMM, convolution, their backward, fused attention
    int64_t tensorCoreNs = 0;         // the part of deviceTotalNs on Tensor Core kernels
    double meanCpuNs() const { return calls ? double(cpuTotalNs) / double(calls) : 0.0; }
    double meanDeviceNs() const { return calls ? double(deviceTotalNs) / double(calls) : 0.0; }
};

enum class OpColumn
{
    Name,
    Calls,
    SelfCpu,
    CpuTotal,
    SelfDevice,
    DeviceTotal,
    TensorCore
};

struct OpTables
{
    std::vector<OpStats> byName;           // sorted by device total, then CPU total
    std::vector<OpStats> byNameAndShapes;  // empty when no op recorded its shapes
    std::vector<OpStats> byNameAndStack;   // per name + innermost kStackFrames frames; empty
                                           // when the trace has no Python frames (with_stack)
    // Kernel time, each kernel counted once: all of it, launched under a Tensor Core
    // eligible op (the op or one it is nested in), and the part of that on Tensor Cores.
    int64_t kernelNs = 0;
    int64_t eligibleKernelNs = 0;
    int64_t eligibleTensorCoreNs = 0;
};

// How many Python frames the by-stack table groups on (torch's group_by_stack_n).
inline constexpr size_t kStackFrames = 5;

using trace::isUserFrame;  // (core/trace/python_frame.h)

// Spans that mark a step, a DataLoader or DataPipe fetch, or an optimizer step or its
// zero_grad: record_function ranges, which some torch versions label cpu_op. They are not
// operators and stay out of the tables (torch folds ProfilerStep* into one row; the
// TensorBoard plugin leaves them all out).
bool isMarkerSpan(std::string_view name);

// The ops' tables, marker spans left out. `within`: only the ops that start inside these
// ranges (the steady steps, for a per-step table); null for the whole trace.
OpTables computeOpTables(const trace::TraceModel& model, const RangeSet* within = nullptr);
// Sorts a table by any column, descending (ascending for Name).
void sortOps(std::vector<OpStats>& ops, OpColumn column);

}  // namespace kinetoscope::analysis
