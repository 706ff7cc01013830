"""A tiny training (or inference) loop that writes what it saw from inside to a JSON
file: its forward's output dtype, whether autocast was on, its losses, its DataLoaders'
settings. The probe's tests of the lab's arms, seed and loader overrides read it.

    python arm_check.py --report out.json [--autocast] [--grad-scaler] [--reseed 0]
                        [--workers N --persistent] [--extra-loaders] [--infer]
"""
import argparse
import json
import random

import torch
from torch import nn
from torch.utils.data import BatchSampler, DataLoader, SequentialSampler, TensorDataset


def loader_settings(loader):
    return {"num_workers": loader.num_workers, "batch_size": loader.batch_size,
            "pin_memory": loader.pin_memory, "persistent_workers": loader.persistent_workers,
            "prefetch_factor": loader.prefetch_factor}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", required=True)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--autocast", action="store_true", help="the model under its own autocast")
    parser.add_argument("--grad-scaler", action="store_true")
    parser.add_argument("--reseed", type=int, default=None, help="torch.manual_seed(N) itself")
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--persistent", action="store_true")
    parser.add_argument("--extra-loaders", action="store_true")
    parser.add_argument("--infer", action="store_true", help="no optimizer: forwards under no_grad")
    args = parser.parse_args()

    report = {"random": random.random(), "losses": [], "out_dtypes": [], "autocast_in_loss": [],
              "autocast_after_step": []}
    if args.reseed is not None:
        torch.manual_seed(args.reseed)
    dataset = TensorDataset(torch.randn(512, 16), torch.randint(0, 4, (512,)))
    extra = {}
    if args.workers:
        extra = {"persistent_workers": args.persistent, "prefetch_factor": 4,
                 "multiprocessing_context": "fork"}
    loader = DataLoader(dataset, 16, True, num_workers=args.workers, **extra)  # positional
    report["loader"] = loader_settings(loader)
    if args.extra_loaders:
        by_sampler = DataLoader(dataset, batch_sampler=BatchSampler(SequentialSampler(dataset), 5, False))
        report["batch_sampler_loader"] = loader_settings(by_sampler)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    if args.grad_scaler:
        report["scaler_enabled"] = torch.amp.GradScaler("cpu").is_enabled()
    criterion = nn.CrossEntropyLoss()
    try:
        step = 0
        while step < args.steps:
            for inputs, targets in loader:
                if args.infer:
                    with torch.no_grad():
                        output = model(inputs)
                    report["out_dtypes"].append(str(output.dtype))
                    report["autocast_after_step"].append(torch.is_autocast_enabled("cpu"))
                else:
                    optimizer.zero_grad()
                    if args.autocast:
                        with torch.autocast("cpu", dtype=torch.bfloat16):
                            output = model(inputs)
                    else:
                        output = model(inputs)
                    report["out_dtypes"].append(str(output.dtype))
                    report["autocast_in_loss"].append(torch.is_autocast_enabled("cpu"))
                    loss = criterion(output, targets)
                    report["losses"].append(loss.item())
                    loss.backward()
                    optimizer.step()
                    report["autocast_after_step"].append(torch.is_autocast_enabled("cpu"))
                step += 1
                if step >= args.steps:
                    break
    finally:
        with open(args.report, "w") as f:
            json.dump(report, f)
    print("ran %d steps" % step)


if __name__ == "__main__":
    main()
