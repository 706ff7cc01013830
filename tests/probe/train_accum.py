"""Trains an MLP with gradient accumulation (several micro-batches per optimizer step):
a step for the probe is one optimizer step, not one forward.

    python train_accum.py --optimizer-steps 12 --accumulation 4
"""
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--optimizer-steps", type=int, default=12)
    parser.add_argument("--accumulation", type=int, default=4)
    parser.add_argument("--micro-batch", type=int, default=8)
    args = parser.parse_args()

    torch.manual_seed(0)
    samples = args.optimizer_steps * args.accumulation * args.micro_batch
    dataset = TensorDataset(torch.randn(samples, 32), torch.randint(0, 5, (samples,)))
    loader = DataLoader(dataset, batch_size=args.micro_batch, shuffle=True)
    model = nn.Sequential(nn.Linear(32, 128), nn.GELU(), nn.Linear(128, 5))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    criterion = nn.CrossEntropyLoss()

    optimizer.zero_grad()
    for index, (inputs, targets) in enumerate(loader):
        loss = criterion(model(inputs), targets) / args.accumulation
        loss.backward()
        if (index + 1) % args.accumulation == 0:
            optimizer.step()
            optimizer.zero_grad()
    print("optimizer steps:", (index + 1) // args.accumulation)


if __name__ == "__main__":
    main()
