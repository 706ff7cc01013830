"""A loop that updates its weights by hand (`p -= lr * p.grad` under no_grad, as the
tutorials' first training loop does): no torch.optim optimizer, and no forward under
no_grad. At the end it says how many hooks on every module's calls (torch's global forward
hooks) are still in place: none of its own.

    python manual_sgd.py [--steps 400] [--two-models]

--two-models: a second top-level module with parameters (a target network) is called too.
"""
import argparse

import torch
from torch import nn
from torch.nn.modules import module as module_api


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--two-models", action="store_true")
    args = parser.parse_args()
    torch.manual_seed(0)
    model = nn.Sequential(*[nn.Sequential(nn.Linear(8, 8), nn.ReLU()) for _ in range(8)],
                          nn.Linear(8, 1))
    target = nn.Linear(8, 1) if args.two_models else None
    inputs, targets = torch.randn(32, 8), torch.randn(32, 1)
    for _ in range(args.steps):
        goal = targets if target is None else targets + 0.1 * target(inputs).detach()
        loss = nn.functional.mse_loss(model(inputs), goal)
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for parameter in model.parameters():
                parameter -= 0.01 * parameter.grad
    hooks = len(module_api._global_forward_pre_hooks) + len(module_api._global_forward_hooks)
    print("loss %.5f; global module hooks at the end: %d" % (loss.item(), hooks))


if __name__ == "__main__":
    main()
