// The engine's datasets: synthetic tensors, MNIST (IDX files) and CIFAR-10 (binary
// version) in their original formats, and a file of tensors saved by torch.save.
#include "core/engine/engine_internal.h"

#include <ATen/CPUGeneratorImpl.h>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <torch/csrc/jit/serialization/pickle.h>

namespace kinetoscope::engine::detail {

namespace fs = std::filesystem;

bool isOutOfMemory(const c10::Error& error)
{
    if (dynamic_cast<const c10::OutOfMemoryError*>(&error))
        return true;
    return isOutOfMemoryMessage(error.what_without_backtrace());
}

bool isOutOfMemoryMessage(const std::string& message)
{
    // The CPU allocator's refusal ("DefaultCPUAllocator: not enough memory: ..."), the
    // engine's CPU limit and the CUDA caching allocator's OutOfMemoryError.
    return message.find("not enough memory") != std::string::npos ||
           message.find("can't allocate memory") != std::string::npos ||
           message.find("CPU memory limit: ") != std::string::npos ||
           message.find("CUDA out of memory") != std::string::npos;
}

Batch Dataset::getRange(int64_t first, int64_t count) const
{
    std::vector<int64_t> indices(static_cast<size_t>(count));
    std::iota(indices.begin(), indices.end(), first);
    return get(indices);
}

namespace {

// Random tensors of one shape; a batch is drawn from a generator seeded by the run's
// seed and the batch's first sample, so the same slice comes back for every arm.
class SyntheticDataset final : public Dataset
{
public:
    SyntheticDataset(SampleSpec spec, uint64_t seed) : m_spec(std::move(spec)), m_seed(seed) {}
    SampleSpec spec() const override { return m_spec; }
    int64_t size() const override { return 0; }

    Batch get(const std::vector<int64_t>& indices) const override
    {
        return getRange(indices.front(), int64_t(indices.size()));
    }

    Batch getRange(int64_t first, int64_t count) const override
    {
        auto generator = at::detail::createCPUGenerator(m_seed * 1'000'003ULL + uint64_t(first));
        std::vector<int64_t> shape{count};
        shape.insert(shape.end(), m_spec.shape.begin(), m_spec.shape.end());
        Batch batch;
        batch.inputs = m_spec.dtype == torch::kLong
                           ? torch::randint(0, m_spec.vocabulary, shape, generator, torch::kLong)
                           : torch::randn(shape, generator, torch::kFloat32);
        batch.targets = torch::randint(0, m_spec.classes, {count}, generator, torch::kLong);
        return batch;
    }

private:
    SampleSpec m_spec;
    uint64_t m_seed;
};

// Images as uint8 [N, C, H, W] and labels [N], normalised per channel when batched.
class ImageDataset final : public Dataset
{
public:
    ImageDataset(torch::Tensor images, torch::Tensor labels, const std::vector<double>& mean,
                 const std::vector<double>& std)
        : m_images(std::move(images)), m_labels(std::move(labels))
    {
        const int64_t channels = m_images.size(1);
        m_mean = torch::tensor(mean).to(torch::kFloat32).view({1, channels, 1, 1});
        m_std = torch::tensor(std).to(torch::kFloat32).view({1, channels, 1, 1});
    }
    SampleSpec spec() const override
    {
        SampleSpec s;
        s.shape = {m_images.size(1), m_images.size(2), m_images.size(3)};
        s.classes = 10;
        return s;
    }
    int64_t size() const override { return m_images.size(0); }
    Batch get(const std::vector<int64_t>& indices) const override
    {
        const torch::Tensor at = torch::tensor(indices, torch::kLong);
        Batch batch;
        batch.inputs =
            (m_images.index_select(0, at).to(torch::kFloat32).div_(255.0) - m_mean) / m_std;
        batch.targets = m_labels.index_select(0, at);
        return batch;
    }

private:
    torch::Tensor m_images, m_labels, m_mean, m_std;
};

std::vector<char> readFile(const fs::path& path, const std::string& what)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw UserError(what + ": cannot open " + path.string());
    return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

uint32_t bigEndian32(const std::vector<char>& bytes, size_t at)
{
    uint32_t value = 0;
    for (size_t i = 0; i < 4; ++i)
        value = (value << 8) | uint8_t(bytes[at + i]);
    return value;
}

fs::path firstExisting(const fs::path& dir, std::initializer_list<const char*> names)
{
    for (const char* name : names)
        if (fs::exists(dir / name))
            return dir / name;
    return {};
}

// IDX files as published by LeCun et al.: big-endian magic (0x0803 images, 0x0801
// labels), counts, dimensions, then one unsigned byte per pixel or label.
std::unique_ptr<Dataset> openMnist(const fs::path& dir)
{
    const std::string what = "mnist";
    const fs::path imagesPath = firstExisting(
        dir, {"train-images-idx3-ubyte", "train-images.idx3-ubyte", "t10k-images-idx3-ubyte"});
    const fs::path labelsPath = firstExisting(
        dir, {"train-labels-idx1-ubyte", "train-labels.idx1-ubyte", "t10k-labels-idx1-ubyte"});
    if (imagesPath.empty() || labelsPath.empty())
        throw UserError("mnist: " + dir.string() +
                        " has no train-images-idx3-ubyte / train-labels-idx1-ubyte");
    const std::vector<char> images = readFile(imagesPath, what),
                            labels = readFile(labelsPath, what);
    if (images.size() < 16 || bigEndian32(images, 0) != 0x803)
        throw UserError("mnist: " + imagesPath.string() + " is not an IDX image file");
    if (labels.size() < 8 || bigEndian32(labels, 0) != 0x801)
        throw UserError("mnist: " + labelsPath.string() + " is not an IDX label file");
    const int64_t count = bigEndian32(images, 4), rows = bigEndian32(images, 8),
                  cols = bigEndian32(images, 12);
    if (int64_t(bigEndian32(labels, 4)) != count)
        throw UserError("mnist: the image and label files hold different counts");
    if (count == 0 || int64_t(images.size()) < 16 + count * rows * cols ||
        int64_t(labels.size()) < 8 + count)
        throw UserError("mnist: " + imagesPath.string() + " is truncated or empty");
    auto pixels = torch::from_blob(const_cast<char*>(images.data()) + 16, {count, 1, rows, cols},
                                   torch::kUInt8)
                      .clone();
    auto classes = torch::from_blob(const_cast<char*>(labels.data()) + 8, {count}, torch::kUInt8)
                       .to(torch::kLong);
    return std::make_unique<ImageDataset>(pixels, classes, std::vector<double>{0.1307},
                                          std::vector<double>{0.3081});
}

// The CIFAR-10 binary version: records of 1 label byte + 3072 pixel bytes (1024 red,
// 1024 green, 1024 blue, row-major 32x32) in data_batch_1.bin .. data_batch_5.bin.
std::unique_ptr<Dataset> openCifar10(fs::path dir)
{
    if (fs::is_directory(dir / "cifar-10-batches-bin"))
        dir /= "cifar-10-batches-bin";
    constexpr int64_t kRecord = 1 + 3 * 32 * 32;
    std::vector<torch::Tensor> parts;
    for (int i = 1; i <= 5; ++i) {
        const fs::path file = dir / ("data_batch_" + std::to_string(i) + ".bin");
        if (!fs::exists(file))
            continue;
        const std::vector<char> bytes = readFile(file, "cifar10");
        if (bytes.empty() || bytes.size() % kRecord != 0)
            throw UserError("cifar10: " + file.string() +
                            " is truncated (not a whole number of 3073-byte records)");
        parts.push_back(torch::from_blob(const_cast<char*>(bytes.data()),
                                         {int64_t(bytes.size()) / kRecord, kRecord}, torch::kUInt8)
                            .clone());
    }
    if (parts.empty())
        throw UserError("cifar10: " + dir.string() +
                        " has no data_batch_N.bin files (the CIFAR-10 binary version)");
    const torch::Tensor records = torch::cat(parts);
    const torch::Tensor labels = records.select(1, 0).to(torch::kLong);
    if (labels.max().item<int64_t>() > 9)
        throw UserError("cifar10: a label is above 9; is this the CIFAR-10 binary version?");
    const torch::Tensor images =
        records.slice(1, 1).reshape({records.size(0), 3, 32, 32}).contiguous();
    return std::make_unique<ImageDataset>(images, labels,
                                          std::vector<double>{0.4914, 0.4822, 0.4465},
                                          std::vector<double>{0.2470, 0.2435, 0.2616});
}

// torch.save((inputs, targets), path) or torch.save({"inputs": ..., "targets": ...}, path).
class TensorFileDataset final : public Dataset
{
public:
    TensorFileDataset(torch::Tensor inputs, torch::Tensor targets)
        : m_inputs(std::move(inputs)), m_targets(std::move(targets))
    {
    }
    SampleSpec spec() const override
    {
        SampleSpec s;
        s.shape.assign(m_inputs.sizes().begin() + 1, m_inputs.sizes().end());
        s.dtype = m_inputs.scalar_type() == torch::kLong ? torch::kLong : torch::kFloat32;
        s.classes = m_targets.max().item<int64_t>() + 1;
        if (s.dtype == torch::kLong)
            s.vocabulary = m_inputs.max().item<int64_t>() + 1;
        return s;
    }
    int64_t size() const override { return m_inputs.size(0); }
    Batch get(const std::vector<int64_t>& indices) const override
    {
        const torch::Tensor at = torch::tensor(indices, torch::kLong);
        Batch batch;
        batch.inputs = m_inputs.index_select(0, at);
        if (batch.inputs.scalar_type() != torch::kLong)
            batch.inputs = batch.inputs.to(torch::kFloat32);
        batch.targets = m_targets.index_select(0, at);
        return batch;
    }

private:
    torch::Tensor m_inputs, m_targets;
};

std::unique_ptr<Dataset> openTensorFile(const fs::path& path)
{
    const std::vector<char> bytes = readFile(path, "tensors");
    c10::IValue value;
    try {
        value = torch::jit::pickle_load(bytes);
    } catch (const c10::Error& e) {
        std::string reason = e.what_without_backtrace();
        reason.resize(std::min(reason.find('\n'), reason.size()));
        throw UserError("tensors: " + path.string() + " is not a torch.save file: " + reason);
    }
    torch::Tensor inputs, targets;
    if (value.isTuple() && value.toTupleRef().elements().size() == 2) {
        const auto& items = value.toTupleRef().elements();
        if (items[0].isTensor() && items[1].isTensor()) {
            inputs = items[0].toTensor();
            targets = items[1].toTensor();
        }
    } else if (value.isList() && value.toListRef().size() == 2 && value.toListRef()[0].isTensor() &&
               value.toListRef()[1].isTensor()) {
        inputs = value.toListRef()[0].toTensor();
        targets = value.toListRef()[1].toTensor();
    } else if (value.isGenericDict()) {
        for (const auto& entry : value.toGenericDict()) {
            if (!entry.key().isString() || !entry.value().isTensor())
                continue;
            if (entry.key().toStringRef() == "inputs")
                inputs = entry.value().toTensor();
            else if (entry.key().toStringRef() == "targets")
                targets = entry.value().toTensor();
        }
    }
    if (!inputs.defined() || !targets.defined())
        throw UserError("tensors: " + path.string() +
                        " must hold (inputs, targets) or {'inputs': ..., 'targets': ...}");
    if (inputs.dim() < 2 || targets.dim() != 1 || inputs.size(0) != targets.size(0) ||
        inputs.size(0) == 0)
        throw UserError("tensors: inputs must be [N, ...] and targets [N] with the same N > 0");
    if (targets.is_floating_point() || targets.min().item<int64_t>() < 0)
        throw UserError("tensors: targets must be class indices (non-negative integers)");
    return std::make_unique<TensorFileDataset>(inputs.contiguous(), targets.to(torch::kLong));
}

}  // namespace

std::unique_ptr<Dataset> openDataset(const RunConfig& config)
{
    if (config.dataset == "synthetic")
        return std::make_unique<SyntheticDataset>(syntheticSpecFor(config), config.seed);
    const bool known =
        config.dataset == "mnist" || config.dataset == "cifar10" || config.dataset == "tensors";
    if (!known)
        throw UserError("unknown dataset '" + config.dataset +
                        "' (synthetic, mnist, cifar10, tensors)");
    if (config.dataPath.empty())
        throw UserError("the " + config.dataset + " dataset needs --data PATH");
    std::error_code ec;
    if (!fs::exists(config.dataPath, ec))
        throw UserError(config.dataset + ": " + config.dataPath + " does not exist");
    if (config.dataset == "mnist")
        return openMnist(config.dataPath);
    if (config.dataset == "cifar10")
        return openCifar10(config.dataPath);
    return openTensorFile(config.dataPath);
}

}  // namespace kinetoscope::engine::detail
