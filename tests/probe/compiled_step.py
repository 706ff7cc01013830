"""A whole training step under torch.compile, the backward inside it: Dynamo breaks its
graph at the backward, which runs eagerly. Under `kinetoscope profile` the probe's
backward wrapper must stay out of Dynamo's sight as torch's own frames do: no warning of
Dynamo's about the probe's code, no graph break in it (the loss's .item()), and the
steps still measured. backend="eager": Dynamo without inductor (quick on a CPU).

    python compiled_step.py [--steps 12] [--direct]    (--direct: torch.autograd.backward(loss))

Prints the last loss and Dynamo's graph-break reasons, one a line.
"""
import argparse

import torch
import torch._dynamo
from torch import nn


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--direct", action="store_true")
    args = parser.parse_args()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    inputs, targets = torch.randn(64, 16), torch.randn(64, 1)

    @torch.compile(backend="eager")
    def train_step(x, y):
        loss = nn.functional.mse_loss(model(x), y)
        if args.direct:
            torch.autograd.backward(loss)
        else:
            loss.backward()
        return loss

    for _ in range(args.steps):
        optimizer.zero_grad()
        loss = train_step(inputs, targets)
        optimizer.step()
    print("loss %.5f" % loss.item())
    for reason in sorted(torch._dynamo.utils.counters["graph_break"]):
        print("graph break:", reason.splitlines()[0])


if __name__ == "__main__":
    main()
