#pragma once
// What this machine's CPU can do fast, from its flags in /proc/cpuinfo. Torch-free.
#include <string>

namespace kinetoscope::lab {

// The CPU's bf16 matrix units: "amx_bf16", "avx512_bf16", "none", or "unknown" where
// /proc/cpuinfo cannot be read. Without them a bf16 matmul is converted and slow; a
// session keeps it as environment "cpu_bf16" for the reading of a bf16 slowdown.
std::string cpuBf16Units();

}  // namespace kinetoscope::lab
