#pragma once
// The engine's counting CPU allocator: c10's default CPU allocator behind a counter of
// the bytes live in CPU tensors, so that a CPU run has a step's peak (as the CUDA caching
// allocator gives a GPU run) and a memory limit the batch-size sweep can run into.
// Installed once, for the life of the process; only allocations made after it is
// installed are counted. Engine-internal.
#include <cstdint>

namespace kinetoscope::engine::detail::cpu {

void countAllocations();  // installs the counter (idempotent)
// Allocations that would take the live bytes past `bytes` fail as c10::OutOfMemoryError
// (0: no limit). Installs the counter.
void limitMemory(int64_t bytes);
void resetPeakAllocated();     // the peak restarts from the bytes live now
int64_t peakAllocatedBytes();  // the most bytes live at once since the reset; -1 when not counting
int64_t allocatedBytes();      // the bytes live now; -1 when not counting

}  // namespace kinetoscope::engine::detail::cpu
