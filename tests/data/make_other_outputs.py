#!/usr/bin/env python3
"""Record what torch.profiler writes besides a trace, with this machine's torch (the pinned
wheel, CPU): the files a user opens by mistake, or finds beside a trace in its folder.
Nothing is edited afterwards.

What it makes (in --out, default tests/data/other_outputs next to this script)
    run/trace.json.gz
        The trace of 2 steps of a small MLP (schedule wait=0, warmup=1, active=1), with
        an ExecutionTraceObserver attached.
    run/execution_trace.json
        That observer's execution trace (Chakra schema: the ops' graph, no timings).
    run/memory_timeline.json
        prof.export_memory_timeline(device="cpu") of the same profile: times and sizes.
    stacks.txt
        prof.export_stacks of a run recorded with with_stack=True (and the verbose
        experimental config, without which torch 2.11 writes an empty file).
    empty_profile.json.gz
        A profiler started and stopped around no work.
    thread_steps.json.gz
        Three marked steps whose work runs on a thread the profiler does not record.
    stopped_mid_step.json.gz
        Five iterations of a DataLoader loop (no marker, no schedule) whose profiler is
        stopped inside the fifth, after its forward: the last iteration has no backward and
        no optimizer step.

Run: ~/.local/share/kinetoscope/venv/bin/python tests/data/make_other_outputs.py
"""
import argparse
import gzip
import os
import shutil
import threading

import torch
from torch.profiler import ExecutionTraceObserver, ProfilerActivity, profile, schedule


def gzip_file(path):
    with open(path, "rb") as plain, gzip.open(path + ".gz", "wb", compresslevel=9) as packed:
        shutil.copyfileobj(plain, packed)
    os.remove(path)


def step(model, optimizer):
    x = torch.randn(32, 64)
    loss = model(x).square().mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "other_outputs"))
    out = parser.parse_args().out
    run = os.path.join(out, "run")
    os.makedirs(run, exist_ok=True)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    observer = ExecutionTraceObserver().register_callback(os.path.join(run, "execution_trace.json"))
    with profile(activities=[ProfilerActivity.CPU], execution_trace_observer=observer,
                 schedule=schedule(wait=0, warmup=1, active=1, repeat=1),
                 record_shapes=True, profile_memory=True, with_stack=True) as prof:
        for _ in range(2):
            step(model, optimizer)
            prof.step()
    prof.export_chrome_trace(os.path.join(run, "trace.json"))
    gzip_file(os.path.join(run, "trace.json"))
    prof.export_memory_timeline(os.path.join(run, "memory_timeline.json"), device="cpu")

    verbose = torch._C._profiler._ExperimentalConfig(verbose=True)
    with profile(activities=[ProfilerActivity.CPU], with_stack=True,
                 experimental_config=verbose) as prof:
        step(model, optimizer)
    prof.export_stacks(os.path.join(out, "stacks.txt"), "self_cpu_time_total")

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        pass
    prof.export_chrome_trace(os.path.join(out, "empty_profile.json"))
    gzip_file(os.path.join(out, "empty_profile.json"))

    with profile(activities=[ProfilerActivity.CPU],
                 schedule=schedule(wait=0, warmup=0, active=3, repeat=1)) as prof:
        for _ in range(3):
            worker = threading.Thread(target=step, args=(model, optimizer))
            worker.start()
            worker.join()
            prof.step()
    prof.export_chrome_trace(os.path.join(out, "thread_steps.json"))
    gzip_file(os.path.join(out, "thread_steps.json"))

    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(320, 64)),
                                         batch_size=32)
    prof = profile(activities=[ProfilerActivity.CPU])
    prof.start()
    for i, (x,) in enumerate(loader):
        loss = model(x).square().mean()
        if i == 4:
            break  # stopped after the forward
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    prof.stop()
    prof.export_chrome_trace(os.path.join(out, "stopped_mid_step.json"))
    gzip_file(os.path.join(out, "stopped_mid_step.json"))


if __name__ == "__main__":
    main()
