#pragma once
// Activation checkpointing for the built-in models: a checkpointed block keeps only its
// input for backward; its forward runs without autograd, and backward runs it again with
// autograd (under the autocast the forward had) to get the gradients of its input and
// parameters. Memory saved: the block's inner activations; time paid: one more forward of
// the block. As with torch.utils.checkpoint, BatchNorm's running statistics see the batch
// twice; the built-in models have no dropout, so no RNG state is replayed. Engine-internal.
#include <torch/nn/modules/container/any.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/types.h>

namespace kinetoscope::engine::detail {

// The block's forward on x, checkpointed.
torch::Tensor checkpointed(torch::nn::AnyModule& block, const torch::Tensor& x);

// Runs the blocks in order; while training with autograd on, every `every`-th block
// (the every-th, 2*every-th, ...; 0: none) is checkpointed.
torch::Tensor forwardBlocks(torch::nn::Sequential& blocks, torch::Tensor x, int64_t every);

}  // namespace kinetoscope::engine::detail
