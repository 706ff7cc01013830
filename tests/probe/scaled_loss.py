"""Mixed precision's loss scaling: the loss goes to backward multiplied by the scaler's
scale (torch.amp.GradScaler), and the scaler unscales the gradients before the step. Prints
each step's (unscaled) loss.

    python scaled_loss.py --steps 16
"""
import argparse

import torch

from linear_task import LinearTask


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=16)
    args = parser.parse_args()
    task = LinearTask(features=8, batch=32, lr=0.05)
    scaler = torch.amp.GradScaler("cpu")
    for step in range(args.steps):
        task.optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            outputs = task.model(task.inputs)
        loss = torch.nn.functional.mse_loss(outputs.float(), task.targets)
        scaler.scale(loss).backward()
        scaler.step(task.optimizer)
        scaler.update()
        print("step %d loss %.6f" % (step, loss.item()))


if __name__ == "__main__":
    main()
