// The overhead benchmark's reference: the lab's training step with nothing of
// Kinetoscope's around it.
#include "core/engine/engine_internal.h"
#include "core/engine/lab_runner.h"
#include "core/engine/optimizer.h"

#include <chrono>
#include <torch/cuda.h>
#include <torch/nn/functional/loss.h>

namespace kinetoscope::engine {

double runBareLoop(const RunConfig& config)
{
    using namespace detail;
    const bool cuda =
        config.device == "cuda" || (config.device == "auto" && torch::cuda::is_available());
    const torch::Device device = cuda ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU);
    std::unique_ptr<Dataset> dataset = openDataset(config);
    torch::manual_seed(config.seed);
    std::unique_ptr<Model> model = buildModel(config, dataset->spec());
    model->to(device);
    model->train();
    ClippedAdam optimizer(model->parameters());
    Loader loader(config, *dataset);
    auto start = std::chrono::steady_clock::now();
    for (int64_t step = 0; step < config.warmup + config.steps; ++step) {
        if (step == config.warmup) {
            if (cuda)
                torch::cuda::synchronize();
            start = std::chrono::steady_clock::now();
        }
        Batch batch = loader.next();
        const torch::Tensor x = batch.inputs.to(device, config.nonBlocking);
        const torch::Tensor y = batch.targets.to(device, config.nonBlocking);
        torch::Tensor loss = torch::nn::functional::cross_entropy(model->forward(x), y);
        loss.backward();
        optimizer.step();
        optimizer.zeroGrad();
        (void)loss.item<float>();  // the lab reads every loss back too (NaN check)
    }
    if (cuda)
        torch::cuda::synchronize();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return double(config.steps * config.batchSize) / seconds;
}

}  // namespace kinetoscope::engine
