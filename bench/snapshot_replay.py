#!/usr/bin/env python3
"""An independent replay of a CUDA memory snapshot's peak, for the GPU check.

    python3 bench/snapshot_replay.py memory_snapshot.pickle

Reads the pickle with Python's own `pickle.load` and replays the allocated bytes through
`device_traces` the way docs/memory.md defines them: an allocation lives from its `alloc`
to its first free (`free_requested`, else `free_completed`). What was allocated before the
history began is the dump's allocated bytes less the history's net, so the replay ends at
the dump. Sizes are the requested bytes (the entries' `size`, the blocks'
`requested_size`). Prints one JSON line: segments, trace entries, allocated at the dump,
the replayed peak and its time (Unix microseconds), per device and in all.
"""

import json
import pickle
import sys


def allocated_at_dump(segments, device):
    total = 0
    for segment in segments:
        if segment.get("device", 0) != device:
            continue
        for block in segment.get("blocks", []):
            if block.get("state") == "active_allocated":
                total += block.get("requested_size", block.get("size", 0))
    return total


def replay(entries):
    """Running sum of the history's allocated bytes: (net, max prefix, time of the max)."""
    live = {}  # address -> bytes, for allocations the history made and has not freed
    running = peak = 0
    peak_time = None
    for entry in entries:
        action = entry.get("action")
        address = entry.get("addr")
        size = entry.get("size", 0)
        if action == "alloc":
            live[address] = size
            running += size
        elif action in ("free_requested", "free_completed"):
            if address in live:
                running -= live.pop(address)
            elif action == "free_requested":
                running -= size  # allocated before the history began
            else:
                continue
        else:
            continue
        if running > peak:
            peak, peak_time = running, entry.get("time_us")
    return running, peak, peak_time


def main():
    with open(sys.argv[1], "rb") as f:
        snapshot = pickle.load(f)
    if isinstance(snapshot, list):
        snapshot = {"segments": snapshot, "device_traces": []}
    segments = snapshot.get("segments", [])
    traces = snapshot.get("device_traces", [])
    devices = []
    for device, entries in enumerate(traces):
        at_dump = allocated_at_dump(segments, device)
        net, peak_delta, peak_time = replay(entries)
        baseline = at_dump - net
        devices.append({
            "device": device,
            "trace_entries": len(entries),
            "allocated_at_dump_bytes": at_dump,
            "before_history_bytes": baseline,
            "peak_allocated_bytes": baseline + peak_delta,
            "peak_time_us": peak_time,
        })
    print(json.dumps({
        "segments": len(segments),
        "reserved_bytes": sum(s.get("total_size", 0) for s in segments),
        "trace_entries": sum(len(t) for t in traces),
        "peak_allocated_bytes": max((d["peak_allocated_bytes"] for d in devices), default=None),
        "devices": devices,
    }))


if __name__ == "__main__":
    main()
