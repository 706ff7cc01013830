#pragma once
// A synthetic GPU-bound loop of op calls with recorded shapes on one stream of an H100 SXM
// (132 SMs, 3.35 TB/s): per step, each call of `calls` kOpLoopRepeats times over, each
// launching its kernels back to back; the host launches far ahead and waits for the device
// at the step's end, so the GPU sets the pace and a kernel made shorter shortens the step by
// as much. For the roofline and the rules that read it (tests/analysis/test_roofline.cpp,
// tests/compiled/test_compiled.cpp). Durations in microseconds, as the trace writes them.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kinetoscope::test {

inline constexpr int kOpLoopSteps = 6;
// Each step runs `calls` this many times over (a window of so few activities would be too
// sparse to judge).
inline constexpr int kOpLoopRepeats = 3;

struct OpCall
{
    std::string op;
    std::string dims;                                      // "Input Dims"
    std::string types;                                     // "Input type"
    std::string concrete;                                  // "Concrete Inputs", or ""
    std::vector<std::pair<std::string, int64_t>> kernels;  // name, duration (us)
};

std::string opLoopTrace(const std::vector<OpCall>& calls);

}  // namespace kinetoscope::test
