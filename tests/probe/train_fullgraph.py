"""Trains a small MLP compiled with fullgraph=True: any graph break is an error, so the
script fails if anything the probe hooks into the model (its forward hooks, during the
model's discovery on every module) is traced by Dynamo and breaks the graph. The eager
backend keeps it quick: Dynamo traces, nothing is compiled to kernels. It prints how many
graphs Dynamo compiled, to be the same as the bare run's.

    python train_fullgraph.py --steps-total 12
    python train_fullgraph.py --steps-total 12 --teacher

--teacher compiles a frozen teacher first, called under no_grad before each step (the model
trained is the one compiled second).
"""
import argparse

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.linear = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        return x + torch.relu(self.norm(self.linear(x)))


class Teacher(nn.Sequential):
    pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps-total", type=int, default=12)
    parser.add_argument("--teacher", action="store_true")
    args = parser.parse_args()
    torch.manual_seed(0)
    teacher = None
    if args.teacher:
        teacher = torch.compile(Teacher(Block(64), nn.Linear(64, 10)).eval(), fullgraph=True,
                                backend="eager")
    model = nn.Sequential(Block(64), Block(64), nn.Linear(64, 10))
    compiled = torch.compile(model, fullgraph=True, backend="eager")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    for _ in range(args.steps_total):
        inputs, targets = torch.randn(32, 64), torch.randint(0, 10, (32,))
        if teacher is not None:
            with torch.no_grad():
                targets = teacher(inputs).argmax(1)
        loss = loss_fn(compiled(inputs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    # What Dynamo compiled: as many graphs as the bare run's (the probe's global hooks, gone
    # after the model is found, once recompiled the model here).
    counters = torch._dynamo.utils.counters
    print("trained; graphs", counters["stats"]["unique_graphs"], flush=True)


if __name__ == "__main__":
    main()
