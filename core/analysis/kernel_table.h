#pragma once
// The kernel table (per kernel name) and the memcpy table (per copy kind).
#include "core/analysis/tensor_cores.h"
#include "core/analysis/time_ranges.h"
#include "core/trace/trace_model.h"

#include <optional>
#include <string>
#include <vector>

namespace kinetoscope::analysis {

struct KernelStats
{
    std::string name;
    int64_t calls = 0;
    int64_t totalNs = 0;
    int64_t minNs = 0;
    int64_t maxNs = 0;
    double meanNs() const { return calls ? double(totalNs) / double(calls) : 0.0; }
    // Launch configuration: the group's own when grouped by it, else the longest call's
    // (they rarely differ for one name); absent values are -1.
    int32_t grid[3] = {-1, -1, -1};
    int32_t block[3] = {-1, -1, -1};
    int32_t registersPerThread = -1;
    int32_t sharedMemoryBytes = -1;
    std::optional<double> meanBlocksPerSm;       // duration-weighted
    std::optional<double> meanOccupancyPercent;  // duration-weighted
    MatrixUnit unit = MatrixUnit::Unknown;       // as the diagnosis classifies the name
    bool tensorCore = false;                     // unit == TensorCore
    std::string topOp;  // the op that launched most of its time (grouped by op: that op);
                        // "" when unknown
};

enum class KernelGrouping
{
    Name,          // one row per kernel name
    NameAndOp,     // ... and per op that launched it (the plugin's "kernel + op")
    LaunchConfig,  // ... and per grid, block, registers per thread and shared memory
};

struct MemcpyStats
{
    std::string kind;        // the activity name, e.g. "Memcpy HtoD (Pageable -> Device)"
    std::string direction;   // "HtoD", "DtoH", "DtoD", "HtoH", "PtoP" or "" (memset)
    std::string memoryKind;  // "Pageable -> Device", "Pinned -> Device", "Device", ...
    bool isMemset = false;
    int64_t calls = 0;
    int64_t totalNs = 0;
    int64_t totalBytes = -1;              // -1 when no call recorded its size
    std::optional<double> bandwidthGBps;  // totalBytes / totalNs
};

// By total time. `within`: only the activities that start inside these ranges (the steady
// steps, for a per-step table); null for the whole trace.
std::vector<KernelStats> computeKernelTable(const trace::TraceModel& model,
                                            const RangeSet* within = nullptr,
                                            KernelGrouping grouping = KernelGrouping::Name);
std::string_view matrixUnitName(MatrixUnit unit);  // "tensor_core", "simt", "unknown"
std::vector<MemcpyStats> computeMemcpyTable(const trace::TraceModel& model,
                                            const RangeSet* within = nullptr);

}  // namespace kinetoscope::analysis
