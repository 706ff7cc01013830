"""Trains a small MLP regressor; run as a module: `python -m pkg.train --steps 20`."""
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def build_loader(samples, batch_size):
    inputs = torch.randn(samples, 24)
    targets = inputs.sum(dim=1, keepdim=True)
    return DataLoader(TensorDataset(inputs, targets), batch_size=batch_size, shuffle=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=16)
    args = parser.parse_args()

    torch.manual_seed(0)
    loader = build_loader(args.steps * args.batch_size, args.batch_size)
    model = nn.Sequential(nn.Linear(24, 64), nn.Tanh(), nn.Linear(64, 1))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    for inputs, targets in loader:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(inputs), targets)
        loss.backward()
        optimizer.step()
    print("last loss %.4f" % loss.item())


if __name__ == "__main__":
    main()
