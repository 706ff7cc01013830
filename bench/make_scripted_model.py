"""Writes a TorchScript model (torch.jit.save of a scripted module) for comparing the
engine's training loop with the seed's Python loop on the same model:

    python bench/make_scripted_model.py cnn model.pt --width 64
    python bench/make_scripted_model.py mlp model.pt --width 1024

cnn: a ResNet-style stack on 3xHxW images (a stem conv, then residual blocks of two
3x3 conv-BN-ReLU that halve the resolution and double the channels, global average
pool, a linear classifier). mlp: flattened input of --features values, three hidden
layers of --width. Both end in 10 logits.
"""
import argparse

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.skip = nn.Conv2d(cin, cout, 1, stride=2, bias=False)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + self.skip(x))


class ResNetish(nn.Module):
    def __init__(self, width: int, blocks: int, classes: int):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(width), nn.ReLU())
        layers = []
        channels = width
        for _ in range(blocks):
            layers.append(Block(channels, channels * 2))
            channels *= 2
        self.blocks = nn.Sequential(*layers)
        self.head = nn.Linear(channels, classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.head(torch.flatten(torch.mean(x, dim=(2, 3), keepdim=True), 1))


def mlp(features: int, width: int, classes: int) -> nn.Module:
    return nn.Sequential(nn.Flatten(), nn.Linear(features, width), nn.ReLU(),
                         nn.Linear(width, width), nn.ReLU(),
                         nn.Linear(width, width), nn.ReLU(), nn.Linear(width, classes))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=["cnn", "mlp"])
    parser.add_argument("out")
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--blocks", type=int, default=3)
    parser.add_argument("--features", type=int, default=3 * 32 * 32)
    parser.add_argument("--classes", type=int, default=10)
    args = parser.parse_args()
    torch.manual_seed(0)
    if args.kind == "cnn":
        model = ResNetish(args.width, args.blocks, args.classes)
    else:
        model = mlp(args.features, args.width, args.classes)
    torch.jit.save(torch.jit.script(model), args.out)
    print(f"wrote {args.out}: {args.kind}, "
          f"{sum(p.numel() for p in model.parameters()) / 1e6:.2f} M parameters")


if __name__ == "__main__":
    main()
