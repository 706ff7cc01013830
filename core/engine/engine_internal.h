#pragma once
// Torch-side pieces of the engine, shared by its translation units only.
#include "core/engine/run_config.h"

#include <torch/torch.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace kinetoscope::engine::detail {

// A failure with a one-line message for the user (bad model name, unsupported knob).
struct UserError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

// The built-in models; throws UserError for an unknown name.
torch::nn::Sequential buildModel(const RunConfig& config, std::vector<int64_t>& inputShape,
                                std::vector<torch::Tensor>& parameters);

struct Batch
{
    torch::Tensor inputs;
    torch::Tensor targets;
};

// Synthetic batches of random tensors, made by `workers` threads (or on the caller's
// thread when workers == 0), each sample costing `sampleCpuUs` of CPU work and
// `sampleIoUs` of waiting, as heavy transforms and slow storage do. Batch b is the same
// for a given seed whoever makes it.
class SyntheticLoader
{
public:
    SyntheticLoader(const RunConfig& config, std::vector<int64_t> sampleShape);
    ~SyntheticLoader();
    SyntheticLoader(const SyntheticLoader&) = delete;
    SyntheticLoader& operator=(const SyntheticLoader&) = delete;
    Batch next();

private:
    Batch make(int64_t index) const;
    void work();

    RunConfig m_config;
    std::vector<int64_t> m_shape;
    std::vector<std::thread> m_threads;
    std::mutex m_mutex;
    std::condition_variable m_ready, m_space;
    std::deque<std::pair<int64_t, Batch>> m_queue;  // (batch index, batch)
    int64_t m_nextToMake = 0;
    int64_t m_nextToHand = 0;
    bool m_stop = false;
};

}  // namespace kinetoscope::engine::detail
