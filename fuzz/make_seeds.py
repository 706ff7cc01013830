#!/usr/bin/env python3
"""Cuts a seed corpus for the fuzzers out of real traces.

Usage: make_seeds.py TRACES_DIR OUT_DIR [--per-trace N]

For each trace (plain or .gz) under TRACES_DIR: its top-level metadata with the first
events; runs of consecutive events from spread-out places (so that launches, kernels,
flows and memory samples that belong together stay together); one event of each
(category, phase) pair; and the first bytes of the raw text (a truncated file). Every
seed stays under 2 KiB, the fuzzers' -max_len. The lab session seeds are written here
(they are this project's own format), and the snapshot seeds (small pickles of plain data
made here, and the first bytes of each snapshot in the snapshots folder beside TRACES_DIR).
Deterministic: the same traces give the same seeds.
"""
import gzip
import hashlib
import json
import os
import pickle
import random
import sys

MAX_BYTES = 2048


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    try:
        doc = json.loads(raw)
    except ValueError:
        return raw, None
    return raw, doc


def dump(metadata, events):
    doc = dict(metadata)
    doc["traceEvents"] = events
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()


def fit(metadata, events):
    """The longest prefix of `events` that keeps the seed under MAX_BYTES."""
    while events:
        data = dump(metadata, events)
        if len(data) <= MAX_BYTES:
            return data
        events = events[: len(events) * 3 // 4]
    data = dump(metadata, [])
    return data if len(data) <= MAX_BYTES else None


def trace_seeds(path, per_trace, rng):
    raw, doc = load(path)
    yield raw[:1024]  # a truncated file
    if doc is None:
        return
    if isinstance(doc, list):
        events, metadata = doc, {}
    else:
        events = doc.get("traceEvents", [])
        metadata = {k: v for k, v in doc.items() if k != "traceEvents"}
        # Large metadata (device lists) is kept whole once, trimmed elsewhere.
        small = {k: v for k, v in metadata.items() if len(json.dumps(v)) < 600}
    if not isinstance(events, list) or not events:
        return
    yield fit(metadata, events[:40])
    events_by_time = sorted((e for e in events if isinstance(e, dict)), key=lambda e: float(e.get("ts", 0) or 0)
                            if isinstance(e.get("ts", 0), (int, float)) else 0)
    for _ in range(per_trace):
        start = rng.randrange(len(events_by_time))
        yield fit(small if not isinstance(doc, list) else {}, events_by_time[start:start + 60])
    kinds = {}
    for e in events:
        if isinstance(e, dict):
            kinds.setdefault((str(e.get("cat")), str(e.get("ph"))), e)
    yield fit(small if not isinstance(doc, list) else {}, list(kinds.values()))


SESSIONS = [
    {"kinetoscope_session": 1, "config": {"model": "mlp", "device": "cuda"}, "environment": {"nvml": "yes"},
     "lab": [{"name": "fp32", "ran": True, "samples_per_second": 1200.5, "mean_step_ms": 26.6, "peak_allocated_bytes": 123456},
             {"name": "bf16", "ran": True, "samples_per_second": 2100.0, "mean_step_ms": 15.2, "peak_allocated_bytes": -1},
             {"name": "bf16+cuda-graph", "ran": False, "skipped_reason": "needs a GPU"}],
     "phases": [{"phase": "data", "mean_ms": 4.0, "std_ms": 0.5, "median_ms": 3.9, "p95_ms": 5.0, "p99_ms": 6.0}],
     "split": {"dataloader_ms": 3.2, "compute_ms": 20.1},
     "steps": [[2, 1.0, 0.2, 5.0, 9.0, 1.5, 2.3], [3, 1.1, 0.2, 5.1, 9.2, 1.4, 2.2]],
     "sweep": [{"knob": "workers", "value": 4, "samples_per_second": 1500.0, "data_wait_ms": 0.4, "error": ""}],
     "samples": [[0.1, 55.0, 80.0, 1000000, 2000000, 3000000, 4000000]],
     "trace": "trace.json", "findings": [{"id": "dataloader-bound", "title": "waits on data"}]},
    {"kinetoscope_session": 1},
    {"kinetoscope_session": 1, "split": {"dataloader_ms": 0.0, "compute_ms": 0.0}, "lab": [{"name": "fp32", "ran": True, "mean_step_ms": 0}]},
]


def snapshot_seeds(snapshots):
    """Small snapshots in every form the reader accepts (pickled here: plain data, no
    code), and the first bytes of each real snapshot beside the traces (a truncated file)."""
    frames = [{"name": "forward", "filename": "/home/u/model.py", "line": 42},
              {"name": "_call_impl", "filename": "/usr/lib/python3/site-packages/torch/nn/modules/module.py", "line": 1}]
    block = {"address": 4096, "size": 512, "requested_size": 500, "state": "active_allocated", "frames": frames}
    segment = {"device": 0, "address": 4096, "total_size": 2048, "allocated_size": 512, "active_size": 512,
               "requested_size": 500, "stream": 0, "segment_type": "small", "segment_pool_id": (0, 0),
               "is_expandable": False, "frames": [], "blocks": [block, {"size": 1536, "state": "inactive"}]}
    entries = [{"action": "alloc", "addr": 4096, "size": 512, "stream": 0, "time_us": 10, "frames": frames},
               {"action": "free_requested", "addr": 4096, "size": 512, "stream": 0, "time_us": 20, "frames": frames},
               {"action": "free_completed", "addr": 4096, "size": 512, "stream": 0, "time_us": 21, "frames": frames},
               {"action": "oom", "addr": 0, "size": 1 << 33, "device_free": 1 << 20, "stream": 0, "time_us": 30}]
    snapshot = {"segments": [segment], "device_traces": [entries, []],
                "allocator_settings": {"expandable_segments": False, "garbage_collection_threshold": 0.5},
                "external_annotations": [{"name": "Optimizer.zero_grad", "stage": "START", "device": 0, "time_us": 5}]}
    for protocol in (2, 3, 4, 5):
        yield pickle.dumps(snapshot, protocol=protocol)
    yield pickle.dumps([segment], protocol=4)
    if snapshots and os.path.isdir(snapshots):
        for name in sorted(os.listdir(snapshots)):
            if name.endswith(".pickle"):
                with open(os.path.join(snapshots, name), "rb") as f:
                    yield f.read(MAX_BYTES)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    traces, out = sys.argv[1], sys.argv[2]
    per_trace = int(sys.argv[sys.argv.index("--per-trace") + 1]) if "--per-trace" in sys.argv else 6
    ingest, session = os.path.join(out, "ingest"), os.path.join(out, "session")
    os.makedirs(ingest, exist_ok=True)
    os.makedirs(session, exist_ok=True)
    paths = []
    for root, _, files in os.walk(traces):
        paths += [os.path.join(root, f) for f in files if f.endswith((".json", ".json.gz"))]
    count = 0
    for path in sorted(paths):
        rng = random.Random(path)
        for seed in trace_seeds(path, per_trace, rng):
            if seed:
                name = hashlib.sha1(seed).hexdigest()
                with open(os.path.join(ingest, name), "wb") as f:
                    f.write(seed)
                count += 1
    for s in SESSIONS:
        data = json.dumps(s, separators=(",", ":")).encode()
        with open(os.path.join(session, hashlib.sha1(data).hexdigest()), "wb") as f:
            f.write(data)
    snapshot = os.path.join(out, "snapshot")
    os.makedirs(snapshot, exist_ok=True)
    snapshots = 0
    for data in snapshot_seeds(os.path.join(os.path.dirname(os.path.abspath(traces)), "snapshots")):
        with open(os.path.join(snapshot, hashlib.sha1(data).hexdigest()), "wb") as f:
            f.write(data)
        snapshots += 1
    print(f"make_seeds: {count} trace seeds from {len(paths)} traces, {len(SESSIONS)} session seeds, "
          f"{snapshots} snapshot seeds in {out}")


if __name__ == "__main__":
    main()
