#!/usr/bin/env python3
"""Record the real GPU traces and the memory snapshot that issue 54's classes 2, 4 and 6
need, on a CUDA GPU (scripts/gpu-probe-check.sh runs it on the lent machine). Each is a
run of that machine's torch, recorded by the profiler or the allocator torch ships;
nothing is edited afterwards.

What it makes (in --out)
    marked_steps_numpy_copy_kernel.json.gz
        (class 2) Five steps under a profiler schedule (wait=1, warmup=1, active=3):
        each draws a batch with NumPy on the CPU (host code the profiler records as no op;
        its rows chosen so that the draw takes ~10 ms on this host), copies it to the GPU
        from pageable memory and runs one matmul. Few device activities (a copy and a
        kernel a step); the unrecorded host time holds each step.
    llm_forward_casts.json.gz
        (class 4) The forward of a Llama-style decoder in bf16 (width 1024, 8 layers,
        4 x 1024 tokens: ~400 kernels of ~14 us, the GPU kept busy), written as such models'
        eager code is: RMSNorm computed in fp32 and cast back, rotary embeddings by
        concatenating rotated halves, keys and values repeated for grouped-query
        attention, attention as two matmuls around a softmax taken in fp32, transposes
        made contiguous. Three steps (wait=1, warmup=1, active=3) under inference_mode.
        Between the GEMMs, the elementwise, cast, copy and concatenation kernels hold
        about 60 % of the GPU's time (counted from the ops' bytes and FLOPs at 4 TB/s and
        700 TFLOP/s): what a compiler fuses, not data movement.
    oom_after_free.pickle.gz
        (class 6) A memory snapshot dumped after an out-of-memory error, once the failed
        step's tensors were freed: the allocator's history recorded from the start, the
        process capped at --memory-gib by torch.cuda.set_per_process_memory_fraction, a
        training step of a wide MLP at growing batch sizes until one fails; the script
        catches the error, lets the step's tensors and gradients go, and dumps. The
        allocator keeps its segments (no empty_cache after the error): at the dump they
        hold the parameters and Adam's state, at the failure they were full.

    python tests/data/make_gpu_traces.py --out DIR [--only NAME] [--memory-gib 4]

--device cpu runs the first two on the CPU (their traces then hold no kernels: a check of
this script, not a trace for the corpus); the snapshot needs CUDA and is skipped there.
"""
import argparse
import gc
import gzip
import os
import pickle
import shutil
import tempfile
import time

import torch
from torch import nn
from torch.nn import functional as F


def save_gzip(src, dst):
    with open(src, "rb") as fin, gzip.open(dst, "wb", compresslevel=9) as fout:
        shutil.copyfileobj(fin, fout)


def activities(device):
    kinds = [torch.profiler.ProfilerActivity.CPU]
    if device.type == "cuda":
        kinds.append(torch.profiler.ProfilerActivity.CUDA)
    return kinds


def profile_steps(device, step, out, name, **options):
    """Five calls of `step` under schedule(wait=1, warmup=1, active=3), the trace gzipped
    to out/name."""
    schedule = torch.profiler.schedule(wait=1, warmup=1, active=3, repeat=1)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.json")
        with torch.profiler.profile(activities=activities(device), schedule=schedule,
                                    on_trace_ready=lambda p: p.export_chrome_trace(path),
                                    **options) as prof:
            for _ in range(5):
                step()
                prof.step()
        save_gzip(path, os.path.join(out, name))


def marked_steps_numpy_copy_kernel(device, out, args):
    try:
        import numpy
    except ImportError:
        print("marked_steps_numpy_copy_kernel: skipped (needs NumPy)")
        return

    generator = numpy.random.default_rng(54)
    weight = torch.randn(1024, 64, device=device)
    started = time.perf_counter()
    generator.standard_normal((1024, 1024), dtype=numpy.float32)
    rows = max(64, int(1024 * 0.010 / (time.perf_counter() - started)))  # ~10 ms a draw

    def step():
        batch = generator.standard_normal((rows, 1024), dtype=numpy.float32)  # no op recorded
        on_device = torch.from_numpy(batch).to(device)  # pageable: a synchronous copy
        torch.mm(on_device, weight)  # one kernel

    step()  # one unprofiled step (the CUDA context, cuBLAS)
    print("marked_steps_numpy_copy_kernel: %d x 1024 drawn a step" % rows)
    profile_steps(device, step, out, "marked_steps_numpy_copy_kernel.json.gz")


class RMSNorm(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))

    def forward(self, x):
        dtype = x.dtype
        x = x.float()
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
        return self.weight * x.to(dtype)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class DecoderLayer(nn.Module):
    """A Llama-style layer as eager code writes it (no fused kernels, no SDPA)."""

    def __init__(self, width, heads, kv_heads, ffn):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, width // heads
        self.input_norm = RMSNorm(width)
        self.q = nn.Linear(width, width, bias=False)
        self.k = nn.Linear(width, kv_heads * self.head_dim, bias=False)
        self.v = nn.Linear(width, kv_heads * self.head_dim, bias=False)
        self.o = nn.Linear(width, width, bias=False)
        self.post_norm = RMSNorm(width)
        self.gate = nn.Linear(width, ffn, bias=False)
        self.up = nn.Linear(width, ffn, bias=False)
        self.down = nn.Linear(ffn, width, bias=False)

    def forward(self, x, cos, sin, mask):
        batch, length, width = x.shape
        h = self.input_norm(x)
        q = self.q(h).view(batch, length, self.heads, self.head_dim).transpose(1, 2)
        k = self.k(h).view(batch, length, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v(h).view(batch, length, self.kv_heads, self.head_dim).transpose(1, 2)
        q = (q * cos) + (rotate_half(q) * sin)
        k = (k * cos) + (rotate_half(k) * sin)
        repeat = self.heads // self.kv_heads
        k = k[:, :, None].expand(batch, self.kv_heads, repeat, length, self.head_dim).reshape(
            batch, self.heads, length, self.head_dim)
        v = v[:, :, None].expand(batch, self.kv_heads, repeat, length, self.head_dim).reshape(
            batch, self.heads, length, self.head_dim)
        scores = torch.matmul(q, k.transpose(2, 3)) / self.head_dim ** 0.5 + mask
        weights = F.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
        attended = torch.matmul(weights, v).transpose(1, 2).contiguous().reshape(batch, length, width)
        x = x + self.o(attended)
        h = self.post_norm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class Decoder(nn.Module):
    def __init__(self, vocab, width, layers, heads, kv_heads, ffn):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.layers = nn.ModuleList(DecoderLayer(width, heads, kv_heads, ffn) for _ in range(layers))
        self.norm = RMSNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)
        self.head_dim = width // heads

    def forward(self, tokens):
        length = tokens.shape[1]
        positions = torch.arange(length, device=tokens.device, dtype=torch.float32)
        even = torch.arange(0, self.head_dim, 2, device=tokens.device).float()
        inverse = 1.0 / (10000 ** (even / self.head_dim))
        angles = torch.outer(positions, inverse)
        angles = torch.cat((angles, angles), dim=-1)
        x = self.embed(tokens)
        cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
        mask = torch.full((length, length), float("-inf"), device=tokens.device).triu(1).to(x.dtype)
        for layer in self.layers:
            x = layer(x, cos, sin, mask)
        return self.head(self.norm(x)).float()


def llm_forward_casts(device, out, args):
    torch.manual_seed(54)
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    model = Decoder(vocab=32000, width=1024, layers=8, heads=8, kv_heads=2, ffn=2816)
    if device.type == "cpu":  # a check of the script only: a small model
        model = Decoder(vocab=512, width=64, layers=2, heads=4, kv_heads=2, ffn=128)
    model = model.to(device=device, dtype=dtype).eval()
    shape = (4, 1024) if device.type == "cuda" else (2, 64)
    tokens = torch.randint(0, model.head.out_features, shape, device=device)

    def step():
        with torch.inference_mode():
            model(tokens)

    step()
    profile_steps(device, step, out, "llm_forward_casts.json.gz", record_shapes=True)


def oom_after_free(device, out, args):
    if device.type != "cuda":
        print("oom_after_free: skipped (a memory snapshot needs the CUDA caching allocator)")
        return
    gc.collect()
    torch.cuda.empty_cache()  # the history starts from no segment: the other makers' gone
    total = torch.cuda.get_device_properties(device).total_memory
    torch.cuda.set_per_process_memory_fraction(min(1.0, args.memory_gib * 2**30 / total), device)
    torch.cuda.memory._record_memory_history(max_entries=200000)
    torch.manual_seed(54)
    model = nn.Sequential(nn.Linear(4096, 8192), nn.GELU(), nn.Linear(8192, 8192), nn.GELU(),
                          nn.Linear(8192, 4096)).to(device)  # 134 M parameters: 2.1 GB with Adam
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)

    def train_step(batch):
        inputs = torch.randn(batch, 4096, device=device)
        loss = model(inputs).square().mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    failed_at = None
    for batch in (256, 512, 1024, 2048, 4096, 8192, 16384, 32768):
        try:
            train_step(batch)
        except torch.cuda.OutOfMemoryError as error:
            failed_at = (batch, str(error).splitlines()[0])
            optimizer.zero_grad(set_to_none=True)  # a failure in backward left some
            break
    gc.collect()  # the error is gone with its except block, and the step's tensors with it
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "snapshot.pickle")
        torch.cuda.memory._dump_snapshot(path)
        with open(path, "rb") as f:
            snapshot = pickle.load(f)
        save_gzip(path, os.path.join(out, "oom_after_free.pickle.gz"))
    torch.cuda.memory._record_memory_history(enabled=None)
    entries = [e for trace in snapshot["device_traces"] for e in trace]
    ooms = [e for e in entries if e["action"] == "oom"]
    segments = snapshot["segments"]
    print("oom_after_free: failed at batch %s (%s); %d history entries, %d oom; at the dump "
          "%d segments reserving %.2f GiB, %.2f GiB of it allocated" % (
              failed_at and failed_at[0], failed_at and failed_at[1], len(entries), len(ooms),
              len(segments), sum(s["total_size"] for s in segments) / 2**30,
              sum(s["allocated_size"] for s in segments) / 2**30))


MAKERS = {
    "marked_steps_numpy_copy_kernel": marked_steps_numpy_copy_kernel,
    "llm_forward_casts": llm_forward_casts,
    "oom_after_free": oom_after_free,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--only", action="append", choices=sorted(MAKERS),
                        help="make only this one (repeatable); default: all of them")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--memory-gib", type=float, default=4.0,
                        help="the cap under which the snapshot's training step runs out of memory")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    device = torch.device(args.device)
    for name in args.only or MAKERS:
        MAKERS[name](device, args.out, args)
    for name in sorted(os.listdir(args.out)):
        print(name, os.path.getsize(os.path.join(args.out, name)), "bytes")


if __name__ == "__main__":
    main()
