#pragma once
// What the args of a device activity say about it: a kernel's launch configuration, a
// copy's size. Kept in side tables of the TraceModel, not in the hot Event struct.
#include <cstdint>

namespace kinetoscope::trace {

// Launch configuration of a kernel, from its args. Absent values are -1.
struct KernelInfo
{
    int32_t grid[3] = {-1, -1, -1};
    int32_t block[3] = {-1, -1, -1};
    int32_t registersPerThread = -1;
    int32_t sharedMemoryBytes = -1;
    float blocksPerSm = -1.0f;
    float warpsPerSm = -1.0f;
    float occupancyPercent = -1.0f;  // `est. achieved occupancy %`

    bool operator==(const KernelInfo&) const = default;
};

// Size of a memcpy or memset, from its args. Absent values are -1.
struct CopyInfo
{
    int64_t bytes = -1;
    float bandwidthGBps = -1.0f;

    bool operator==(const CopyInfo&) const = default;
};

}  // namespace kinetoscope::trace
