#pragma once
// Memory over time per device, from the `[memory]` samples: the allocator's
// `Total Allocated` / `Total Reserved` curves and peaks, allocated memory at each step
// start (growth across steps), allocations paired with their frees by address, and the
// bytes each op allocated. Traces from before 2022 carry no totals: allocated memory is
// then rebuilt by summing `Bytes` (relative to the start of the trace), and reserved
// memory is not available.
#include "core/analysis/steps.h"
#include "core/trace/trace_model.h"

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

// The TensorBoard plugin's memory table, per op name: "self" counts the memory events made
// in the op itself (not in an op nested in it), "total" those made in it or any nested op.
// Size increase is bytes allocated less bytes freed.
struct OpAllocation
{
    std::string op;                 // innermost CPU op around the event ("" outside any op)
    int64_t allocations = 0;        // self
    int64_t bytes = 0;              // self: allocated (frees not subtracted)
    int64_t selfIncreaseBytes = 0;  // self: allocated less freed
    int64_t totalAllocations = 0;
    int64_t totalBytes = 0;
    int64_t totalIncreaseBytes = 0;
};

struct Allocation
{
    int64_t allocNs = 0;
    int64_t freeNs = -1;  // -1: never freed inside the trace
    int64_t bytes = 0;
    uint64_t address = 0;
    trace::EventId op;  // the innermost CPU op that allocated it; invalid outside any op
    // Its allocation's and its free's positions in the device's curve (samples at one
    // timestamp keep their order there); freeSample -1 when never freed.
    int64_t allocSample = 0;
    int64_t freeSample = -1;
};

// What was alive at the peak of allocated memory, by the stack of ops that allocated it.
struct LiveAtPeak
{
    std::string stack;  // outermost op first: "aten::linear > aten::addmm"; "" outside any op
    int64_t allocations = 0;
    int64_t bytes = 0;
};

struct DeviceMemory
{
    std::string device;              // "cuda:0", "cpu"
    bool totalsRecorded = false;     // false: allocated rebuilt from Bytes, reserved n/a
    std::vector<MemoryPoint> curve;  // one point per sample, time-ordered
    int64_t peakAllocatedBytes = 0;
    std::optional<int64_t> peakReservedBytes;
    std::vector<std::optional<int64_t>>
        allocatedAtStepStart;             // per step; none before the first sample
    std::vector<Allocation> allocations;  // paired by address, in allocation order
    int64_t unpairedFrees = 0;            // frees whose allocation precedes the trace
    std::vector<OpAllocation> byOp;       // by self bytes, descending
    std::optional<int64_t> peakTimeNs;    // the first sample at the peak of allocated memory
    std::vector<LiveAtPeak> liveAtPeak;   // by bytes, descending
    int64_t peakUntrackedBytes = 0;       // allocated at the peak by no allocation in the trace
};

// At most about `maxPoints` points of a curve for plotting: the lowest and highest point of
// each of maxPoints / 2 equal time buckets, in time order, so the peak is kept exactly.
// Chosen by allocated bytes, or by reserved bytes with `reserved`.
std::vector<MemoryPoint> reduceCurve(const std::vector<MemoryPoint>& curve, size_t maxPoints,
                                     bool reserved = false);

// Keyed by device name ("cuda:0", ..., "cpu").
std::map<std::string, DeviceMemory> computeMemoryUsage(const trace::TraceModel& model,
                                                       const StepDetection& steps);

}  // namespace kinetoscope::analysis
