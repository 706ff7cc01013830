#include "core/engine/optimizer.h"

namespace kinetoscope::engine::detail {

ClippedAdam::ClippedAdam(std::vector<torch::Tensor> parameters, double lr, double maxGradNorm)
    : m_parameters(std::move(parameters)), m_lr(lr), m_maxGradNorm(maxGradNorm)
{
}

void ClippedAdam::step()
{
    torch::NoGradGuard noGrad;
    std::vector<torch::Tensor> params, grads, expAvg, expAvgSq, steps;
    const bool first = m_steps.empty();
    for (size_t i = 0; i < m_parameters.size(); ++i) {
        const torch::Tensor& p = m_parameters[i];
        if (first) {
            m_expAvg.push_back(torch::zeros_like(p));
            m_expAvgSq.push_back(torch::zeros_like(p));
            // float32 step counts on the parameter's device, as fused Adam expects.
            m_steps.push_back(torch::zeros({}, p.options().dtype(torch::kFloat32)));
        }
        if (!p.grad().defined())
            continue;
        params.push_back(p);
        grads.push_back(p.grad());
        expAvg.push_back(m_expAvg[i]);
        expAvgSq.push_back(m_expAvgSq[i]);
        steps.push_back(m_steps[i]);
    }
    if (params.empty())
        return;
    // Global-norm clipping without a host read-back: scale = min(1, max / (norm + 1e-6)).
    const std::vector<torch::Tensor> norms = at::_foreach_norm(grads, 2);
    const torch::Tensor total =
        torch::linalg_vector_norm(torch::stack(norms).to(torch::kFloat32), 2);
    const torch::Tensor scale = torch::clamp_max(m_maxGradNorm / (total + 1e-6), 1.0);
    at::_foreach_mul_(grads, scale);
    at::_foreach_add_(steps, 1);
    at::_fused_adam_(
        params, grads, expAvg, expAvgSq, /*max_exp_avg_sqs=*/{}, steps, m_lr, /*beta1=*/0.9,
        /*beta2=*/0.999, /*weight_decay=*/0.0, /*eps=*/1e-8, /*amsgrad=*/false, /*maximize=*/false);
}

int64_t ClippedAdam::stateBytes() const
{
    int64_t bytes = 0;
    for (const auto* state : {&m_expAvg, &m_expAvgSq, &m_steps})
        for (const torch::Tensor& t : *state)
            bytes += int64_t(t.nbytes());
    return bytes;
}

void ClippedAdam::zeroGrad()
{
    for (torch::Tensor& p : m_parameters)
        p.mutable_grad() = torch::Tensor();
}

}  // namespace kinetoscope::engine::detail
