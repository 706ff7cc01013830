"""A training loop with activation checkpointing over the whole model
(torch.utils.checkpoint, use_reentrant=False): the forward runs again inside the backward,
to remake the activations it did not keep.

    python checkpointed.py --steps 20
"""
import argparse

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 1024), nn.GELU(), nn.Linear(1024, 1024), nn.GELU(),
                          nn.Linear(1024, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    for _ in range(args.steps):
        inputs, targets = torch.randn(128, 256), torch.randn(128, 1)
        outputs = checkpoint(model, inputs, use_reentrant=False)
        loss = nn.functional.mse_loss(outputs, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print("final loss %.6f" % loss.item())


if __name__ == "__main__":
    main()
