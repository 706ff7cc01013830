"""A script that logs the aten ops of its training steps with a TorchDispatchMode of its
own, as op counters and debugging tools do, and prints how many it saw. Under `kinetoscope
profile` it must see the ops it sees without the probe: none of the probe's (the loss
read at each backward, `aten::_local_scalar_dense`).

    python dispatch_log.py [--steps 10]

Prints each step's op count and any scalar read among them.
"""
import argparse

import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode


class OpLog(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = nn.Linear(8, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    inputs, targets = torch.randn(16, 8), torch.randn(16, 1)
    for step in range(args.steps):
        optimizer.zero_grad()
        with OpLog() as log:
            loss = nn.functional.mse_loss(model(inputs), targets)
            loss.backward()
        optimizer.step()
        scalars = [op for op in log.ops if "local_scalar" in op]
        print("step %d: %d ops, scalar reads %s" % (step, len(log.ops), scalars), flush=True)


if __name__ == "__main__":
    main()
