"""Trains an MLP with gradient accumulation (several micro-batches per optimizer step):
a step for the probe is one optimizer step, not one forward.

    python train_accum.py --optimizer-steps 12 --accumulation 4
    python train_accum.py --accumulation 1 --split 4 --timing-out forward.json
    python train_accum.py --optimizer-steps 2 --accumulation 2 --epochs 5

--epochs N runs the loader N times (--optimizer-steps is then per epoch): a step can start
with a new epoch's iterator.

--split N runs each fetched batch as N chunks, a forward and a backward each (accumulation
over one batch); --timing-out writes, per optimizer step, the seconds its forwards and
losses took as the script itself times them.
"""
import argparse
import json
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--optimizer-steps", type=int, default=12)
    parser.add_argument("--accumulation", type=int, default=4)
    parser.add_argument("--micro-batch", type=int, default=8)
    parser.add_argument("--split", type=int, default=1)
    parser.add_argument("--timing-out", default=None)
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args()

    torch.manual_seed(0)
    samples = args.optimizer_steps * args.accumulation * args.micro_batch
    dataset = TensorDataset(torch.randn(samples, 32), torch.randint(0, 5, (samples,)))
    loader = DataLoader(dataset, batch_size=args.micro_batch, shuffle=True)
    model = nn.Sequential(nn.Linear(32, 128), nn.GELU(), nn.Linear(128, 5))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    criterion = nn.CrossEntropyLoss()

    optimizer.zero_grad()
    forward_s, forward_per_step = 0.0, []
    for _ in range(args.epochs):
        for index, (inputs, targets) in enumerate(loader):
            for chunk, chunk_targets in zip(inputs.chunk(args.split), targets.chunk(args.split)):
                started = time.perf_counter()
                loss = criterion(model(chunk), chunk_targets) / (args.accumulation * args.split)
                forward_s += time.perf_counter() - started
                loss.backward()
            if (index + 1) % args.accumulation == 0:
                optimizer.step()
                optimizer.zero_grad()
                forward_per_step.append(forward_s)
                forward_s = 0.0
    print("optimizer steps:", len(forward_per_step))
    if args.timing_out:
        with open(args.timing_out, "w") as f:
            json.dump(forward_per_step, f)


if __name__ == "__main__":
    main()
