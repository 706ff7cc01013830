"""A recursive tree network (Tree-RNN): its module calls itself once per child, so a tree
N deep is N nested module calls, and deep trees come near Python's recursion limit.

    python tree_network.py --depth 200 --steps 8     (trains; prints the final loss)
    python tree_network.py ... --eval-depth 200      (then evaluates under no_grad)
    python tree_network.py --deepest                 (the deepest tree a forward and
                                                      backward take here, found by bisection)
"""
import argparse

import torch
from torch import nn


class Tree(object):
    def __init__(self, depth):
        self.x = torch.randn(1, 16)
        self.children = [Tree(depth - 1)] if depth > 0 else []


class TreeCell(nn.Module):
    def __init__(self):
        super().__init__()
        self.combine = nn.Linear(32, 16)

    def forward(self, tree):
        state = torch.zeros(1, 16)
        for child in tree.children:
            state = state + self(child)
        return torch.tanh(self.combine(torch.cat([tree.x, state], 1)))


def trains(depth):
    model = TreeCell()
    try:
        model(Tree(depth)).sum().backward()
        return True
    except RecursionError:
        return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--deepest", action="store_true")
    parser.add_argument("--eval-depth", type=int, default=0,
                        help="then a forward under no_grad on a tree this deep")
    args = parser.parse_args()
    torch.manual_seed(0)
    if args.deepest:
        low, high = 1, 4096  # trains(low), not trains(high)
        while high - low > 1:
            middle = (low + high) // 2
            low, high = (middle, high) if trains(middle) else (low, middle)
        print(low)
        return
    model = TreeCell()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(args.steps):
        loss = (model(Tree(args.depth)) - 1).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print("final loss %.6f" % loss.item())
    if args.eval_depth:
        with torch.no_grad():
            print("evaluated: %.6f" % model(Tree(args.eval_depth)).sum().item())


if __name__ == "__main__":
    main()
