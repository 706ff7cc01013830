#!/usr/bin/env python3
"""Writes a synthetic CUDA memory snapshot of about SIZE bytes, laid out as
torch.cuda.memory._dump_snapshot writes one (pickle protocol 4, every container and
string memoised, keys and frame dicts shared through the memo, a fresh frames list per
trace entry that its free_completed shares with its free_requested), streamed opcode by
opcode so that gigabytes are written without holding them.

The history is a training loop: segments reserved at the start, weights allocated once,
then per iteration activations and gradients allocated and freed in reverse (same
addresses each iteration, as the caching allocator reuses its blocks), one small tensor
kept alive per iteration (a leak), and an annotation per iteration. The dump's segments
hold the weights and the leaked tensors.

With `oom` after OUT, the middle iteration ends in an `oom` entry at its peak (a request of
4 GiB, 1 GiB free on the device), its activations freed after it as a failed step's are: the
out-of-memory reading replays the whole history after it back from the dump.

Usage: bench/make_snapshot.py SIZE OUT [oom]   (SIZE like 1G, 200M, 5000000)
"""

import random
import struct
import sys

MiB = 1 << 20


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(text[:-1]) * units[text[-1].upper()]) if text[-1].upper() in units else int(text)


class Pickler:
    """Python's protocol-4 pickler, by hand, for the shapes a snapshot holds."""

    def __init__(self, out):
        self.out = out
        self.buf = bytearray()
        self.next_memo = 0
        self.strings = {}
        self.written = 0

    def flush(self, force=False):
        if force or len(self.buf) >= 1 << 22:
            self.out.write(self.buf)
            self.written += len(self.buf)
            self.buf = bytearray()

    def memoize(self):
        self.buf += b"\x94"
        self.next_memo += 1
        return self.next_memo - 1

    def get(self, memo):
        self.buf += b"h" + bytes([memo]) if memo < 256 else b"j" + struct.pack("<I", memo)

    def string(self, s):
        if s in self.strings:
            self.get(self.strings[s])
            return
        raw = s.encode()
        self.buf += (b"\x8c" + bytes([len(raw)]) if len(raw) < 256 else b"X" + struct.pack("<I", len(raw))) + raw
        self.strings[s] = self.memoize()

    def integer(self, v):
        if 0 <= v < 256:
            self.buf += b"K" + bytes([v])
        elif 0 <= v < 65536:
            self.buf += b"M" + struct.pack("<H", v)
        elif -(1 << 31) <= v < (1 << 31):
            self.buf += b"J" + struct.pack("<i", v)
        else:
            raw = v.to_bytes((v.bit_length() + 8) // 8, "little", signed=True)
            self.buf += b"\x8a" + bytes([len(raw)]) + raw

    def begin_dict(self):
        self.buf += b"}"
        self.memoize()
        self.buf += b"("

    def end_dict(self):
        self.buf += b"u"

    def begin_list(self):
        self.buf += b"]"
        return self.memoize()

    def items(self, write_each, count):
        """Appends `count` items written by write_each(i), in batches as the pickler does."""
        for start in range(0, count, 1000):
            n = min(1000, count - start)
            if n > 1:
                self.buf += b"("
            for i in range(start, start + n):
                write_each(i)
            self.buf += b"e" if n > 1 else b"a"
            self.flush()


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[3:] not in ([], ["oom"]):
        sys.exit(__doc__)
    with_oom = sys.argv[3:] == ["oom"]
    target = parse_size(sys.argv[1])
    rng = random.Random(31)
    files = ["/home/user/project/train.py", "/home/user/project/model.py", "/home/user/project/data.py"]
    torch_files = ["/usr/lib/python3/site-packages/torch/nn/modules/module.py",
                   "/usr/lib/python3/site-packages/torch/nn/functional.py",
                   "/usr/lib/python3/site-packages/torch/autograd/graph.py"]
    frames = [(f"fn_{i}", rng.choice(files if i % 3 else torch_files), 10 + i) for i in range(120)]
    frames += [(f"c10::native_{i}", "??", 0) for i in range(60)]
    stacks = [[rng.randrange(len(frames)) for _ in range(12)] for _ in range(300)]
    frame_memo = {}

    weights = [(0x7F0000000000 + i * 64 * MiB, rng.choice([4, 16, 64]) * MiB // 4) for i in range(48)]
    activations = [(0x7F4000000000 + i * 256 * MiB, rng.choice([1, 8, 32, 96]) * MiB) for i in range(64)]
    leak_base = 0x7F8000000000
    time_us = 1_700_000_000_000_000

    with open(sys.argv[2], "wb") as out:
        p = Pickler(out)
        p.buf += b"\x80\x04"

        def frame(index):
            if index in frame_memo:
                p.get(frame_memo[index])
                return
            name, filename, line = frames[index]
            p.buf += b"}"
            frame_memo[index] = p.memoize()
            p.buf += b"("
            p.string("name"); p.string(name)
            p.string("filename"); p.string(filename)
            p.string("line"); p.integer(line)
            p.end_dict()

        def frames_list(stack):
            memo = p.begin_list()
            p.items(lambda i: frame(stacks[stack][i]), len(stacks[stack]))
            return memo

        def entry(action, addr, size, stack, shared_frames=None):
            p.begin_dict()
            p.string("action"); p.string(action)
            p.string("addr"); p.integer(addr)
            p.string("size"); p.integer(size)
            p.string("stream"); p.integer(0)
            p.string("time_us"); p.integer(time_us)
            p.string("compile_context"); p.string("N/A")
            p.string("frames")
            if shared_frames is None:
                memo = frames_list(stack)
            else:
                p.get(shared_frames)
                memo = shared_frames
            p.end_dict()
            return memo

        # The root dict: segments first (the dump's state), then the history.
        p.begin_dict()
        p.string("segments")
        p.begin_list()
        # Written after the history is known would need two passes; the dump's blocks are
        # known in advance instead: the weights, and one leaked tensor per iteration.
        entries_per_iteration = 3 * len(activations) + 1
        iterations = max(3, target // (entries_per_iteration * 118))
        leaks = [(leak_base + i * 512, 512) for i in range(iterations)]  # a loss kept per step

        def segment(base, total, blocks):
            p.begin_dict()
            p.string("device"); p.integer(0)
            p.string("address"); p.integer(base)
            p.string("total_size"); p.integer(total)
            p.string("allocated_size"); p.integer(sum(s for _, s, st in blocks if st == "active_allocated"))
            p.string("stream"); p.integer(0)
            p.string("segment_type"); p.string("large")
            p.string("blocks")
            p.begin_list()

            def block(i):
                addr, size, state = blocks[i]
                p.begin_dict()
                p.string("address"); p.integer(addr)
                p.string("size"); p.integer(size)
                p.string("requested_size"); p.integer(size)
                p.string("state"); p.string(state)
                p.end_dict()
            p.items(block, len(blocks))
            p.end_dict()

        regions = [(0x7F0000000000, 48 * 64 * MiB, [(a, s, "active_allocated") for a, s in weights]),
                   (0x7F4000000000, 64 * 256 * MiB, [(0x7F4000000000, 64 * 256 * MiB, "inactive")]),
                   (leak_base, (iterations * 512 + 2 * MiB - 1) // (2 * MiB) * 2 * MiB, [(a, s, "active_allocated") for a, s in leaks])]
        p.items(lambda i: segment(*regions[i]), len(regions))

        p.string("device_traces")
        p.begin_list()
        p.buf += b"]"
        p.memoize()  # device 0's list

        def oom():
            p.begin_dict()
            p.string("action"); p.string("oom")
            p.string("addr"); p.integer(0)
            p.string("size"); p.integer(4096 * MiB)
            p.string("device_free"); p.integer(1024 * MiB)
            p.string("stream"); p.integer(0)
            p.string("time_us"); p.integer(time_us)
            p.end_dict()

        def history():
            nonlocal time_us
            # Entries are appended in batches of up to 1000 under one MARK, as the pickler does.
            batch = 0

            def emit(write):
                nonlocal batch
                if batch == 0:
                    p.buf += b"("
                write()
                batch += 1
                if batch == 1000:
                    p.buf += b"e"
                    batch = 0
                    p.flush()

            for base, total, _ in regions:
                emit(lambda: entry("segment_alloc", base, total, 0))
                time_us += 5
            for i, (addr, size) in enumerate(weights):
                emit(lambda: entry("alloc", addr, size, i % len(stacks)))
                time_us += 3
            for it in range(iterations):
                for i, (addr, size) in enumerate(activations):
                    emit(lambda: entry("alloc", addr, size, (7 * i) % len(stacks)))
                    time_us += 11
                addr, size = leaks[it]
                emit(lambda: entry("alloc", addr, size, 299))
                if with_oom and it == iterations // 2:
                    emit(oom)
                for i, (addr, size) in reversed(list(enumerate(activations))):
                    shared = []
                    emit(lambda: shared.append(entry("free_requested", addr, size, (13 * i) % len(stacks))))
                    emit(lambda: entry("free_completed", addr, size, 0, shared_frames=shared[0]))
                    time_us += 7
            if batch > 0:
                p.buf += b"e"
            return iterations

        done = history()
        p.buf += b"a"  # device 0's list into device_traces
        p.string("allocator_settings")
        p.begin_dict()
        p.string("expandable_segments"); p.buf += b"\x89"
        p.end_dict()
        p.string("external_annotations")
        p.begin_list()
        start = 1_700_000_000_000_000

        def note(i):
            p.begin_dict()
            p.string("device"); p.integer(0)
            p.string("name"); p.string("ProfilerStep")
            p.string("stage"); p.string("START")
            p.string("time_us"); p.integer(start + 200 + i * (len(activations) * 25 + 1))
            p.end_dict()
        p.items(note, done)
        p.end_dict()
        p.buf += b"."
        p.flush(force=True)
    print(f"{sys.argv[2]}: {p.written} bytes, {done} iterations", file=sys.stderr)


if __name__ == "__main__":
    main()
