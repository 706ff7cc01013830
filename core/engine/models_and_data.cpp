// The built-in models and the synthetic dataset of the engine.
#include "core/engine/engine_internal.h"

#include <ATen/CPUGeneratorImpl.h>

#include <chrono>

namespace kinetoscope::engine::detail {

namespace {

void collect(torch::nn::Module& module, std::vector<torch::Tensor>& parameters)
{
    for (const auto& p : module.parameters())
        parameters.push_back(p);
}

}  // namespace

torch::nn::Sequential buildModel(const RunConfig& c, std::vector<int64_t>& inputShape,
                                std::vector<torch::Tensor>& parameters)
{
    namespace nn = torch::nn;
    if (c.model == "mlp") {
        nn::Sequential net;
        int64_t width = c.inputFeatures;
        for (int64_t i = 0; i < std::max<int64_t>(1, c.layers - 1); ++i) {
            net->push_back(nn::Linear(width, c.hidden));
            net->push_back(nn::ReLU());
            width = c.hidden;
        }
        net->push_back(nn::Linear(width, c.classes));
        inputShape = {c.inputFeatures};
        collect(*net, parameters);
        return net;
    }
    if (c.model == "cnn") {
        // A small ResNet-style stack: conv-bn-relu blocks halving the resolution.
        nn::Sequential net;
        int64_t channels = 3, out = 32;
        for (int64_t i = 0; i < std::max<int64_t>(2, c.layers); ++i) {
            net->push_back(nn::Conv2d(nn::Conv2dOptions(channels, out, 3).stride(i == 0 ? 1 : 2).padding(1).bias(false)));
            net->push_back(nn::BatchNorm2d(out));
            net->push_back(nn::ReLU());
            channels = out;
            out = std::min<int64_t>(out * 2, 512);
        }
        net->push_back(nn::AdaptiveAvgPool2d(1));
        net->push_back(nn::Flatten());
        net->push_back(nn::Linear(channels, c.classes));
        inputShape = {3, c.imageSize, c.imageSize};
        collect(*net, parameters);
        return net;
    }
    throw UserError("unknown or not yet supported model '" + c.model + "' (built-in: mlp, cnn)");
}

SyntheticLoader::SyntheticLoader(const RunConfig& config, std::vector<int64_t> sampleShape)
    : m_config(config), m_shape(std::move(sampleShape))
{
    for (int64_t i = 0; i < config.workers; ++i)
        m_threads.emplace_back([this] { work(); });
}

SyntheticLoader::~SyntheticLoader()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_space.notify_all();
    m_ready.notify_all();
    for (std::thread& t : m_threads)
        t.join();
}

Batch SyntheticLoader::make(int64_t index) const
{
    using Clock = std::chrono::steady_clock;
    // Per-sample cost: busy CPU work, then waiting as on slow storage.
    const auto costUntil = Clock::now() + std::chrono::microseconds(m_config.sampleCpuUs * m_config.batchSize);
    volatile double sink = 0;
    while (Clock::now() < costUntil)
        for (int k = 0; k < 1000; ++k)
            sink = sink + 1e-9 * k;
    if (m_config.sampleIoUs > 0)
        std::this_thread::sleep_for(std::chrono::microseconds(m_config.sampleIoUs * m_config.batchSize));
    auto generator = at::detail::createCPUGenerator(m_config.seed * 1'000'003ULL + uint64_t(index));
    std::vector<int64_t> shape{m_config.batchSize};
    shape.insert(shape.end(), m_shape.begin(), m_shape.end());
    Batch batch;
    batch.inputs = torch::randn(shape, generator, torch::kFloat32);
    batch.targets = torch::randint(0, m_config.classes, {m_config.batchSize}, generator, torch::kLong);
    if (m_config.pinMemory && torch::cuda::is_available()) {
        batch.inputs = batch.inputs.pin_memory();
        batch.targets = batch.targets.pin_memory();
    }
    return batch;
}

void SyntheticLoader::work()
{
    const size_t capacity = size_t(std::max<int64_t>(1, m_config.workers * m_config.prefetch));
    for (;;) {
        int64_t index = 0;
        {
            std::unique_lock lock(m_mutex);
            m_space.wait(lock, [&] { return m_stop || m_queue.size() + 1 <= capacity; });
            if (m_stop)
                return;
            index = m_nextToMake++;
        }
        Batch batch = make(index);
        {
            std::lock_guard lock(m_mutex);
            m_queue.emplace_back(index, std::move(batch));
        }
        m_ready.notify_all();
    }
}

Batch SyntheticLoader::next()
{
    if (m_threads.empty())
        return make(m_nextToHand++);
    std::unique_lock lock(m_mutex);
    // Hand batches out in index order, whichever worker finished first.
    for (;;) {
        for (auto it = m_queue.begin(); it != m_queue.end(); ++it) {
            if (it->first == m_nextToHand) {
                Batch batch = std::move(it->second);
                m_queue.erase(it);
                ++m_nextToHand;
                lock.unlock();
                m_space.notify_one();
                return batch;
            }
        }
        m_ready.wait(lock);
    }
}

}  // namespace kinetoscope::engine::detail
