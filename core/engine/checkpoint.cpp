#include "core/engine/checkpoint.h"

#include "core/engine/autocast_scope.h"

#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/custom_function.h>

namespace kinetoscope::engine::detail {

namespace {

// The block, kept alive in the autograd context until backward has run.
struct SavedBlock final : torch::CustomClassHolder
{
    explicit SavedBlock(torch::nn::AnyModule b) : block(std::move(b)) {}
    torch::nn::AnyModule block;
};

// Inputs: x, the block's parameters, the block. Backward returns one gradient per
// tensor input (x, then each parameter) and none for the block.
struct CheckpointFunction : torch::autograd::Function<CheckpointFunction>
{
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                                 at::TensorList /*parameters*/, torch::nn::AnyModule& block)
    {
        // Autograd is off here: nothing inside the block is kept.
        const c10::DeviceType type = x.device().type();
        ctx->saved_data["autocast"] = at::autocast::is_autocast_enabled(type);
        ctx->saved_data["block"] =
            c10::IValue::make_capsule(c10::make_intrusive<SavedBlock>(block));
        ctx->save_for_backward({x});
        return block.forward(x);
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list outputGrads)
    {
        auto saved =
            c10::static_intrusive_pointer_cast<SavedBlock>(ctx->saved_data["block"].toCapsule());
        // The first block's input (the batch) needs no gradient: none is computed for it.
        const bool inputGrad = ctx->needs_input_grad(0);
        const torch::Tensor x = ctx->get_saved_variables().at(0).detach().requires_grad_(inputGrad);
        const std::vector<torch::Tensor> parameters = saved->block.ptr()->parameters();
        torch::Tensor y;
        {
            torch::AutoGradMode on(true);
            const AutocastScope autocast(ctx->saved_data["autocast"].toBool(), x.device().type());
            y = saved->block.forward(x);
        }
        std::vector<torch::Tensor> inputs;
        if (inputGrad)
            inputs.push_back(x);
        inputs.insert(inputs.end(), parameters.begin(), parameters.end());
        torch::autograd::variable_list grads = torch::autograd::grad(
            {y}, inputs, {outputGrads.at(0)}, /*retain_graph=*/false, /*create_graph=*/false,
            /*allow_unused=*/true);
        if (!inputGrad)
            grads.insert(grads.begin(), torch::Tensor());
        grads.emplace_back();  // the block
        return grads;
    }
};

}  // namespace

torch::Tensor checkpointed(torch::nn::AnyModule& block, const torch::Tensor& x)
{
    const std::vector<torch::Tensor> parameters = block.ptr()->parameters();
    return CheckpointFunction::apply(x, at::TensorList(parameters), block);
}

torch::Tensor forwardBlocks(torch::nn::Sequential& blocks, torch::Tensor x, int64_t every)
{
    const bool checkpointing = every > 0 && blocks->is_training() && torch::GradMode::is_enabled();
    int64_t index = 0;
    for (torch::nn::AnyModule& block : *blocks) {
        ++index;
        x = checkpointing && index % every == 0 ? checkpointed(block, x) : block.forward(x);
    }
    return x;
}

}  // namespace kinetoscope::engine::detail
