"""Cuts an excerpt out of a large Kineto trace, its bytes unchanged: the text before the
event array, the `count` events on each side of the first event whose text holds `needle`,
the metadata events at the array's end, and the text after the array.

Kineto writes one event per block that opens with a line "  {" and closes with "  }," (the
last with "  }"); the excerpt keeps whole blocks, so what torch wrote inside them, broken or
not, is kept as written.

Usage: excerpt_events.py TRACE.json OUT.json.gz NEEDLE COUNT
"""
import gzip
import sys


def blocks(lines, start):
    """(first, last) line indices of each event block from line `start` to the array's end."""
    i = start
    while i < len(lines) and lines[i] == b"  {\n":
        j = i + 1
        while not lines[j].startswith(b"  }"):
            j += 1
        yield i, j
        i = j + 1


def main(trace, out, needle, count):
    lines = open(trace, "rb").read().splitlines(keepends=True)
    array = next(i for i, line in enumerate(lines) if line.startswith(b'  "traceEvents": ['))
    events = list(blocks(lines, array + 1))
    hit = next(k for k, (a, b) in enumerate(events) if needle in b"".join(lines[a : b + 1]))
    tail = [k for k, (a, b) in enumerate(events) if b'"ph": "M"' in b"".join(lines[a : b + 1])]
    keep = sorted(set(range(max(0, hit - count), min(len(events), hit + count + 1))) | set(tail[-8:]))
    text = b"".join(lines[: array + 1])
    for n, k in enumerate(keep):
        a, b = events[k]
        block = b"".join(lines[a : b + 1]).rstrip(b"\n").rstrip(b",")
        text += block + (b",\n" if n + 1 < len(keep) else b"\n")
    text += b"".join(lines[events[-1][1] + 1 :])
    with gzip.open(out, "wb", compresslevel=9) as f:
        f.write(text)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3].encode(), int(sys.argv[4]))
