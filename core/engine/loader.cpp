// The engine's DataLoader: batches in order, made ahead by worker threads.
#include "core/engine/engine_internal.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <random>
#include <torch/cuda.h>

namespace kinetoscope::engine::detail {

Loader::Loader(const RunConfig& config, const Dataset& dataset)
    : m_config(config), m_dataset(dataset), m_size(dataset.size())
{
    if (m_size > 0) {
        m_batchesPerEpoch = config.dropLast ? m_size / config.batchSize
                                            : (m_size + config.batchSize - 1) / config.batchSize;
        if (m_batchesPerEpoch == 0)
            throw UserError("the dataset has " + std::to_string(m_size) +
                            " samples, fewer than one batch of " +
                            std::to_string(config.batchSize) + " (lower --batch-size)");
    }
    for (int64_t i = 0; i < config.workers; ++i)
        m_threads.emplace_back([this] { work(); });
}

Loader::~Loader()
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

std::vector<int64_t> Loader::indicesOf(int64_t batchIndex) const
{
    const int64_t batch = m_config.batchSize;
    std::vector<int64_t> indices;
    const int64_t epoch = batchIndex / m_batchesPerEpoch, within = batchIndex % m_batchesPerEpoch;
    const int64_t begin = within * batch, end = std::min(m_size, begin + batch);
    if (!m_config.shuffle) {
        indices.resize(size_t(end - begin));
        std::iota(indices.begin(), indices.end(), begin);
        return indices;
    }
    // The epoch's permutation, rebuilt per batch: O(N) with N the dataset size, small
    // next to making the batch for the datasets the engine reads.
    std::vector<int64_t> order(static_cast<size_t>(m_size));
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 random(m_config.seed * 7919 + uint64_t(epoch));
    std::shuffle(order.begin(), order.end(), random);
    return {order.begin() + begin, order.begin() + end};
}

Batch Loader::make(int64_t batchIndex) const
{
    using Clock = std::chrono::steady_clock;
    // Unbounded datasets take a range: no index list for a batch of any size.
    const std::vector<int64_t> indices =
        m_size > 0 ? indicesOf(batchIndex) : std::vector<int64_t>{};
    const int64_t samples = m_size > 0 ? int64_t(indices.size()) : m_config.batchSize;
    // Per-sample cost: busy CPU work (a heavy transform), then waiting (slow storage).
    const auto costUntil = Clock::now() + std::chrono::microseconds(m_config.sampleCpuUs * samples);
    volatile double sink = 0;
    while (Clock::now() < costUntil)
        for (int k = 0; k < 1000; ++k)
            sink = sink + 1e-9 * k;
    if (m_config.sampleIoUs > 0)
        std::this_thread::sleep_for(std::chrono::microseconds(m_config.sampleIoUs * samples));
    Batch batch =
        m_size > 0 ? m_dataset.get(indices) : m_dataset.getRange(batchIndex * samples, samples);
    if (m_config.pinMemory && torch::cuda::is_available()) {
        batch.inputs = batch.inputs.pin_memory();
        batch.targets = batch.targets.pin_memory();
    }
    return batch;
}

void Loader::work()
{
    const size_t capacity = size_t(std::max<int64_t>(1, m_config.workers * m_config.prefetch));
    for (;;) {
        int64_t index = 0;
        {
            std::unique_lock lock(m_mutex);
            // Batches being made count against the queue's capacity too.
            m_space.wait(lock,
                         [&] { return m_stop || m_nextToMake - m_nextToHand < int64_t(capacity); });
            if (m_stop)
                return;
            index = m_nextToMake++;
        }
        try {
            Batch batch = make(index);
            std::lock_guard lock(m_mutex);
            m_queue.emplace_back(index, std::move(batch));
        } catch (...) {
            std::lock_guard lock(m_mutex);
            if (!m_failure)
                m_failure = std::current_exception();
        }
        m_ready.notify_all();
    }
}

Batch Loader::next()
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
                m_space.notify_all();
                return batch;
            }
        }
        if (m_failure)
            std::rethrow_exception(m_failure);
        m_ready.wait(lock);
    }
}

}  // namespace kinetoscope::engine::detail
