"""Trains a small MLP classifier on synthetic data: a plain training script, as a user
writes one, used by the probe's tests (tests/probe/test_probe.py and the launcher's).

    python train_mlp.py --steps-total 40 --sample-delay-ms 0.5 --workers 4
"""
import argparse
import json
import os
import sys
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class SyntheticDataset(Dataset):
    """Random feature vectors and labels; `delay_s` per sample stands for a slow
    transform or slow storage."""

    def __init__(self, size, features, classes, delay_s, seed=0):
        generator = torch.Generator().manual_seed(seed)
        self.inputs = torch.randn(size, features, generator=generator)
        self.targets = torch.randint(0, classes, (size,), generator=generator)
        self.delay_s = delay_s

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, index):
        if self.delay_s > 0:
            time.sleep(self.delay_s)
        return self.inputs[index], self.targets[index]


def make_model(features, hidden, classes):
    return nn.Sequential(
        nn.Linear(features, hidden), nn.ReLU(),
        nn.Linear(hidden, hidden), nn.ReLU(),
        nn.Linear(hidden, classes),
    )


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps-total", type=int, default=40, help="optimizer steps to run")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--features", type=int, default=64)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--dataset-size", type=int, default=2048)
    parser.add_argument("--sample-delay-ms", type=float, default=0.0)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--multiprocessing-context", choices=["spawn", "fork"], default=None)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--raise-at-step", type=int, default=-1)
    parser.add_argument("--chdir", default=None, help="change directory before training")
    parser.add_argument("--exit-code", type=int, default=0, help="end with sys.exit(N)")
    parser.add_argument("--os-exit", action="store_true", help="end with os._exit(3)")
    parser.add_argument("--log-every", type=int, default=10)
    parser.add_argument("--keep-iterators", action="store_true",
                        help="keep every epoch's DataLoader iterator alive (no two share an id)")
    parser.add_argument("--warnings-as-errors", action="store_true",
                        help="turn every warning into an exception once imported (a strict suite)")
    parser.add_argument("--fetch-ahead", action="store_true",
                        help="hand out each batch once the next one is fetched, as accelerate's "
                             "DataLoaderShard and timm's PrefetchLoader do")
    parser.add_argument("--timing-out", default=None,
                        help="write each step's wall time (seconds) to this JSON file")
    return parser.parse_args(argv)


def train(args):
    torch.manual_seed(0)
    dataset = SyntheticDataset(args.dataset_size, args.features, args.classes,
                               args.sample_delay_ms / 1000.0)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, drop_last=True,
                        num_workers=args.workers,
                        multiprocessing_context=args.multiprocessing_context if args.workers else None)
    model = make_model(args.features, args.hidden, args.classes)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    criterion = nn.CrossEntropyLoss()
    model.train()

    step = 0
    step_times = []
    last = time.perf_counter()
    kept = []
    while step < args.steps_total:
        iterator = iter(loader)
        if args.keep_iterators:
            kept.append(iterator)
        for inputs, targets in fetched_ahead(iterator) if args.fetch_ahead else iterator:
            if step == args.raise_at_step:
                raise RuntimeError("planted failure at step %d" % step)
            optimizer.zero_grad(set_to_none=True)
            loss = criterion(model(inputs), targets)
            loss.backward()
            optimizer.step()
            now = time.perf_counter()
            step_times.append(now - last)
            last = now
            if args.log_every and step % args.log_every == 0:
                print("step %d loss %.4f" % (step, loss.item()))
            step += 1
            if step >= args.steps_total:
                break
    print("trained %d steps" % step)
    return step_times


def fetched_ahead(iterator):
    """The batches of `iterator`, each handed out after the next one was fetched: the
    epoch's last one after the fetch that ended the epoch."""
    current = next(iterator, None)
    while current is not None:
        following = next(iterator, None)
        yield current
        current = following


def main(argv=None):
    args = parse_args(argv)
    if args.warnings_as_errors:
        import warnings

        warnings.simplefilter("error")
    if args.chdir:
        os.chdir(args.chdir)
    step_times = train(args)
    if args.timing_out:
        with open(args.timing_out, "w") as f:
            json.dump(step_times, f)
    sys.stdout.flush()
    if args.os_exit:
        os._exit(3)
    if args.exit_code:
        sys.exit(args.exit_code)


if __name__ == "__main__":
    main()
