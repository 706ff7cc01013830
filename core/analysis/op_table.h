#pragma once
// The operator table: per op name (and per name + input shapes), calls, CPU time and the
// device time of the kernels each op launched (through the External id and correlation
// links, Event::op). All times are int64 nanoseconds.
#include "core/analysis/time_ranges.h"
#include "core/trace/trace_model.h"

#include <string>
#include <vector>

namespace kinetoscope::analysis {

struct OpStats
{
    std::string name;
    std::string inputShapes;  // empty in the by-name table, or when not recorded
    int64_t calls = 0;
    int64_t selfCpuNs = 0;       // duration less the time of nested CPU ops
    int64_t cpuTotalNs = 0;      // duration
    int64_t selfDeviceNs = 0;    // kernels, memcpys, memsets launched by the op itself
    int64_t deviceTotalNs = 0;   // ... by the op or any op nested in it
    double meanCpuNs() const { return calls ? double(cpuTotalNs) / double(calls) : 0.0; }
    double meanDeviceNs() const { return calls ? double(deviceTotalNs) / double(calls) : 0.0; }
};

enum class OpColumn { Name, Calls, SelfCpu, CpuTotal, SelfDevice, DeviceTotal };

struct OpTables
{
    std::vector<OpStats> byName;           // sorted by device total, then CPU total
    std::vector<OpStats> byNameAndShapes;  // empty when no op recorded its shapes
};

// `within`: only the ops that start inside these ranges (the steady steps, for a per-step
// table); null for the whole trace.
OpTables computeOpTables(const trace::TraceModel& model, const RangeSet* within = nullptr);
// Sorts a table by any column, descending (ascending for Name).
void sortOps(std::vector<OpStats>& ops, OpColumn column);

}  // namespace kinetoscope::analysis
