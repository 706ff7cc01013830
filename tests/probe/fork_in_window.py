"""A script whose validation DataLoader (one persistent fork worker) is first iterated at
step --validate-at, and which forks a child there too (os.fork). Whatever runs then, each
process it forks must run as without the probe: no profiler recording its ops for the
rest of its life (a persistent worker forked inside the probe's window grew by ~200 MB a
dozen steps).

    python fork_in_window.py [--steps 12] [--validate-at 3]

Prints whether the worker and the child found a profiler recording them.
"""
import argparse
import os
import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Validation(Dataset):
    """Four samples; each says whether a profiler records the process that made it."""

    def __len__(self):
        return 4

    def __getitem__(self, index):
        return torch.ones(1), torch.tensor(int(torch.autograd._profiler_enabled()))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--validate-at", type=int, default=3)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    validation = DataLoader(Validation(), batch_size=2, num_workers=1, persistent_workers=True,
                            multiprocessing_context="fork")
    worker_profiled = child_profiled = None
    for step in range(args.steps):
        loss = model(torch.randn(4, 1)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step < args.validate_at:
            continue
        with torch.no_grad():
            flags = [flag for _, batch_flags in validation for flag in batch_flags.tolist()]
        worker_profiled = any(flags) if worker_profiled is None else worker_profiled or any(flags)
        if child_profiled is None:
            sys.stdout.flush()
            pid = os.fork()
            if pid == 0:
                os._exit(int(torch.autograd._profiler_enabled()))
            _, status = os.waitpid(pid, 0)
            child_profiled = bool(os.waitstatus_to_exitcode(status))
    print("worker profiled: %s; child profiled: %s" % (worker_profiled, child_profiled))


if __name__ == "__main__":
    main()
