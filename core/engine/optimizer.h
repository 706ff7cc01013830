#pragma once
// The lab's optimizer: Adam (lr 1e-4, as the seed's run_lab) after clipping the
// gradients' global norm to 1.0, built from fused and foreach kernels so that no step
// reads a value back to the host. That keeps it capturable in a CUDA graph; LibTorch's
// torch::optim::Adam keeps its step count on the host and its gradient clipping reads the
// norm back, so neither can be captured.
#include <torch/types.h>

namespace kinetoscope::engine::detail {

class ClippedAdam
{
public:
    explicit ClippedAdam(std::vector<torch::Tensor> parameters, double lr = 1e-4,
                         double maxGradNorm = 1.0);
    void step();
    void zeroGrad();  // set_to_none, as the seed's zero_grad(set_to_none=True)
    // Bytes of the optimizer's state (two moments per parameter, a float32 step count per
    // tensor); 0 before the first step creates it.
    int64_t stateBytes() const;

private:
    std::vector<torch::Tensor> m_parameters;
    std::vector<torch::Tensor> m_expAvg, m_expAvgSq, m_steps;  // lazily, at the first step
    double m_lr, m_maxGradNorm;
};

}  // namespace kinetoscope::engine::detail
