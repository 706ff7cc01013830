"""A validation pass under no_grad before training starts, as scripts that check a
checkpoint first do: its forwards look like an inference loop until the optimizer first
steps, and from then on the run is training (the launcher's test: only the optimizer's
steps are the run's).

    python validate_then_train.py [--validate 12] [--steps-total 20]
"""
import argparse

import torch
from torch import nn


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--validate", type=int, default=12, help="no_grad forwards first")
    parser.add_argument("--steps-total", type=int, default=20, help="optimizer steps after")
    args = parser.parse_args()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    inputs, targets = torch.randn(16, 32), torch.randint(0, 4, (16,))
    model.eval()
    with torch.no_grad():
        for _ in range(args.validate):
            model(inputs)
    model.train()
    for _ in range(args.steps_total):
        optimizer.zero_grad(set_to_none=True)
        nn.functional.cross_entropy(model(inputs), targets).backward()
        optimizer.step()
    print("validated %d batches, trained %d steps" % (args.validate, args.steps_total))


if __name__ == "__main__":
    main()
