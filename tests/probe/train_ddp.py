"""Trains a small MLP with DistributedDataParallel on synthetic data: a plain DDP script,
as a user writes one, launched by torchrun (or srun), used by the probe's rank tests
(tests/probe/test_ranks.py). It knows nothing of kinetoscope.

    torchrun --standalone --nproc-per-node 2 train_ddp.py --steps 40
    torchrun ... train_ddp.py --slow-rank 1 --slow-ms 1      (rank 1 starved of data)
    torchrun ... train_ddp.py --crash-rank 1 --crash-step 7  (rank 1 fails at step 7)
    srun -n 2 python train_ddp.py                            (Slurm's tasks, one node)

The process group is gloo (CPU) from the environment torchrun sets (RANK, WORLD_SIZE,
MASTER_ADDR, MASTER_PORT). Each rank reads its own shard (DistributedSampler).
"""
import argparse
import os
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class SyntheticDataset(Dataset):
    """Random feature vectors and labels; `delay_s` per item stands for a slow transform or
    slow storage."""

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


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40, help="optimizer steps to run")
    parser.add_argument("--epochs", type=int, default=1000, help="at most this many epochs")
    parser.add_argument("--batch-size", type=int, default=16, help="per rank")
    parser.add_argument("--features", type=int, default=32)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--dataset-size", type=int, default=1024)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--slow-rank", type=int, default=-1,
                        help="this rank's dataset sleeps --slow-ms per item")
    parser.add_argument("--slow-ms", type=float, default=0.0)
    parser.add_argument("--crash-rank", type=int, default=-1,
                        help="this rank raises RuntimeError at --crash-step")
    parser.add_argument("--crash-step", type=int, default=-1)
    return parser.parse_args(argv)


def slurm_environment():
    """Under srun (no torchrun): the rendezvous torch's env:// reads, from Slurm's own
    variables, as a Slurm user's script sets it. All tasks on the launching node here."""
    if "RANK" in os.environ or "SLURM_PROCID" not in os.environ:
        return
    os.environ["RANK"] = os.environ["SLURM_PROCID"]
    os.environ["WORLD_SIZE"] = os.environ.get("SLURM_NTASKS", "1")
    os.environ["LOCAL_RANK"] = os.environ.get("SLURM_LOCALID", "0")
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(20000 + int(os.environ.get("SLURM_JOB_ID", "0")) % 20000))


def train(args):
    dist.init_process_group("gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)  # the same initial weights in every rank (DDP broadcasts rank 0's)
    delay_s = args.slow_ms / 1000.0 if rank == args.slow_rank else 0.0
    dataset = SyntheticDataset(args.dataset_size, args.features, args.classes, delay_s)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True,
                                 drop_last=True)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, drop_last=True,
                        num_workers=args.workers)
    model = DistributedDataParallel(nn.Sequential(
        nn.Linear(args.features, args.hidden), nn.ReLU(),
        nn.Linear(args.hidden, args.classes),
    ))
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    criterion = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for inputs, targets in loader:
            if rank == args.crash_rank and step == args.crash_step:
                raise RuntimeError("planted failure in rank %d at step %d" % (rank, step))
            optimizer.zero_grad(set_to_none=True)
            loss = criterion(model(inputs), targets)
            loss.backward()
            optimizer.step()
            step += 1
            if step >= args.steps:
                break
        if step >= args.steps:
            break
    print("rank %d trained %d steps, loss %.4f" % (rank, step, loss.item()), flush=True)
    dist.destroy_process_group()


def main(argv=None):
    args = parse_args(argv)
    slurm_environment()
    if "RANK" not in os.environ:
        raise SystemExit("run me with torchrun or srun (RANK is not set)")
    train(args)


if __name__ == "__main__":
    main()
