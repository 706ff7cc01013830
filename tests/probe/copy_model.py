"""A script that copies its model mid-run, as many do: torch.save(model) of the whole
module, copy.deepcopy for an EMA model, torch.jit.script; then goes on. Training (no
DataLoader: the probe's pre hook is on the model) or, with --infer, inference batches
(its post hook). Under `kinetoscope profile` every copy must be made as without the
probe (the probe's hooks are not the model's) and the steps after them still measured.

    python copy_model.py [--steps 16] [--copy-at 8] [--infer] [--own-state]

--own-state: the model's class has a __getstate__ of its own (the `self.__dict__.copy()`
pattern) and an LSTM inside.

Prints what each copy gave.
"""
import argparse
import copy
import io

import torch
from torch import nn


class Forecaster(nn.Module):
    """An LSTM over 8 steps of 8 features, and a head: a model whose class pickles its own
    state, as some do to leave out a cache."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, batch_first=True)
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        out, _ = self.lstm(x.view(x.shape[0], 8, 8))
        return self.head(out[:, -1])

    @torch.jit.unused
    def __getstate__(self):
        return self.__dict__.copy()


def copies(model):
    buffer = io.BytesIO()
    torch.save(model, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer, weights_only=False)
    ema = copy.deepcopy(model)
    scripted = torch.jit.script(model)
    print("saved and loaded: %s; deepcopy hooks: %d pre, %d post; scripted: %s; "
          "loaded hooks: %d pre, %d post"
          % (type(loaded).__name__, len(ema._forward_pre_hooks), len(ema._forward_hooks),
             type(scripted).__name__, len(loaded._forward_pre_hooks), len(loaded._forward_hooks)),
          flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=16)
    parser.add_argument("--copy-at", type=int, default=8)
    parser.add_argument("--infer", action="store_true")
    parser.add_argument("--own-state", action="store_true")
    args = parser.parse_args()
    torch.manual_seed(0)
    if args.own_state:
        model = Forecaster()
    else:
        model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 4))
    inputs, targets = torch.randn(32, 64), torch.randn(32, 4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(args.steps):
        if step == args.copy_at:
            copies(model)
        if args.infer:
            with torch.no_grad():
                model(inputs)
            continue
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(inputs), targets)
        loss.backward()
        optimizer.step()
    print("done", flush=True)


if __name__ == "__main__":
    main()
