"""A script that trains on a thread of its own while the main thread waits for it (a
worker thread that owns the model, as some services and notebooks do).

    python train_in_thread.py [--steps 30]

Prints the last loss once the thread has ended.
"""
import argparse
import threading

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def train(steps, result):
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(256, 8), torch.randn(256, 1))
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    done = 0
    while done < steps:
        for inputs, targets in DataLoader(data, batch_size=16):
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(inputs), targets)
            loss.backward()
            optimizer.step()
            done += 1
            if done == steps:
                break
    result.append(loss.item())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args()
    result = []
    trainer = threading.Thread(target=train, args=(args.steps, result), name="trainer")
    trainer.start()
    trainer.join()
    print("trained on a thread of its own: loss %.4f" % result[0])


if __name__ == "__main__":
    main()
