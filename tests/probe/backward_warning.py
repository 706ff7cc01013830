"""A script whose backward makes torch warn with a stack level: a full backward hook on a
model whose inputs need no grad ("Full backward hook is firing when gradients are computed
with respect to module outputs since no inputs require gradients"), which torch attributes
to the script's own `loss.backward()` line, five frames up.

    python backward_warning.py [--steps 12]

Prints the last loss; the warning goes to stderr, once, naming this file's line.
"""
import argparse

import torch
from torch import nn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=12)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    model.register_full_backward_hook(lambda module, grad_input, grad_output: None)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    inputs, targets = torch.randn(16, 4), torch.randn(16, 1)
    for _ in range(args.steps):
        loss = nn.functional.mse_loss(model(inputs), targets)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    print("loss %.6f" % loss.item())


if __name__ == "__main__":
    main()
