#pragma once
// What a trace says about itself: the container, the devices, the job's place in a
// distributed run, and the versions of the tools that wrote it.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kinetoscope::trace {

// `deviceProperties` (or `computeProperties` in 2021 files). Absent numbers are -1.
struct DeviceInfo
{
    int id = -1;
    std::string name;
    int64_t totalGlobalMemBytes = -1;
    int computeMajor = -1;
    int computeMinor = -1;
    int numSms = -1;
    int warpSize = -1;
    int maxThreadsPerBlock = -1;
    int maxThreadsPerMultiprocessor = -1;
    int regsPerBlock = -1;
    int regsPerMultiprocessor = -1;
    int64_t sharedMemPerBlockBytes = -1;
    int64_t sharedMemPerMultiprocessorBytes = -1;
};

struct DistributedInfo
{
    std::string backend;  // "nccl", "gloo", ...
    int rank = -1;
    int worldSize = -1;
};

enum class TraceContainer : uint8_t
{
    BareArray,    // legacy profiler and Kineto up to PyTorch 1.8: `[ ...events ]`
    EventsObject  // `{ "schemaVersion": ..., "traceEvents": [ ... ], ... }`
};

enum class GpuVendor : uint8_t
{
    None,
    Nvidia,
    Amd,
    Mtia
};

struct TraceMetadata
{
    TraceContainer container = TraceContainer::EventsObject;
    std::optional<int64_t> schemaVersion;
    std::optional<int64_t> baseTimeNs;  // `baseTimeNanoseconds`: ts are relative to it
    // Numbers present but out of range (and so left unset), as "deviceProperties.numSms";
    // the load counts each as a skipped value.
    std::vector<std::string> rejectedValues;
    std::string traceName;
    std::string displayTimeUnit;
    std::vector<DeviceInfo> devices;
    bool devicesFromComputeProperties = false;
    std::optional<DistributedInfo> distributed;
    // Tool versions as written (`cupti_version`, `cuda_runtime_version`,
    // `roctracer_version`, `hip_runtime_version`, ...), in file order.
    std::vector<std::pair<std::string, std::string>> versions;
    // Every other top-level key, with its value's JSON text (long values are cut).
    std::vector<std::pair<std::string, std::string>> otherKeys;
};

}  // namespace kinetoscope::trace
