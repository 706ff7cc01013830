#pragma once
// Torch-side pieces of the engine, shared by its translation units only: models,
// datasets and the loader that feeds batches to the training thread.
#include "core/engine/lab_runner.h"

#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <torch/types.h>

namespace kinetoscope::engine::detail {

// A failure with a one-line message for the user (bad model name, unreadable dataset).
struct UserError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

// True for the CUDA allocator's OutOfMemoryError and the CPU allocator's refusal.
bool isOutOfMemory(const c10::Error& error);
// The same, read from a message alone (the TorchScript interpreter rethrows what it met as
// a std::runtime_error that carries only the text).
bool isOutOfMemoryMessage(const std::string& message);

// Why torch failed, in one line. The TorchScript interpreter's message opens with "The
// following operation failed in the TorchScript interpreter." and two tracebacks, and ends
// with the error it met ("RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x256
// and 20x64)"): that error's first line, without its class. Any other message: its first
// line.
std::string torchReason(const std::string& message);
// "64x3x32x32"; "a scalar" for no dimensions.
std::string shapeText(c10::IntArrayRef sizes);

// What one sample looks like, without the batch dimension.
struct SampleSpec
{
    std::vector<int64_t> shape;
    torch::ScalarType dtype = torch::kFloat32;  // kLong for token ids
    int64_t classes = 10;
    int64_t vocabulary = 0;  // token ids lie in [0, vocabulary)
};

struct Batch
{
    torch::Tensor inputs;
    torch::Tensor targets;  // class indices, int64
};

// A trainable model: logits [batch, classes] from a batch of inputs.
class Model
{
public:
    virtual ~Model() = default;
    virtual torch::Tensor forward(const torch::Tensor& inputs) = 0;
    virtual std::vector<torch::Tensor> parameters() = 0;
    virtual void to(torch::Device device) = 0;
    virtual void train() = 0;
    virtual void eval() = 0;  // inference: dropout off, batch norm on its running statistics
};

// The samples a built-in model trains on when the dataset is synthetic.
SampleSpec syntheticSpecFor(const RunConfig& config);
// A built-in model sized for `data`, or the TorchScript file config.model names;
// throws UserError for an unknown name or a file that does not load.
std::unique_ptr<Model> buildModel(const RunConfig& config, const SampleSpec& data);
bool isScriptModelPath(const std::string& model);
// The TorchScript file config.model names, fed `data`. Its forward turns torch's failure
// into a UserError of one line: torch's reason, the input it was given and, on synthetic
// data, that --input-shape sets it.
std::unique_ptr<Model> loadScriptModel(const RunConfig& config, const SampleSpec& data);

class Dataset
{
public:
    virtual ~Dataset() = default;
    virtual SampleSpec spec() const = 0;
    virtual int64_t size() const = 0;  // samples; 0 = unbounded (synthetic)
    // The samples at `indices`, stacked, on the CPU. Called from loader threads.
    virtual Batch get(const std::vector<int64_t>& indices) const = 0;
    // Samples first .. first + count - 1; unbounded datasets need no index list.
    virtual Batch getRange(int64_t first, int64_t count) const;
};

// Opens config.dataset (reading config.dataPath); throws UserError with the reason.
std::unique_ptr<Dataset> openDataset(const RunConfig& config);

// Batches of a dataset, made by `workers` threads (or on the caller's thread when
// workers == 0) with `prefetch` batches queued per worker, each sample costing
// `sampleCpuUs` of CPU work and `sampleIoUs` of waiting. Batch b is the same for a
// given seed whoever makes it: epochs are shuffled by (seed, epoch). A worker's failure
// (an out-of-memory, a bad file) is rethrown by next().
class Loader
{
public:
    Loader(const RunConfig& config, const Dataset& dataset);
    ~Loader();
    Loader(const Loader&) = delete;
    Loader& operator=(const Loader&) = delete;
    Batch next();

private:
    Batch make(int64_t batchIndex) const;
    std::vector<int64_t> indicesOf(int64_t batchIndex) const;  // finite datasets
    void work();

    RunConfig m_config;
    const Dataset& m_dataset;
    int64_t m_size = 0;             // samples, 0 = unbounded
    int64_t m_batchesPerEpoch = 0;  // 0 = unbounded
    std::vector<std::thread> m_threads;
    std::mutex m_mutex;
    std::condition_variable m_ready, m_space;
    std::deque<std::pair<int64_t, Batch>> m_queue;  // (batch index, batch)
    std::exception_ptr m_failure;
    int64_t m_nextToMake = 0;
    int64_t m_nextToHand = 0;
    bool m_stop = false;
};

}  // namespace kinetoscope::engine::detail
