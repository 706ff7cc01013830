#include "core/engine/torch_runtime.h"

#include <torch/cuda.h>
#include <torch/types.h>
#include <torch/version.h>

namespace kinetoscope::engine {

TorchRuntime probeTorchRuntime()
{
    TorchRuntime runtime;
    runtime.torchVersion = TORCH_VERSION;
    runtime.cudaAvailable = torch::cuda::is_available();
    runtime.cudaDeviceCount =
        runtime.cudaAvailable ? static_cast<int>(torch::cuda::device_count()) : 0;
    return runtime;
}

int64_t sumOfRangeTensor(int64_t count)
{
    const torch::Tensor values = torch::arange(count, torch::kInt64);
    return values.sum().item<int64_t>();
}

}  // namespace kinetoscope::engine
