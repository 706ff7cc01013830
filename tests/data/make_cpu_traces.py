#!/usr/bin/env python3
"""Record small, real CPU-only PyTorch traces for the diagnosis's test corpus.

Each is a run of this machine's torch (the pinned wheel, CPU), recorded by the
profiler torch ships; nothing is edited afterwards. They are the shapes of trace
that the diagnosis once read badly (issue 30): a loop without any step marker, a
CPU-only window, a legacy autograd-profiler export, and a tiny marked window.
What an expert reads in each is written in tests/data/cpu_traces/READINGS.md.

What it makes (in --out, default tests/data/cpu_traces next to this script)
    hand_loop_no_markers.json.gz
        A hand-written training loop, 24 iterations, with no ProfilerStep, no
        DataLoader and no optimizer object: each iteration draws a random batch
        on the CPU (torch.randn), copies it into a preallocated buffer, runs a
        two-layer MLP forward and backward and updates the weights by hand under
        no_grad.  torch.profiler.profile(activities=[CPU]) around the whole loop.
    hand_loop_with_stack.json.gz
        The same loop as an nn.Module called from a function, recorded with
        with_stack=True: the top of the main thread is Python frames that span
        the whole window, the iterations repeat below them.
    legacy_autograd_export.json
        torch.autograd.profiler.profile() around 8 iterations of the same loop,
        written by torch's EventList.export_chrome_trace: the legacy format, a
        bare JSON array under pid "CPU functions", no categories, no metadata.
    tiny_marked_window_random_data.json.gz
        Three ProfilerStep#N steps (schedule wait=1, warmup=1, active=3) of a
        small MLP step whose batch is generated each step by torch.randn of a
        large tensor: the random data holds most of each step.
    host_loop_random_copy_no_markers.json.gz
        (issue 54, class 1) A loop of 10 iterations with no marker and nothing
        that trains or calls a model: each draws a random tensor on the CPU
        (torch.randn, ~9 ms), copies it to the device (.to(device, copy=True):
        the CPU here, as in a GPU run profiled without ProfilerActivity.CUDA)
        and runs one small op on it. profile(activities=[CPU]), no schedule.
    marked_steps_random_copy_small_op.json.gz
        (issue 54, class 2) Three ProfilerStep#N steps (wait=1, warmup=1,
        active=3) of ~12-18 ms, each drawing random data on the CPU (~9 ms) before
        a copy to the device and one small matmul: a window of few events that
        one cost dominates.
    evaluation_inside_window.json.gz
        A training loop fed by a DataLoader (an MLP, AdamW, batch 64) that
        evaluates every 5 steps, as Hugging Face's Trainer does with eval_steps:
        model.eval(), 8 batches of a validation DataLoader under no_grad, then
        model.train(). Six ProfilerStep#N steps (wait=1, warmup=1, active=6):
        the evaluation after step 4's optimizer step falls inside ProfilerStep#4.
    fused_adamw_steps.json.gz
        The same MLP and batches with AdamW(fused=True), no evaluation: three
        ProfilerStep#N steps (wait=1, warmup=1, active=3) whose optimizer step is
        one aten::_fused_adamw_ call.

How to run
    ~/.local/share/kinetoscope/venv/bin/python tests/data/make_cpu_traces.py [--out DIR] [--only NAME]

torch.set_num_threads(1) throughout, so the figures do not depend on the cores.
"""

import argparse
import gzip
import os
import shutil
import tempfile

import torch
import torch.nn as nn

SEED = 30
BATCH = 256
IN_FEATURES = 2048
HIDDEN = 512
OUT_FEATURES = 64
LR = 1e-3


def hand_weights():
    g = torch.Generator().manual_seed(SEED)
    w1 = (torch.randn(IN_FEATURES, HIDDEN, generator=g) * 0.02).requires_grad_()
    w2 = (torch.randn(HIDDEN, OUT_FEATURES, generator=g) * 0.02).requires_grad_()
    return w1, w2


def hand_iteration(w1, w2, buffer, target):
    x = torch.randn(BATCH, IN_FEATURES)  # a fresh random batch, on the CPU, every iteration
    buffer.copy_(x)
    h = torch.relu(buffer @ w1)
    loss = ((h @ w2 - target) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        for w in (w1, w2):
            w.sub_(LR * w.grad)
            w.grad = None


def save_gzip(src, dst):
    with open(src, "rb") as fin, gzip.open(dst, "wb", compresslevel=9) as fout:
        shutil.copyfileobj(fin, fout)


def export(prof, out, name):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.json")
        prof.export_chrome_trace(path)
        save_gzip(path, os.path.join(out, name))


def hand_loop_no_markers(out):
    w1, w2 = hand_weights()
    buffer = torch.empty(BATCH, IN_FEATURES)
    target = torch.zeros(BATCH, OUT_FEATURES)
    hand_iteration(w1, w2, buffer, target)  # one unprofiled iteration
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        for _ in range(24):
            hand_iteration(w1, w2, buffer, target)
    export(prof, out, "hand_loop_no_markers.json.gz")


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(IN_FEATURES, HIDDEN)
        self.fc2 = nn.Linear(HIDDEN, OUT_FEATURES)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def module_iteration(model, buffer, target):
    x = torch.randn(BATCH, IN_FEATURES)
    buffer.copy_(x)
    loss = ((model(buffer) - target) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p.sub_(LR * p.grad)
            p.grad = None


def train(model, iterations):
    buffer = torch.empty(BATCH, IN_FEATURES)
    target = torch.zeros(BATCH, OUT_FEATURES)
    for _ in range(iterations):
        module_iteration(model, buffer, target)


def hand_loop_with_stack(out):
    torch.manual_seed(SEED)
    model = MLP()
    train(model, 1)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], with_stack=True) as prof:
        train(model, 16)
    export(prof, out, "hand_loop_with_stack.json.gz")


def legacy_autograd_export(out):
    w1, w2 = hand_weights()
    buffer = torch.empty(BATCH, IN_FEATURES)
    target = torch.zeros(BATCH, OUT_FEATURES)
    hand_iteration(w1, w2, buffer, target)
    with torch.autograd.profiler.profile() as prof:
        for _ in range(8):
            hand_iteration(w1, w2, buffer, target)
    # torch's own writer of the legacy format (the autograd profiler's EventList).
    prof.function_events.export_chrome_trace(os.path.join(out, "legacy_autograd_export.json"))


def tiny_marked_window_random_data(out):
    torch.manual_seed(SEED)
    model = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)

    def step():
        pool = torch.randn(4096, 2048)  # a large random tensor drawn every step
        x = pool[:64, :256]
        loss = model(x).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    schedule = torch.profiler.schedule(wait=1, warmup=1, active=3, repeat=1)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=schedule) as prof:
        for _ in range(5):
            step()
            prof.step()
    export(prof, out, "tiny_marked_window_random_data.json.gz")


def random_copy_small_op(device, weight):
    x = torch.randn(1024, 1024)           # random data drawn on the CPU, every iteration
    y = x.to(device, copy=True)           # the copy to the device (pageable memory on a GPU)
    return (y @ weight).relu_()           # one small op


def host_loop_random_copy_no_markers(out):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    weight = torch.randn(1024, 16, device=device)
    random_copy_small_op(device, weight)  # one unprofiled iteration
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        for _ in range(10):
            random_copy_small_op(device, weight)
    export(prof, out, "host_loop_random_copy_no_markers.json.gz")


def marked_steps_random_copy_small_op(out):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    weight = torch.randn(1024, 64, device=device)
    schedule = torch.profiler.schedule(wait=1, warmup=1, active=3, repeat=1)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=schedule) as prof:
        for _ in range(5):
            random_copy_small_op(device, weight)
            prof.step()
    export(prof, out, "marked_steps_random_copy_small_op.json.gz")


def evaluation_inside_window(out):
    torch.manual_seed(SEED)
    model = MLP()
    optimizer = torch.optim.AdamW(model.parameters(), lr=LR)
    data = torch.utils.data.TensorDataset(torch.randn(64 * 16, IN_FEATURES),
                                          torch.randn(64 * 16, OUT_FEATURES))
    train_loader = torch.utils.data.DataLoader(data, batch_size=64, shuffle=True)
    val_loader = torch.utils.data.DataLoader(data, batch_size=64)

    def evaluate():
        model.eval()
        with torch.no_grad():
            for i, (x, y) in enumerate(val_loader):
                if i == 8:
                    break
                ((model(x) - y) ** 2).mean()
        model.train()

    schedule = torch.profiler.schedule(wait=1, warmup=1, active=6, repeat=1)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=schedule) as prof:
        for step, (x, y) in enumerate(train_loader):
            if step == 8:
                break
            loss = ((model(x) - y) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % 5 == 4:
                evaluate()
            prof.step()
    export(prof, out, "evaluation_inside_window.json.gz")


def fused_adamw_steps(out):
    torch.manual_seed(SEED)
    model = MLP()
    optimizer = torch.optim.AdamW(model.parameters(), lr=LR, fused=True)
    data = torch.utils.data.TensorDataset(torch.randn(64 * 8, IN_FEATURES),
                                          torch.randn(64 * 8, OUT_FEATURES))
    schedule = torch.profiler.schedule(wait=1, warmup=1, active=3, repeat=1)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=schedule) as prof:
        for x, y in torch.utils.data.DataLoader(data, batch_size=64):
            loss = ((model(x) - y) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            prof.step()
    export(prof, out, "fused_adamw_steps.json.gz")


MAKERS = {
    "hand_loop_no_markers": hand_loop_no_markers,
    "hand_loop_with_stack": hand_loop_with_stack,
    "legacy_autograd_export": legacy_autograd_export,
    "tiny_marked_window_random_data": tiny_marked_window_random_data,
    "host_loop_random_copy_no_markers": host_loop_random_copy_no_markers,
    "marked_steps_random_copy_small_op": marked_steps_random_copy_small_op,
    "evaluation_inside_window": evaluation_inside_window,
    "fused_adamw_steps": fused_adamw_steps,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(here, "cpu_traces"))
    parser.add_argument("--only", action="append", choices=sorted(MAKERS),
                        help="make only this trace (repeatable); default: all of them")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    for name in args.only or MAKERS:
        MAKERS[name](args.out)
    for name in sorted(os.listdir(args.out)):
        print(name, os.path.getsize(os.path.join(args.out, name)), "bytes")


if __name__ == "__main__":
    main()
