#!/usr/bin/env python3
"""An independent block-level replay of a CUDA memory snapshot's history, for the checks of
core/snapshot/snapshot_replay (tests/core/test_snapshot_oom.cpp quotes its figures).

    python3 bench/snapshot_block_replay.py memory_snapshot.pickle[.gz] [APPLIED ...]

Reads the pickle with Python's own `pickle.load` and replays device 0's `device_traces`
FORWARD from an empty device, as torch's caching allocator lays blocks out: a
`segment_alloc` adds a segment holding one free block; an `alloc` takes the free block that
starts at its address, rounded up to a multiple of 512 bytes (at least 512), and splits the
remainder off when it is at least 512 bytes (small pool: requests up to 1 MiB) or more than
1 MiB (large pool), else keeps it; `free_requested` marks the block pending; `free_completed`
frees it and merges it with free neighbours; `segment_free` drops a wholly free segment.
That needs a history that starts before every segment (DeComFL's does; most do not).

Prints, per APPLIED (entries applied), one JSON line: reserved, allocated (live blocks),
pending, cached free and the largest free block; then whether the replay's end is the
dump's segments and blocks exactly.
"""

import gzip
import json
import pickle
import sys

MiB = 1 << 20


def rounded(requested):
    return 512 if requested < 512 else (requested + 511) // 512 * 512


def replay(entries, stops):
    """Yields (applied, segments) at each of `stops`, then (len(entries), segments)."""
    segments = {}  # address -> [size, [[address, size, state], ...] in address order]

    def blocks_at(address):
        for start, (size, blocks) in segments.items():
            if start <= address < start + size:
                return blocks
        raise ValueError(f"{address:#x} in no segment")

    def index_of(blocks, address):
        return [b[0] for b in blocks].index(address)

    for i, e in enumerate(entries):
        if i in stops:
            yield i, segments
        action, address, size = e["action"], e.get("addr", 0), e.get("size", 0)
        if action == "segment_alloc":
            segments[address] = [size, [[address, size, "inactive"]]]
        elif action == "segment_free":
            del segments[address]
        elif action == "alloc":
            blocks = blocks_at(address)
            j = index_of(blocks, address)
            block = blocks[j]
            assert block[2] == "inactive", (i, block)
            need = rounded(size)
            remainder = block[1] - need
            if (remainder >= 512) if size <= MiB else (remainder > MiB):
                blocks.insert(j + 1, [address + need, remainder, "inactive"])
                block[1] = need
            block[2] = "active_allocated"
        elif action == "free_requested":
            blocks = blocks_at(address)
            blocks[index_of(blocks, address)][2] = "active_pending_free"
        elif action == "free_completed":
            blocks = blocks_at(address)
            j = index_of(blocks, address)
            blocks[j][2] = "inactive"
            if j + 1 < len(blocks) and blocks[j + 1][2] == "inactive":
                blocks[j][1] += blocks[j + 1][1]
                del blocks[j + 1]
            if j > 0 and blocks[j - 1][2] == "inactive":
                blocks[j - 1][1] += blocks[j][1]
                del blocks[j]
    yield len(entries), segments


def state(applied, segments):
    blocks = [b for _, bs in segments.values() for b in bs]
    reserved = sum(size for size, _ in segments.values())
    allocated = sum(b[1] for b in blocks if b[2] == "active_allocated")
    pending = sum(b[1] for b in blocks if b[2] == "active_pending_free")
    return {"applied": applied, "segments": len(segments), "reserved": reserved,
            "allocated": allocated, "pending": pending,
            "cached_free": reserved - allocated - pending,
            "largest_free_block": max([b[1] for b in blocks if b[2] == "inactive"] + [0])}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    opener = gzip.open if sys.argv[1].endswith(".gz") else open
    with opener(sys.argv[1], "rb") as f:
        snapshot = pickle.load(f)
    entries = snapshot["device_traces"][0]
    stops = {int(a) for a in sys.argv[2:]}
    end = None
    for applied, segments in replay(entries, stops):
        print(json.dumps(state(applied, segments)))
        end = segments
    dump = {s["address"]: [s["total_size"], [[b["address"], b["size"], b["state"]] for b in s["blocks"]]]
            for s in snapshot["segments"] if s.get("device", 0) == 0}
    print(json.dumps({"end_is_the_dump": dump == end}))


if __name__ == "__main__":
    main()
