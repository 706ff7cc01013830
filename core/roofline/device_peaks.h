#pragma once
// What a GPU can do at most: its dense peak throughput per precision and its memory
// bandwidth, from the vendors' datasheets for the GPUs real traces name, or estimated from
// the SM (CU) count and architecture a trace records. The roofline's roofs.
#include "core/trace/trace_metadata.h"

#include <optional>
#include <span>
#include <string>

namespace kinetoscope::roofline {

// Peaks are dense (no 2:4 sparsity), at the boost clock, in TFLOP/s (1e12 FLOP/s);
// bandwidth in GB/s (1e9 bytes/s). A 0 throughput means the device has no such unit (no
// fp8, no TF32): a matrix op of that precision runs on the next unit down.
struct DevicePeaks
{
    std::string model;       // the table's entry, e.g. "H100 SXM5", "MI300X"
    double fp64Tflops = 0;   // fp64 (matrix units where the device has them for fp64)
    double fp32Tflops = 0;   // fp32 on the SIMT / vector units (FFMA)
    double tf32Tflops = 0;   // fp32 inputs on matrix units (TF32; AMD XF32 where it exists)
    double fp16Tflops = 0;   // fp16 and bf16 on matrix units (fp32 accumulate)
    double fp8Tflops = 0;    // fp8 on matrix units
    double memoryGBps = 0;   // device memory (HBM / GDDR)
    bool estimated = false;  // not matched in the table: from the SM count and architecture
    std::string source;      // the datasheet the figures come from, or how they were estimated
};

// The peaks of the device a trace describes (its deviceProperties entry): matched by name
// (and, where one name covers several parts, by memory size and SM count); otherwise
// estimated from numSms and computeMajor/Minor and marked so. nullopt when nothing is known
// (no name match and no SM count).
std::optional<DevicePeaks> peaksFor(const trace::DeviceInfo& device);

// Every entry of the table, in table order (for docs/roofline.md and the tests).
std::span<const DevicePeaks> knownDevices();

}  // namespace kinetoscope::roofline
