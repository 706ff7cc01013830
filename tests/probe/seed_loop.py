"""The training loop of the GPU check's scripts (train_images.py, train_transformer.py), as
the seed writes it: Adam, the gradient norm clipped to 1.0, gradients set to None, epoch
after epoch; and the script's own throughput log: the samples/s of the steps after step K,
timed on the host with the device synchronised at both ends (what a user's own log would
print)."""
import time

import torch
from torch import nn


class Throughput:
    def __init__(self, after, device):
        self.after, self.device = after, device
        self.started, self.samples = None, 0

    def _synchronize(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def step_done(self, step, samples):
        """Called after each step (counted from 0) with its batch's sample count."""
        if step == self.after:
            self._synchronize()
            self.started, self.samples = time.perf_counter(), 0
        elif self.started is not None:
            self.samples += samples

    def report(self):
        if self.started is None or not self.samples:
            return
        self._synchronize()
        elapsed = time.perf_counter() - self.started
        print("throughput: %.1f samples/s over %d samples after step %d"
              % (self.samples / elapsed, self.samples, self.after), flush=True)


def train(model, forward, loader, criterion, args):
    """Trains `model` (on args.device; `forward` is the model or its compiled wrapper) over
    args.epochs of `loader`, stopping after args.steps_total steps when not 0; logs the loss
    every args.log_every steps and the throughput after args.throughput_after."""
    device = torch.device(args.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    throughput = Throughput(args.throughput_after, device)
    step = 0
    for epoch in range(args.epochs):
        for inputs, targets in loader:
            inputs = inputs.to(device, non_blocking=True)
            targets = targets.to(device, non_blocking=True)
            loss = criterion(forward(inputs), targets)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            if args.log_every and step % args.log_every == 0:
                print("epoch %d step %d loss %.4f" % (epoch, step, loss.item()), flush=True)
            throughput.step_done(step, inputs.size(0))
            step += 1
            if step == args.steps_total:
                break
        if step == args.steps_total:
            break
    throughput.report()
    print("trained %d steps" % step)
