"""Trains a small compiled classifier whose forward breaks torch.compile's graph: it reads
a tensor's value with `.item()` to decide whether to rescale, as code that logs or clips
on a data-dependent condition does. Its DataLoader keeps the epoch's last, smaller batch
(drop_last=False), so the step that meets it recompiles the model for the new shape.

A real script for issue 55's tests: `make_trace.sh` runs it under `kinetoscope profile`
(the window over the short batch, with stacks) and keeps the trace as this folder's
fixture. Runs on the CPU (Inductor's C++ kernels) or a GPU (Triton).

    python train_graph_break.py --epochs 2
"""
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Classifier(nn.Module):
    def __init__(self, features, hidden, classes):
        super().__init__()
        self.embed = nn.Linear(features, hidden)
        self.norm = nn.LayerNorm(hidden)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        h = torch.relu(self.embed(x)) * 1.5 + 0.1
        if h.abs().max().item() > 50.0:  # a data-dependent branch: the graph breaks here
            h = h / 50.0
        return self.head(self.norm(h).tanh())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--samples", type=int, default=64 * 12 + 16)
    args = parser.parse_args()

    torch.manual_seed(0)
    data = TensorDataset(torch.randn(args.samples, 128), torch.randint(0, 10, (args.samples,)))
    loader = DataLoader(data, batch_size=args.batch, shuffle=True)  # the last batch is short
    model = torch.compile(Classifier(128, 256, 10))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        total = 0.0
        for inputs, targets in loader:
            loss = loss_fn(model(inputs), targets)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(f"epoch {epoch}: mean loss {total / len(loader):.4f}", flush=True)


if __name__ == "__main__":
    main()
