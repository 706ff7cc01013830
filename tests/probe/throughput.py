"""A training script's own throughput log, shared by the probe's example scripts: the
samples/s of the steps after step K, timed on the host with the device synchronised at
both ends (what a user's own log would print)."""
import time

import torch


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
