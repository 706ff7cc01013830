"""Trains an MLP with optimizer.step(closure): the closure zeroes the gradients, runs the
forward and the loss, and calls backward, inside the optimizer's step (what Lightning's
automatic optimization does; LBFGS calls the closure several times a step).

    python train_closure.py --steps 40
    python train_closure.py --optimizer lbfgs --steps 20 --timing-out own.json

--timing-out writes, per step, what the script itself times: the forward (model and loss),
the backward, the optimizer's own time (the step less its closure's calls) in seconds, and
the loss of the closure's first call (what optimizer.step returns).
"""
import argparse
import json
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

perf_counter = time.perf_counter


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--optimizer", choices=("sgd", "lbfgs"), default="sgd")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--timing-out", default=None)
    args = parser.parse_args()

    torch.manual_seed(0)
    samples = args.steps * args.batch_size
    dataset = TensorDataset(torch.randn(samples, 128), torch.randint(0, 10, (samples,)))
    loader = DataLoader(dataset, batch_size=args.batch_size)
    model = nn.Sequential(nn.Linear(128, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                          nn.Linear(512, 10))
    if args.optimizer == "lbfgs":
        optimizer = torch.optim.LBFGS(model.parameters(), lr=0.1, max_iter=4)
    else:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    criterion = nn.CrossEntropyLoss()

    own = []
    for inputs, targets in loader:
        times = {"forward": 0.0, "backward": 0.0, "closure": 0.0}

        def closure():
            entered = perf_counter()
            optimizer.zero_grad()
            started = perf_counter()
            loss = criterion(model(inputs), targets)
            forwarded = perf_counter()
            loss.backward()
            ended = perf_counter()
            times["forward"] += forwarded - started
            times["backward"] += ended - forwarded
            times["closure"] += ended - entered
            return loss

        started = perf_counter()
        loss = optimizer.step(closure)
        step_s = perf_counter() - started
        own.append({"forward": times["forward"], "backward": times["backward"],
                    "optimizer": step_s - times["closure"], "loss": loss.item()})
    print("steps:", len(own), "last loss: %.4f" % own[-1]["loss"])
    if args.timing_out:
        with open(args.timing_out, "w") as f:
            json.dump(own, f)


if __name__ == "__main__":
    main()
