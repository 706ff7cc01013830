"""Fits a linear model with hand-written SGD (no torch.optim), each iteration inside
record_function("my_step") and done by `train_step`: a loop the probe finds only from a
step marker (`--step-marker my_step`, or the function: `--step-marker train_step`).

    python marker.py --iterations 15
"""
import argparse

import torch
from torch import nn
from torch.profiler import record_function


def train_step(model, inputs, targets, lr):
    with record_function("my_step"):
        loss = nn.functional.mse_loss(model(inputs), targets)
        loss.backward()
        with torch.no_grad():
            for parameter in model.parameters():
                parameter -= lr * parameter.grad
                parameter.grad = None
    return loss.detach()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=15)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()

    torch.manual_seed(0)
    true_weights = torch.randn(16, 1)
    model = nn.Linear(16, 1)
    loss = None
    for _ in range(args.iterations):
        inputs = torch.randn(args.batch_size, 16)
        targets = inputs @ true_weights
        loss = train_step(model, inputs, targets, lr=0.05)
    print("final loss %.4f" % loss.item())


if __name__ == "__main__":
    main()
