"""A GAN's loop: a discriminator and a generator, each with an optimizer of its own, two
backward calls an iteration (the discriminator's step first), batches from two DataLoaders
zipped. The probe's steps end at the first optimizer's step; the second trains a model the
lab's arms do not change, said in the config (other_optimizers). With --one-model, the
generator is trained through the discriminator's optimizers instead: two optimizers over one
model's parameters (Muon beside AdamW), which is no other model. --timing-out writes the
seconds of each iteration's forwards (both models', as the script times them) and of its
fetch of the two batches, each whole iteration's (step_s), and the forward hooks each model
holds at the end.
--real-delay-ms makes each batch of real samples that much slower to assemble.

    python train_gan.py [--steps 40] [--one-model] [--timing-out forward.json]
                        [--real-delay-ms 0]
"""
import argparse
import json
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset, default_collate


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--one-model", action="store_true")
    parser.add_argument("--timing-out", default=None)
    parser.add_argument("--real-delay-ms", type=float, default=0.0)
    args = parser.parse_args()
    torch.manual_seed(0)

    def slow_collate(samples):
        time.sleep(args.real_delay_ms / 1e3)
        return default_collate(samples)

    real = DataLoader(TensorDataset(torch.randn(4096, 16)), batch_size=32, shuffle=True,
                      collate_fn=slow_collate if args.real_delay_ms > 0 else None)
    noise = DataLoader(TensorDataset(torch.randn(4096, 8)), batch_size=32)
    discriminator = nn.Sequential(nn.Linear(16, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
    generator = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 16))
    if args.one_model:  # the discriminator's layers split between two optimizers
        d_opt = torch.optim.Adam(discriminator[0].parameters(), lr=2e-4)
        g_opt = torch.optim.SGD(discriminator[2].parameters(), lr=1e-2)
    else:
        d_opt = torch.optim.Adam(discriminator.parameters(), lr=2e-4)
        g_opt = torch.optim.Adam(generator.parameters(), lr=2e-4)
    bce = nn.BCEWithLogitsLoss()
    ones, zeros = torch.ones(32, 1), torch.zeros(32, 1)
    step = 0
    forwards, fetches, steps = [], [], []  # seconds per iteration
    last = time.perf_counter()
    while step < args.steps:
        batches = zip(real, noise)
        while True:
            started = time.perf_counter()
            try:
                (x,), (z,) = next(batches)
            except StopIteration:
                break
            fetches.append(time.perf_counter() - started)
            started = time.perf_counter()
            fake = generator(z)
            d_loss = bce(discriminator(x), ones) + bce(discriminator(fake.detach()), zeros)
            forward_s = time.perf_counter() - started
            d_opt.zero_grad(set_to_none=True)
            d_loss.backward()
            d_opt.step()
            started = time.perf_counter()
            g_loss = bce(discriminator(fake), ones)
            forwards.append(forward_s + time.perf_counter() - started)
            g_opt.zero_grad(set_to_none=True)
            g_loss.backward()
            g_opt.step()
            step += 1
            now = time.perf_counter()
            steps.append(now - last)  # the whole iteration: fetch to optimizer step
            last = now
            if step == args.steps:
                break
    print("trained %d steps" % step)
    if args.timing_out:
        hooks = {name: len(model._forward_pre_hooks) + len(model._forward_hooks)
                 for name, model in (("discriminator", discriminator), ("generator", generator))}
        with open(args.timing_out, "w") as f:
            json.dump({"forward_s": forwards, "fetch_s": fetches, "step_s": steps, "hooks": hooks}, f)


if __name__ == "__main__":
    main()
