"""Trains a small CNN on image files that its Dataset opens, decodes and augments one by
one: a plain training script, as a user writes one, whose batches cost real host work.
Without --data it first writes a few hundred synthetic images (binary PPM) to a temporary
folder, removed at the end. Each item is read, decoded, cropped, converted to linear light
and shrunk in the main process with --workers 0: on a 2-core CPU a step takes about 20 ms,
most of it waiting for the batch (data-bound); --workers hides it. On a GPU (--device,
cuda when there is one) the batches are pinned and copied without blocking, and the wait
for them is the whole story. The loop is the seed's: Adam, the gradient norm clipped to
1.0, gradients set to None; bench/seed_run_lab.py --script trains the same model on the
same images with the method's own loop.

    python train_images.py [--data DIR] [--workers N] [--epochs 2] [--steps-total N]
        [--device cuda] [--throughput-after K]
"""
import argparse
import os
import shutil
import tempfile

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

import seed_loop

CLASSES = 10


def write_images(folder, count, size):
    """Synthetic PPM images: a colour and a stripe pattern per class, plus noise."""
    generator = torch.Generator().manual_seed(1234)
    rows = torch.arange(size).view(size, 1, 1).float()
    bases = []  # per class: a colour and horizontal stripes, as bytes 0-191
    for label in range(CLASSES):
        stripes = 0.5 + 0.5 * torch.sin(rows * (label + 1) * 0.2)
        base = 0.5 * torch.rand(1, 1, 3, generator=generator) + 0.25 * stripes
        bases.append((base.expand(size, size, 3) * 255).to(torch.uint8))
    for index in range(count):
        label = index % CLASSES
        noise = torch.randint(0, 64, (size, size, 3), dtype=torch.uint8, generator=generator)
        pixels = bases[label] + noise
        with open(os.path.join(folder, "%d_%05d.ppm" % (label, index)), "wb") as f:
            f.write(b"P6\n%d %d\n255\n" % (size, size))
            f.write(bytes(pixels.flatten().tolist()))


def read_ppm(path):
    """A binary PPM (P6, 8 bits) as a 3 x H x W uint8 tensor."""
    with open(path, "rb") as f:
        data = f.read()
    fields = []
    offset = 0
    while len(fields) < 4:  # magic, width, height, maxval
        while data[offset:offset + 1].isspace():
            offset += 1
        end = offset
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[offset:end])
        offset = end
    if fields[0] != b"P6" or fields[3] != b"255":
        raise ValueError("%s: not an 8-bit binary PPM" % path)
    width, height = int(fields[1]), int(fields[2])
    pixels = torch.frombuffer(bytearray(data[offset + 1:]), dtype=torch.uint8)
    return pixels.view(height, width, 3).permute(2, 0, 1)


class ImageFolder(Dataset):
    """Every .ppm in a folder, its label the number before '_' in its name."""

    def __init__(self, folder, crop):
        self.paths = sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".ppm"))
        self.labels = [int(os.path.basename(p).split("_")[0]) for p in self.paths]
        self.crop = crop

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, index):
        pixels = read_ppm(self.paths[index])
        _, height, width = pixels.shape
        top = int(torch.randint(0, height - self.crop + 1, ()))
        left = int(torch.randint(0, width - self.crop + 1, ()))
        image = pixels[:, top:top + self.crop, left:left + self.crop].float()
        image = image.div_(255).pow_(2.2)  # sRGB to linear light
        image = nn.functional.avg_pool2d(image, 3)  # a third of the size
        if torch.rand(()) < 0.5:
            image = image.flip(2)
        image = image * (0.8 + 0.4 * torch.rand(3, 1, 1))  # colour jitter
        image = (image - 0.5) / 0.25
        return image.contiguous(), self.labels[index]


class SmallCNN(nn.Module):
    def __init__(self, crop):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Linear(16 * (crop // 12) ** 2, CLASSES)

    def forward(self, images):
        return self.classifier(torch.flatten(self.features(images), 1))


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=None, help="a folder of .ppm images (default: generated)")
    parser.add_argument("--images", type=int, default=512, help="images to generate")
    parser.add_argument("--image-size", type=int, default=128)
    parser.add_argument("--crop", type=int, default=96)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--steps-total", type=int, default=0, help="stop after N steps (0: the epochs)")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--log-every", type=int, default=10)
    parser.add_argument("--throughput-after", type=int, default=-1,
                        help="print the samples/s of the steps after this one (device synchronised)")
    return parser.parse_args(argv)


def make_dataset(args):
    """The images in --data (bench/seed_run_lab.py --script needs the folder named)."""
    return ImageFolder(args.data, args.crop)


def make_loader(dataset, args):
    return DataLoader(dataset, batch_size=args.batch_size, shuffle=True, drop_last=True,
                      num_workers=args.workers, pin_memory=args.device.startswith("cuda"))


def make_model(args):
    return SmallCNN(args.crop)


def make_criterion(args):
    return nn.CrossEntropyLoss()


def train(args):
    model = make_model(args).to(torch.device(args.device))
    seed_loop.train(model, model, make_loader(make_dataset(args), args), make_criterion(args), args)


def main(argv=None):
    args = parse_args(argv)
    generated = args.data is None
    if generated:
        args.data = tempfile.mkdtemp(prefix="train-images-")
        write_images(args.data, args.images, args.image_size)
    try:
        train(args)
    finally:
        if generated:
            shutil.rmtree(args.data, ignore_errors=True)


if __name__ == "__main__":
    main()
