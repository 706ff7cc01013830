#!/usr/bin/env python3
"""Generate a small, real multi-rank PyTorch job trace (DDP over gloo, CPU only).

What it makes
    Four files ``worker{0..3}.<time>.pt.trace.json.gz`` in ``--out`` (default:
    ``tests/data/ddp_gloo_4ranks`` next to this script), one per rank, written by
    ``torch.profiler.tensorboard_trace_handler``.  They are test data for the
    job analysis (stragglers, collectives).

The job
    * 4 processes started with ``torch.multiprocessing`` (spawn) on this machine,
      ``torch.distributed.init_process_group("gloo")`` over 127.0.0.1 and a free
      port, world size 4, ``torch.set_num_threads(1)`` in each process.
    * A small MLP wrapped in ``DistributedDataParallel`` (CPU), with a small
      ``bucket_cap_mb`` so the gradient all-reduce is split into a few buckets.
      MSE loss, backward, SGD step.
    * Data from a real ``torch.utils.data.DataLoader`` (num_workers=0) over a
      synthetic, seeded ``Dataset``.
    * ``torch.profiler.profile(activities=[CPU], record_shapes=True,
      schedule=schedule(wait=1, warmup=1, active=4, repeat=1))``; ``prof.step()``
      once per iteration, so each rank writes exactly one trace holding
      ProfilerStep#2..#5.

The planted delay
    On ONE rank (``--slow-rank``, default 2) the DataLoader's ``collate_fn``
    sleeps ``--delay-ms`` (default 30 ms) per batch, i.e. per training step.
    The profiler records that sleep inside the
    ``enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__`` span of that
    rank; the other ranks do not sleep and instead wait for the slow rank in the
    gradient all-reduce (gloo collectives).

How to run
    python tests/data/make_ddp_job.py [--out DIR] [--delay-ms 30] [--slow-rank 2]

    Stale ``worker*.pt.trace.json*`` files in DIR are deleted first.
"""

import argparse
import glob
import os
import socket
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

WORLD_SIZE = 4
SEED = 1234
IN_FEATURES = 512
HIDDEN = 1024
OUT_FEATURES = 512
BATCH_SIZE = 64  # ~10 ms fwd+bwd+SGD alone on one core; ~20-30 ms with 4 ranks on 2 cores
BUCKET_CAP_MB = 3  # 8.4 MB of fp32 gradients -> 2 buckets (1574400 + 525312 floats)
PRE_ITERS = 2  # unprofiled iterations (DDP bucket rebuild happens here)
PROFILED_ITERS = 6  # wait=1 + warmup=1 + active=4


class SyntheticDataset(Dataset):
    """Deterministic random regression samples."""

    def __init__(self, n):
        g = torch.Generator().manual_seed(SEED)
        self.x = torch.randn(n, IN_FEATURES, generator=g)
        self.y = torch.randn(n, OUT_FEATURES, generator=g)

    def __len__(self):
        return self.x.shape[0]

    def __getitem__(self, i):
        return self.x[i], self.y[i]


class SlowCollate:
    """Stacks a batch; sleeps ``delay_s`` per batch when ``slow`` is set."""

    def __init__(self, slow, delay_s):
        self.slow = slow
        self.delay_s = delay_s

    def __call__(self, samples):
        if self.slow and self.delay_s > 0:
            time.sleep(self.delay_s)
        xs, ys = zip(*samples)
        return torch.stack(xs), torch.stack(ys)


def make_model():
    return nn.Sequential(
        nn.Linear(IN_FEATURES, HIDDEN),
        nn.ReLU(),
        nn.Linear(HIDDEN, HIDDEN),
        nn.ReLU(),
        nn.Linear(HIDDEN, OUT_FEATURES),
    )


def worker(rank, port, out_dir, delay_ms, slow_rank):
    torch.set_num_threads(1)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD_SIZE)
    torch.manual_seed(SEED)

    model = DDP(make_model(), bucket_cap_mb=BUCKET_CAP_MB)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.MSELoss()

    n_iters = PRE_ITERS + PROFILED_ITERS
    dataset = SyntheticDataset(BATCH_SIZE * WORLD_SIZE * n_iters)
    sampler = DistributedSampler(dataset, num_replicas=WORLD_SIZE, rank=rank,
                                 shuffle=True, seed=SEED)
    collate = SlowCollate(rank == slow_rank, delay_ms / 1000.0)

    def make_loader():
        return DataLoader(dataset, batch_size=BATCH_SIZE, sampler=sampler,
                          num_workers=0, collate_fn=collate)

    def train_step(x, y):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()

    # Unprofiled warm-up iterations (first-iteration DDP bookkeeping).
    for i, (x, y) in enumerate(make_loader()):
        if i >= PRE_ITERS:
            break
        train_step(x, y)
    dist.barrier()

    sched = torch.profiler.schedule(wait=1, warmup=1, active=4, repeat=1)
    handler = torch.profiler.tensorboard_trace_handler(
        out_dir, worker_name=f"worker{rank}", use_gzip=True)
    with torch.profiler.profile(
            activities=[torch.profiler.ProfilerActivity.CPU],
            schedule=sched,
            record_shapes=True,
            on_trace_ready=handler) as prof:
        for i, (x, y) in enumerate(make_loader()):
            if i >= PROFILED_ITERS:
                break
            train_step(x, y)
            prof.step()

    dist.barrier()
    dist.destroy_process_group()


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(here, "ddp_gloo_4ranks"))
    ap.add_argument("--delay-ms", type=float, default=30.0)
    ap.add_argument("--slow-rank", type=int, default=2)
    args = ap.parse_args()

    os.makedirs(args.out, exist_ok=True)
    for f in glob.glob(os.path.join(args.out, "worker*.pt.trace.json*")):
        os.remove(f)

    mp.spawn(worker, args=(free_port(), args.out, args.delay_ms, args.slow_rank),
             nprocs=WORLD_SIZE, join=True)

    for f in sorted(os.listdir(args.out)):
        p = os.path.join(args.out, f)
        print(f"{p}  {os.path.getsize(p)} bytes")


if __name__ == "__main__":
    main()
