"""A training loop that fails at step 6 (after the probe's warm-up, among the measured
steps): in its Dataset (--raise-in data: the error comes out of the DataLoader's
__next__), in its backward (--raise-in backward: a loss that needs no grad, torch's
RuntimeError out of torch.autograd.backward) or in its own profiler (--raise-in profiler:
the step profiled by two nested torch.profiler blocks, whose outer one's stop raises
torch's "Can't disable Kineto profiler when it's not running"). Its traceback must read as
in the bare run.

    python raising_loop.py --raise-in data|backward|profiler
"""
import contextlib
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

FAILING_STEP = 6
BATCH = 8


class Samples(Dataset):
    def __init__(self, raise_at):
        self.raise_at = raise_at

    def __len__(self):
        return 64 * BATCH

    def __getitem__(self, index):
        if index == self.raise_at:
            raise ValueError("sample %d cannot be read" % index)
        return torch.randn(16), torch.randn(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--raise-in", choices=("data", "backward", "profiler"), required=True)
    args = parser.parse_args()
    torch.manual_seed(0)
    raise_at = FAILING_STEP * BATCH if args.raise_in == "data" else -1
    loader = DataLoader(Samples(raise_at), batch_size=BATCH)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for step, (x, y) in enumerate(loader):
        with profiled_twice(args.raise_in == "profiler" and step == FAILING_STEP):
            loss = nn.functional.mse_loss(model(x), y)
            if args.raise_in == "backward" and step == FAILING_STEP:
                loss = loss.detach()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


@contextlib.contextmanager
def profiled_twice(nested):
    if not nested:
        yield
        return
    with torch.profiler.profile():
        with torch.profiler.profile():
            yield


if __name__ == "__main__":
    main()
