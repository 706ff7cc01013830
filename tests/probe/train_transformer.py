"""Trains a small decoder-only transformer (a GPT-style language model) on synthetic token
sequences: a plain training script, as a user writes one. `kinetoscope profile --lab` runs
it on a GPU (scripts/gpu-probe-check.sh), and bench/seed_run_lab.py --script trains the
same model on the same data with the method's own loop; on the CPU it runs too (slowly).

    python train_transformer.py [--device cuda] [--layers 4] [--hidden 512] [--seq-len 256]
        [--batch-size 32] [--workers 2] [--steps-total N] [--compile] [--throughput-after K]

The loop is the seed's: Adam, the gradient norm clipped to 1.0, gradients set to None.
--throughput-after K prints the samples/s of the steps after step K, timed by the script
itself with the device synchronised at both ends (what a user's own log would say).
"""
import argparse

import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, Dataset

import seed_loop


class SyntheticTokens(Dataset):
    """Sequence i: seq_len + 1 tokens drawn from a generator seeded by i, so every epoch
    and every worker sees the same data. Inputs are the first seq_len, targets the last."""

    def __init__(self, count, seq_len, vocab):
        self.count, self.seq_len, self.vocab = count, seq_len, vocab

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        generator = torch.Generator().manual_seed(index)
        tokens = torch.randint(0, self.vocab, (self.seq_len + 1,), generator=generator)
        return tokens[:-1], tokens[1:]


class Block(nn.Module):
    """Pre-norm attention (causal, through scaled_dot_product_attention) and a GELU MLP."""

    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(hidden)
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.proj = nn.Linear(hidden, hidden)
        self.norm2 = nn.LayerNorm(hidden)
        self.mlp = nn.Sequential(nn.Linear(hidden, 4 * hidden), nn.GELU(), nn.Linear(4 * hidden, hidden))

    def forward(self, x):
        batch, length, width = x.shape
        qkv = self.qkv(self.norm1(x)).view(batch, length, 3, self.heads, width // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)
        attended = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(attended.transpose(1, 2).reshape(batch, length, width))
        return x + self.mlp(self.norm2(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab, hidden, layers, heads, seq_len):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.position = nn.Parameter(torch.zeros(1, seq_len, hidden))
        self.blocks = nn.ModuleList(Block(hidden, heads) for _ in range(layers))
        self.norm = nn.LayerNorm(hidden)
        self.head = nn.Linear(hidden, vocab, bias=False)

    def forward(self, tokens):
        x = self.embed(tokens) + self.position[:, :tokens.size(1)]
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


class NextTokenLoss(nn.Module):
    """Cross-entropy of each position's logits against the next token."""

    def forward(self, logits, targets):
        return F.cross_entropy(logits.flatten(0, 1).float(), targets.flatten())


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--vocab", type=int, default=8192)
    parser.add_argument("--hidden", type=int, default=512)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--seq-len", type=int, default=256)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--sequences", type=int, default=8192, help="sequences in the dataset")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=1000)
    parser.add_argument("--steps-total", type=int, default=0, help="stop after N steps (0: the epochs)")
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--compile", action="store_true", help="torch.compile the model (the script's own)")
    parser.add_argument("--log-every", type=int, default=20)
    parser.add_argument("--throughput-after", type=int, default=-1,
                        help="print the samples/s of the steps after this one (device synchronised)")
    return parser.parse_args(argv)


def make_dataset(args):
    return SyntheticTokens(args.sequences, args.seq_len, args.vocab)


def make_loader(dataset, args):
    workers = args.workers
    return DataLoader(dataset, batch_size=args.batch_size, shuffle=True, drop_last=True,
                      num_workers=workers, pin_memory=args.device.startswith("cuda"),
                      persistent_workers=workers > 0, prefetch_factor=4 if workers > 0 else None)


def make_model(args):
    return TinyGPT(args.vocab, args.hidden, args.layers, args.heads, args.seq_len)


def make_criterion(args):
    return NextTokenLoss()


def main(argv=None):
    args = parse_args(argv)
    model = make_model(args).to(torch.device(args.device)).train()
    forward = torch.compile(model) if args.compile else model
    seed_loop.train(model, forward, make_loader(make_dataset(args), args), make_criterion(args), args)


if __name__ == "__main__":
    main()
