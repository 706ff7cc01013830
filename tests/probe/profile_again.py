"""A training script that profiles itself: a small MLP trained for --steps, with its own
torch.profiler open over steps --from .. --from+2 (CPU, and CUDA on a GPU), or over the
whole loop with --whole-loop. Under `kinetoscope profile` the probe's window (steps 5-7 by
default) comes first: the script's own window must still record (the device too); with
--whole-loop, or a window of its own that opens inside the probe's (--from 6), the probe
must leave the script's profiler alone. --api autograd: torch.autograd.profiler.profile
(the older entry) instead of torch.profiler.profile. --schedule WAIT,WARMUP: a
torch.profiler schedule (wait, warm-up, then 3 steps recorded) stepped from --from on: the
profiler prepares Kineto during the warm-up, before it records.

    python profile_again.py [--steps 30] [--from 20 | --whole-loop] [--device cuda]
                            [--api profiler|autograd] [--schedule WAIT,WARMUP]

Prints "own profiler: N events, K kernels".
"""
import argparse
import json
import os
import tempfile

import torch
from torch import nn


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--from", dest="first", type=int, default=20)
    parser.add_argument("--whole-loop", action="store_true", help="the script's profiler open throughout")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--api", choices=("profiler", "autograd"), default="profiler")
    parser.add_argument("--schedule", default=None)
    args = parser.parse_args()
    first, last = (0, args.steps - 1) if args.whole_loop else (args.first, args.first + 2)
    schedule = None
    if args.schedule:
        wait, warmup = (int(n) for n in args.schedule.split(","))
        schedule = torch.profiler.schedule(wait=wait, warmup=warmup, active=3, repeat=1)
        last = args.first + wait + warmup + 2
    device = torch.device(args.device)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 10)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    inputs = torch.randn(64, 256, device=device)
    targets = torch.randint(0, 10, (64,), device=device)
    activities = [torch.profiler.ProfilerActivity.CPU]
    if device.type == "cuda":
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    own = None
    for step in range(args.steps):
        if step == first:
            if args.api == "autograd":
                own = torch.autograd.profiler.profile(use_device="cuda" if device.type == "cuda" else None)
            else:
                own = torch.profiler.profile(activities=activities, schedule=schedule)
            own.__enter__()
        loss = nn.functional.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if schedule is not None and first <= step < last:
            own.step()
        if step == last:
            own.__exit__(None, None, None)
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "own.json")
                own.export_chrome_trace(path)
                with open(path) as f:
                    events = json.load(f)["traceEvents"]
            kernels = sum(1 for e in events if e.get("cat") == "kernel")
            print("own profiler: %d events, %d kernels" % (len(events), kernels), flush=True)


if __name__ == "__main__":
    main()
