"""Trains a small transformer-style block (LayerNorm, a GELU MLP, residual adds) on random
data, eagerly or under torch.compile (--compile): the same program twice, for issue 55's
eager-against-compiled comparison. `make_traces.sh` runs it both ways under
`kinetoscope profile` and keeps the traces as this folder's fixtures. Runs on the CPU
(Inductor's C++ kernels) or a GPU (Triton).

    python train_block.py [--compile] [--steps 12]
"""
import argparse
import functools

import torch
from torch import nn
from torch.nn import functional as F


class Block(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)

    def forward(self, x):
        return block_forward(self, x)


def block_forward(b, x):
    # The block's math on its parameters, calling no submodule: see main() for why.
    d = x.shape[-1]
    n1 = F.layer_norm(x, (d,), b.norm1.weight, b.norm1.bias)
    x = x + torch.tanh(F.linear(n1, b.proj.weight, b.proj.bias)) * 0.5
    n2 = F.layer_norm(x, (d,), b.norm2.weight, b.norm2.bias)
    h = F.gelu(F.linear(n2, b.up.weight, b.up.bias))
    return x + F.linear(h, b.down.weight, b.down.bias) * 0.5


class Model(nn.Module):
    def __init__(self, dim=128, hidden=512, depth=2, classes=10):
        super().__init__()
        self.blocks = nn.ModuleList(Block(dim, hidden) for _ in range(depth))
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        return model_forward(self, x)


def model_forward(m, x):
    for block in m.blocks:
        x = block_forward(block, x)
    return F.linear(x.mean(dim=1), m.head.weight, m.head.bias)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--compile", action="store_true")
    parser.add_argument("--steps", type=int, default=14)
    parser.add_argument("--batch", type=int, default=16)
    args = parser.parse_args()

    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = Model()
    if args.compile:
        # The forward's function is compiled, not the module: the model's own call (and
        # any module hooks installed on it, as kinetoscope's probe does to find the
        # forward) stays eager around one compiled graph, which calls no submodule whose
        # hooks would break it.
        model.forward = torch.compile(functools.partial(model_forward, model))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
    loss_fn = nn.CrossEntropyLoss()
    inputs = torch.randn(args.batch, 32, 128)
    targets = torch.randint(0, 10, (args.batch,))
    for step in range(args.steps):
        loss = loss_fn(model(inputs), targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    print(f"final loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
