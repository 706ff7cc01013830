#!/usr/bin/env python3
"""Record a model that ran on the CPU of a GPU machine (issue 54, class 5).

The user's mistake: a script that never moves the model or its inputs to the GPU
(no .to("cuda")), so the whole run is CPU compute while the GPU sits unused. The
profiler then records CPU ops only: no CUDA runtime call, no kernel, and every
`[memory]` sample on the CPU. This script makes that run for real on this machine's
CPU (torch 2.11, the pinned wheel): an MLP's forward over a large batch, in
ProfilerStep steps, activities=[CPU] with profile_memory=True.

What is real and what is not: everything in the trace is this run's, as torch wrote
it, except one thing this machine cannot produce. A GPU machine's profiler writes the
GPU's `deviceProperties` into the trace even when nothing ran on it; a CPU-only
machine writes an empty list (and an "ERROR" key: gpuGetDeviceCount failed). The second
file below is the first with those two top-level keys changed: `deviceProperties` holds
one Tesla V100-SXM2-32GB entry with the figures a V100 reports (the GPU this issue's
user had), and the "ERROR" key is dropped. No event is touched.

What it makes (in --out, default tests/data/gpu_machine_cpu_run next to this script)
    mlp_forward_on_cpu.json.gz
        The run as recorded: a CPU machine's trace (no deviceProperties).
    mlp_forward_on_cpu_v100_props.json.gz
        The same trace with a V100's deviceProperties added: what the GPU machine writes.

How to run
    ~/.local/share/kinetoscope/venv/bin/python tests/data/make_gpu_machine_cpu_run.py [--out DIR]

torch.set_num_threads(1), so the figures do not depend on the cores.
"""

import argparse
import gzip
import json
import os
import tempfile

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 54
BATCH = 512
FEATURES = 1024
HIDDEN = 2048
LAYERS = 3

# What a V100 SXM2 32 GB reports to Kineto (cudaGetDeviceProperties), as such a trace
# carries it.
V100 = {
    "id": 0,
    "name": "Tesla V100-SXM2-32GB",
    "totalGlobalMem": 34089730048,
    "computeMajor": 7,
    "computeMinor": 0,
    "maxThreadsPerBlock": 1024,
    "maxThreadsPerMultiprocessor": 2048,
    "regsPerBlock": 65536,
    "regsPerMultiprocessor": 65536,
    "warpSize": 32,
    "sharedMemPerBlock": 49152,
    "sharedMemPerMultiprocessor": 98304,
    "numSms": 80,
    "sharedMemPerBlockOptin": 98304,
}


def model():
    layers = []
    width = FEATURES
    for _ in range(LAYERS):
        layers += [nn.Linear(width, HIDDEN), nn.ReLU()]
        width = HIDDEN
    layers.append(nn.Linear(width, 10))
    return nn.Sequential(*layers)


def record(path):
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    net = model().eval()  # never moved to the GPU: the user's mistake
    inputs = torch.randn(6, BATCH, FEATURES)  # the batches, on the CPU too
    schedule = torch.profiler.schedule(wait=1, warmup=1, active=3, repeat=1)
    with torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU],
        profile_memory=True,
        schedule=schedule,
    ) as prof:
        with torch.no_grad():
            for i in range(5):
                net(inputs[i]).argmax(dim=1)
                prof.step()
    prof.export_chrome_trace(path)


def write_gzip(trace, path):
    with gzip.GzipFile(path, "wb", mtime=0, compresslevel=9) as f:
        f.write(json.dumps(trace).encode())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(HERE, "gpu_machine_cpu_run"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "trace.json")
        record(raw)
        with open(raw) as f:
            trace = json.load(f)
    write_gzip(trace, os.path.join(args.out, "mlp_forward_on_cpu.json.gz"))
    assert not trace.get("deviceProperties"), "recorded on a machine with a GPU: keep it as is"
    trace["deviceProperties"] = [V100]
    # Kineto on a machine without a GPU also writes why it found none; a GPU machine
    # does not.
    trace.pop("ERROR", None)
    write_gzip(trace, os.path.join(args.out, "mlp_forward_on_cpu_v100_props.json.gz"))


if __name__ == "__main__":
    main()
