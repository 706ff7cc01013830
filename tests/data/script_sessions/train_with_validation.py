"""A classifier trained with a validation pass every --val-every steps (model.eval() and
torch.no_grad() over a validation DataLoader), as most training scripts do. The session
beside it is this script under `kinetoscope profile --no-trace` on the CPU machine that
records the corpus: its measured steps hold the validation outside their five phases.

    kinetoscope profile --no-trace --out validation -- python train_with_validation.py
"""
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--val-every", type=int, default=10)
    args = parser.parse_args()
    torch.manual_seed(0)
    x = torch.randn(4096, 256)
    y = (x[:, :8].sum(1) > 0).long()
    train = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True, drop_last=True)
    val = DataLoader(TensorDataset(torch.randn(8192, 256), torch.randint(0, 2, (8192,))),
                     batch_size=256)
    model = nn.Sequential(nn.Linear(256, 512), nn.GELU(), nn.Linear(512, 2))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    step = 0
    while step < args.steps:
        for inputs, labels in train:
            loss = nn.functional.cross_entropy(model(inputs), labels)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            step += 1
            if step % args.val_every == 0:
                model.eval()
                with torch.no_grad():
                    correct = sum((model(v).argmax(1) == t).sum().item() for v, t in val)
                model.train()
                print("step %d loss %.4f val %.3f" % (step, loss.item(), correct / 8192))
            if step == args.steps:
                break


if __name__ == "__main__":
    main()
