#pragma once
// What the LibTorch the engine was built against can do on this machine.
// This header is torch-free so that the CLI, the GUI and the tests can include it.
#include <cstdint>
#include <string>

namespace kinetoscope::engine {

struct TorchRuntime
{
    std::string torchVersion;  // e.g. "2.11.0"
    bool cudaAvailable = false;
    int cudaDeviceCount = 0;
};

TorchRuntime probeTorchRuntime();

// Builds a tensor of 0..count-1 on the CPU and returns its sum, computed by torch:
// the smallest proof that the LibTorch chain (headers, libraries, runtime) works.
int64_t sumOfRangeTensor(int64_t count);

}  // namespace kinetoscope::engine
