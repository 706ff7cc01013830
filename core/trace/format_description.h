#pragma once
// Facts about a loaded trace that the `info` command and the GUI's status line show:
// which profiler era wrote it, for which GPU vendor, and how many step markers it has.
#include "core/trace/trace_model.h"

#include <string>

namespace kinetoscope::trace {

// E.g. "Kineto, PyTorch 2.4 or later (relative ts + baseTimeNanoseconds)".
std::string describeFormat(const TraceModel& model);

GpuVendor detectGpuVendor(const TraceModel& model);
std::string_view gpuVendorName(GpuVendor vendor);

// Events whose name starts with `prefix` (by default the `ProfilerStep#N` markers that
// torch.profiler's schedule writes, one per step).
size_t countEventsWithNamePrefix(const TraceModel& model,
                                 std::string_view prefix = "ProfilerStep#");

}  // namespace kinetoscope::trace
