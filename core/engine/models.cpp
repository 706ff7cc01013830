// The built-in models: an MLP, a small ResNet-style CNN and a transformer encoder
// built on scaled-dot-product attention, each sized by RunConfig's knobs. Each is a run
// of blocks between a stem and a head, so that every N-th block can be checkpointed
// (RunConfig::checkpointEvery).
#include "core/engine/checkpoint.h"
#include "core/engine/engine_internal.h"

#include <numeric>
#include <torch/nn/module.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/modules/pooling.h>

namespace kinetoscope::engine::detail {

namespace {

namespace nn = torch::nn;

int64_t product(const std::vector<int64_t>& shape)
{
    return std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<>());
}

// Any torch::nn module whose forward takes and returns one tensor.
template <typename Net>
class NnModel final : public Model
{
public:
    explicit NnModel(Net net) : m_net(std::move(net)) {}
    torch::Tensor forward(const torch::Tensor& inputs) override { return m_net->forward(inputs); }
    std::vector<torch::Tensor> parameters() override { return m_net->parameters(); }
    void to(torch::Device device) override { m_net->to(device); }
    void train() override { m_net->train(); }
    void eval() override { m_net->eval(); }

private:
    Net m_net;
};

// Checkpointing every N-th block of fewer than N would checkpoint none.
void checkCheckpointEvery(const RunConfig& c, size_t blocks)
{
    if (c.checkpointEvery > int64_t(blocks))
        throw UserError("--checkpoint-every " + std::to_string(c.checkpointEvery) + ": the " +
                        c.model + " has " + std::to_string(blocks) +
                        " blocks (--layers sets them)");
}

// One block of layers run in order. (A Sequential's forward is a template, which the
// blocks' AnyModule cannot hold.)
struct BlockImpl : nn::Module
{
    explicit BlockImpl(nn::Sequential layerList)
        : layers(register_module("layers", std::move(layerList)))
    {
    }
    torch::Tensor forward(const torch::Tensor& x) { return layers->forward(x); }
    nn::Sequential layers;
};
TORCH_MODULE(Block);

// A stem, the blocks (every N-th one checkpointed while training), a head.
struct BlockNetImpl : nn::Module
{
    BlockNetImpl(nn::Sequential stemLayers, nn::Sequential blockList, nn::Sequential headLayers,
                 int64_t every)
        : stem(register_module("stem", std::move(stemLayers))),
          blocks(register_module("blocks", std::move(blockList))),
          head(register_module("head", std::move(headLayers))), checkpointEvery(every)
    {
    }

    torch::Tensor forward(const torch::Tensor& inputs)
    {
        const torch::Tensor x = stem->is_empty() ? inputs : stem->forward(inputs);
        return head->forward(forwardBlocks(blocks, x, checkpointEvery));
    }

    nn::Sequential stem, blocks, head;
    int64_t checkpointEvery;
};
TORCH_MODULE(BlockNet);

// Linear-ReLU blocks.
BlockNet mlp(const RunConfig& c, const SampleSpec& data)
{
    nn::Sequential blocks;
    int64_t width = product(data.shape);
    for (int64_t i = 0; i < std::max<int64_t>(1, c.layers - 1); ++i) {
        blocks->push_back(Block(nn::Sequential(nn::Linear(width, c.hidden), nn::ReLU())));
        width = c.hidden;
    }
    checkCheckpointEvery(c, blocks->size());
    return BlockNet(nn::Sequential(nn::Flatten()), blocks,
                    nn::Sequential(nn::Linear(width, data.classes)), c.checkpointEvery);
}

// Conv-BN-ReLU blocks halving the resolution after the first, then global pooling.
BlockNet cnn(const RunConfig& c, const SampleSpec& data)
{
    if (data.shape.size() != 3)
        throw UserError("the cnn model needs image samples (channels x height x width)");
    nn::Sequential blocks;
    int64_t channels = data.shape[0], out = 32;
    for (int64_t i = 0; i < std::max<int64_t>(2, c.layers); ++i) {
        blocks->push_back(Block(nn::Sequential(
            nn::Conv2d(
                nn::Conv2dOptions(channels, out, 3).stride(i == 0 ? 1 : 2).padding(1).bias(false)),
            nn::BatchNorm2d(out), nn::ReLU())));
        channels = out;
        out = std::min<int64_t>(out * 2, 512);
    }
    checkCheckpointEvery(c, blocks->size());
    return BlockNet(
        nn::Sequential(), blocks,
        nn::Sequential(nn::AdaptiveAvgPool2d(1), nn::Flatten(), nn::Linear(channels, data.classes)),
        c.checkpointEvery);
}

// Pre-norm encoder block: x + attention(norm(x)), then x + mlp(norm(x)).
struct EncoderBlockImpl : nn::Module
{
    EncoderBlockImpl(int64_t width, int64_t headCount)
        : heads(headCount),
          norm1(register_module("norm1", nn::LayerNorm(nn::LayerNormOptions({width})))),
          qkv(register_module("qkv", nn::Linear(width, 3 * width))),
          project(register_module("project", nn::Linear(width, width))),
          norm2(register_module("norm2", nn::LayerNorm(nn::LayerNormOptions({width})))),
          up(register_module("up", nn::Linear(width, 4 * width))),
          down(register_module("down", nn::Linear(4 * width, width)))
    {
    }

    torch::Tensor forward(torch::Tensor x)
    {
        const int64_t batch = x.size(0), tokens = x.size(1), width = x.size(2);
        // [batch, tokens, 3, heads, head width] -> three [batch, heads, tokens, head width]
        auto parts = qkv(norm1(x))
                         .view({batch, tokens, 3, heads, width / heads})
                         .permute({2, 0, 3, 1, 4})
                         .unbind(0);
        auto attended = at::scaled_dot_product_attention(parts[0], parts[1], parts[2]);
        x = x + project(attended.transpose(1, 2).reshape({batch, tokens, width}));
        return x + down(torch::gelu(up(norm2(x))));
    }

    int64_t heads;
    nn::LayerNorm norm1;
    nn::Linear qkv, project;
    nn::LayerNorm norm2;
    nn::Linear up, down;
};
TORCH_MODULE(EncoderBlock);

// Token ids [batch, tokens] through an embedding, or float features [batch, ..., F]
// read as a sequence of F-wide tokens (MNIST rows, say) through a projection; learned
// positions, encoder blocks, mean-pooled into the class logits.
struct TransformerImpl : nn::Module
{
    TransformerImpl(const RunConfig& c, const SampleSpec& data)
        : tokensAreIds(data.dtype == torch::kLong), checkpointEvery(c.checkpointEvery)
    {
        if (c.hidden % c.heads != 0)
            throw UserError("transformer: --hidden must be a multiple of --heads");
        const int64_t tokens =
            tokensAreIds ? data.shape.at(0) : product(data.shape) / data.shape.back();
        if (tokensAreIds)
            embed = register_module("embed", nn::Embedding(data.vocabulary, c.hidden));
        else
            projectIn = register_module("project_in", nn::Linear(data.shape.back(), c.hidden));
        positions = register_parameter("positions", torch::randn({1, tokens, c.hidden}) * 0.02);
        for (int64_t i = 0; i < std::max<int64_t>(1, c.layers); ++i)
            blocks->push_back(EncoderBlock(c.hidden, c.heads));
        register_module("blocks", blocks);
        checkCheckpointEvery(c, blocks->size());
        norm = register_module("norm", nn::LayerNorm(nn::LayerNormOptions({c.hidden})));
        head = register_module("head", nn::Linear(c.hidden, data.classes));
    }

    torch::Tensor forward(const torch::Tensor& inputs)
    {
        torch::Tensor x = tokensAreIds
                              ? embed(inputs)
                              : projectIn(inputs.reshape({inputs.size(0), -1, inputs.size(-1)}));
        x = x + positions;
        x = forwardBlocks(blocks, x, checkpointEvery);
        return head(norm(x).mean(1));
    }

    bool tokensAreIds;
    int64_t checkpointEvery;
    nn::Embedding embed{nullptr};
    nn::Linear projectIn{nullptr};
    torch::Tensor positions;
    nn::Sequential blocks;
    nn::LayerNorm norm{nullptr};
    nn::Linear head{nullptr};
};
TORCH_MODULE(Transformer);

}  // namespace

SampleSpec syntheticSpecFor(const RunConfig& c)
{
    SampleSpec spec;
    spec.classes = c.classes;
    if (!c.inputShape.empty())
        spec.shape = c.inputShape;
    else if (c.model == "cnn")
        spec.shape = {3, c.imageSize, c.imageSize};
    else if (c.model == "transformer") {
        spec.shape = {c.sequenceLength};
        spec.dtype = torch::kLong;
        spec.vocabulary = c.vocabulary;
    } else
        spec.shape = {c.inputFeatures};
    return spec;
}

std::unique_ptr<Model> buildModel(const RunConfig& c, const SampleSpec& data)
{
    if (c.model == "mlp")
        return std::make_unique<NnModel<BlockNet>>(mlp(c, data));
    if (c.model == "cnn")
        return std::make_unique<NnModel<BlockNet>>(cnn(c, data));
    if (c.model == "transformer")
        return std::make_unique<NnModel<Transformer>>(Transformer(c, data));
    if (isScriptModelPath(c.model))
        return loadScriptModel(c, data);
    throw UserError("unknown model '" + c.model +
                    "' (built-in: mlp, cnn, transformer; or a TorchScript file)");
}

}  // namespace kinetoscope::engine::detail
