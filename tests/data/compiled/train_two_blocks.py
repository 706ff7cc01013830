"""A small transformer LM (two blocks) trained on random tokens, eager or compiled, recorded
by torch.profiler (CPU, with stacks; wait 1, warm-up 1, active 3).

two_blocks_graph_break.json.gz is `--mode break`: torch.compile(model), the first block's
forward reads .item() (a graph break). Dynamo keeps one graph of Block.forward per block
instance (compile ids 1/0 and 1/1), both compiled before the window: a step runs both,
which is its cache, not a recompilation.

python train_two_blocks.py --mode eager|compile|break|dynamic|recompile|reduce --out TRACE.json
"""
import argparse
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Tokens(Dataset):
    def __init__(self, n, seq, vocab):
        g = torch.Generator().manual_seed(0)
        self.x = torch.randint(0, vocab, (n, seq), generator=g)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i]


class Block(nn.Module):
    def __init__(self, d, heads, break_graph=False):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)
        self.heads = heads
        self.break_graph = break_graph

    def forward(self, x):
        b, t, d = x.shape
        h = self.ln1(x)
        q, k, v = self.qkv(h).split(d, dim=-1)
        q = q.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (d // self.heads) ** 0.5)
        mask = torch.ones(t, t, dtype=torch.bool).tril()
        att = att.masked_fill(~mask, float("-inf")).softmax(-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        if self.break_graph:
            m = x.abs().mean().item()  # graph break
            if m > 100.0:
                print("large activations", m)
                x = x / m
        x = x + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln2(x))))
        return x


class LM(nn.Module):
    def __init__(self, vocab=512, d=128, heads=4, layers=2, break_graph=False):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList([Block(d, heads, break_graph and i == 0) for i in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, idx):
        x = self.emb(idx)
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", default="eager")
    p.add_argument("--out", default=None)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--seq", type=int, default=64)
    p.add_argument("--no-profiler", action="store_true")
    p.add_argument("--nostack", action="store_true")
    p.add_argument("--cold", action="store_true", help="window starts at step 0 (compile inside)")
    a = p.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    import os
    if os.environ.get("KPROF"):
        import torch._inductor.config as ic
        ic.cpp.enable_kernel_profile = True
    vocab = 512
    model = LM(vocab=vocab, break_graph=(a.mode == "break"))
    if a.mode in ("compile", "break"):
        model = torch.compile(model)
    elif a.mode == "dynamic":
        model = torch.compile(model, dynamic=True)
    elif a.mode == "recompile":
        model = torch.compile(model)
    elif a.mode == "reduce":
        model = torch.compile(model, mode="reduce-overhead")
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    loss_fn = nn.CrossEntropyLoss()
    seq = a.seq + 1
    loader = DataLoader(Tokens(a.batch * 40, seq, vocab), batch_size=a.batch, shuffle=True)
    it = iter(loader)

    def step(i):
        batch = next(it)
        if a.mode == "dynamic":
            t = [32, 48, 64, 40][i % 4]
            batch = batch[:, : t + 1]
        if a.mode == "recompile" and i == 3:
            batch = batch[:, : 49]
        x, y = batch[:, :-1], batch[:, 1:]
        logits = model(x)
        loss = loss_fn(logits.reshape(-1, vocab), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss

    if a.no_profiler:
        for i in range(a.steps):
            t0 = time.perf_counter()
            l = step(i)
            print(f"step {i} loss {l.item():.4f} {1e3*(time.perf_counter()-t0):.1f} ms", flush=True)
        return

    from torch.profiler import ProfilerActivity, profile, schedule

    sched = schedule(wait=0, warmup=0, active=4, repeat=1) if a.cold else schedule(wait=1, warmup=1, active=3, repeat=1)
    with profile(activities=[ProfilerActivity.CPU], schedule=sched, record_shapes=True,
                 with_stack=not a.nostack, profile_memory=not a.nostack) as prof:
        for i in range(4 if a.cold else 7):
            t0 = time.perf_counter()
            l = step(i)
            prof.step()
            print(f"step {i} loss {l.item():.4f} {1e3*(time.perf_counter()-t0):.1f} ms", flush=True)
    prof.export_chrome_trace(a.out)


if __name__ == "__main__":
    main()
