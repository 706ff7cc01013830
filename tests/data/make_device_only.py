#!/usr/bin/env python3
"""Cut a real GPU trace down to what a device-only recording holds (issue 54, class 3).

A trace recorded with activities=[ProfilerActivity.CUDA] alone (or exported by an old
tool that kept only the device rows) has the device's timeline and nothing of the host:
no CPU op, no Python frame, no runtime call, no flow from a launch to its kernel. No
machine with a GPU is available where this script is kept, so the device-only trace is
cut from a real GPU run instead of recorded: everything the device recorded is kept as
written (kernels, copies, memsets, the GPU-side step annotations, the process and thread
metadata, deviceProperties); every host-side row is removed. Nothing is edited or added.

What it makes (in --out, default tests/data/device_only next to this script)
    h100_cnn32_device_only.json.gz
        From tests/data/h100_runs/cnn32/trace.json.gz: the engine's run of a small CNN
        at 32x32 (batch 256, Adam fused) on an H100, 5 ProfilerStep steps whose ~10 us
        kernels leave the GPU idle most of the time while the host launches them.

How to run
    python3 tests/data/make_device_only.py [--out DIR]
"""

import argparse
import gzip
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# What the device side of a Kineto trace records: its activities, and the step and
# optimizer annotations CUPTI mirrors onto the GPU's timeline.
DEVICE_CATEGORIES = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation"}


def device_only(trace):
    kept = []
    for e in trace["traceEvents"]:
        if e.get("ph") == "M" or e.get("cat") == "Trace":
            kept.append(e)  # process/thread names and the profiler's own span
        elif e.get("ph") == "X" and e.get("cat") in DEVICE_CATEGORIES:
            kept.append(e)
    out = dict(trace)
    out["traceEvents"] = kept
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(HERE, "device_only"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    source = os.path.join(HERE, "h100_runs", "cnn32", "trace.json.gz")
    with gzip.open(source, "rt") as f:
        trace = json.load(f)
    target = os.path.join(args.out, "h100_cnn32_device_only.json.gz")
    with gzip.GzipFile(target, "wb", mtime=0) as f:
        f.write(json.dumps(device_only(trace)).encode())
    print(target)


if __name__ == "__main__":
    main()
