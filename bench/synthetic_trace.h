#pragma once
// Writes realistic synthetic Kineto traces of any size, for the benchmarks: the event
// mix of a real GPU training trace (python_function frames, cpu_op nests, runtime
// launches, kernels with launch args, memcpy/memset, ac2g flows, [memory] samples,
// ProfilerStep markers), about 250 bytes per event, in the PyTorch >= 2.4 layout
// (relative float ts + baseTimeNanoseconds).
#include <cstdint>
#include <cstdio>

namespace kinetoscope::bench {

struct SyntheticTraceStats
{
    uint64_t bytes = 0;
    uint64_t events = 0;  // entries of traceEvents
    uint64_t steps = 0;
};

// Writes at least `targetBytes` (stopping at the end of the step that crosses it).
// Deterministic for a given seed.
SyntheticTraceStats writeSyntheticTrace(std::FILE* out, uint64_t targetBytes, uint64_t seed = 1);

}  // namespace kinetoscope::bench
