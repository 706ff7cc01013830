#pragma once
// Memory over time per device, from the `[memory]` samples: the allocator's
// `Total Allocated` / `Total Reserved` curves and peaks, allocated memory at each step
// start (growth across steps), allocations paired with their frees by address, and the
// bytes each op allocated. Traces from before 2022 carry no totals: allocated memory is
// then rebuilt by summing `Bytes` (relative to the start of the trace), and reserved
// memory is not available.
#include "core/analysis/steps.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kinetoscope::analysis {

struct MemoryPoint
{
    int64_t timeNs;
    int64_t allocatedBytes;
    int64_t reservedBytes;  // -1 when not recorded
};

struct OpAllocation
{
    std::string op;  // innermost CPU op around the allocation ("" outside any op)
    int64_t allocations = 0;
    int64_t bytes = 0;  // allocated (frees not subtracted)
};

struct Allocation
{
    int64_t allocNs = 0;
    int64_t freeNs = -1;  // -1: never freed inside the trace
    int64_t bytes = 0;
    uint64_t address = 0;
};

struct DeviceMemory
{
    std::string device;        // "cuda:0", "cpu"
    bool totalsRecorded = false;  // false: allocated rebuilt from Bytes, reserved n/a
    std::vector<MemoryPoint> curve;  // one point per sample, time-ordered
    int64_t peakAllocatedBytes = 0;
    std::optional<int64_t> peakReservedBytes;
    std::vector<std::optional<int64_t>> allocatedAtStepStart;  // per step; none before the first sample
    std::vector<Allocation> allocations;  // paired by address, in allocation order
    int64_t unpairedFrees = 0;            // frees whose allocation precedes the trace
    std::vector<OpAllocation> byOp;       // by bytes, descending
};

// Keyed by device name ("cuda:0", ..., "cpu").
std::map<std::string, DeviceMemory> computeMemoryUsage(const trace::TraceModel& model, const StepDetection& steps);

}  // namespace kinetoscope::analysis
