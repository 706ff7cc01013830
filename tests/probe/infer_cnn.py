"""Runs a small CNN in eval mode over a DataLoader of synthetic images, under
torch.inference_mode(): an inference script (no optimizer) for the probe's tests.

    python infer_cnn.py --batches 30 --batch-size 16
"""
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class RandomImages(Dataset):
    def __init__(self, count, size, seed=0):
        generator = torch.Generator().manual_seed(seed)
        self.images = torch.randn(count, 3, size, size, generator=generator)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        return self.images[index]


class SmallCNN(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.head = nn.Linear(32, classes)

    def forward(self, images):
        x = self.features(images)
        x = torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1)
        return self.head(x)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--image-size", type=int, default=32)
    parser.add_argument("--workers", type=int, default=0)
    args = parser.parse_args()

    torch.manual_seed(0)
    loader = DataLoader(RandomImages(args.batches * args.batch_size, args.image_size),
                        batch_size=args.batch_size, num_workers=args.workers)
    model = SmallCNN()
    model.eval()
    counts = torch.zeros(10, dtype=torch.long)
    with torch.inference_mode():
        for images in loader:
            predictions = model(images).argmax(dim=1)
            counts += torch.bincount(predictions, minlength=10)
    print("predicted classes:", counts.tolist())


if __name__ == "__main__":
    main()
