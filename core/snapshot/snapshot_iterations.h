#pragma once
// The iterations of a snapshot's history, for telling a leak (memory that grows with the
// iterations) from what a single pass keeps. From the annotation that repeats most
// (ProfilerStep, Optimizer.zero_grad, the DataLoader's next: external_annotations); else
// from an allocation that recurs, the same size from the same line, with memory coming
// back down between its occurrences, as a training step's does. A forward pass through
// similar layers repeats allocations too, but its memory only grows between them: it is
// one pass, not iterations.
#include "core/snapshot/snapshot_model.h"
#include "core/snapshot/snapshot_timeline.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kinetoscope::snapshot {

struct Iterations
{
    std::vector<int64_t> starts;  // in the timeline's `when` units, increasing
    std::string
        foundBy;  // "annotation ProfilerStep#", "a repeating allocation at train.py:12 step"
};

inline constexpr size_t kMinIterations = 3;

Iterations findIterations(const SnapshotModel& model, const DeviceTimeline& timeline);

}  // namespace kinetoscope::snapshot
