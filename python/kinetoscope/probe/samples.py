"""Live samples of the CUDA allocator, on a daemon thread, only while CUDA is initialised.

`{"type":"sample","sample":[seconds, -1, -1, -1, allocated, reserved, -1]}`: seconds since
the probe's activation (its hello; time.monotonic, CLOCK_MONOTONIC on Linux), bytes from
the allocator's host counters. CPU %, GPU % and memory used, and resident memory are the
launcher's (-1 here). On the CPU no sample is ever sent.
"""
import threading
import time

from . import faults, threads


class Sampler(object):
    def __init__(self, torch, memory, send, rate_hz, t0, device_index):
        self._torch = torch
        self._memory = memory
        self._send = send
        self._period = 1.0 / rate_hz  # rate already clamped to 10-20 Hz
        self._t0 = t0
        self._device_index = device_index  # callable: the model's CUDA device index, or 0
        self._stop = threading.Event()
        self._started = False

    def start(self):
        """Starts the thread (once); called when CUDA is initialised. Never raises."""
        if self._started:
            return
        try:
            threads.start(self._loop)
            self._started = True
        except Exception as exc:
            faults.part_disabled("samples", exc)

    def stop(self):
        self._stop.set()

    def _loop(self):
        try:
            next_at = time.monotonic()
            while not self._stop.is_set():
                next_at += self._period
                delay = next_at - time.monotonic()
                if delay < 0:  # fell behind (a long GIL hold): skip, never burst
                    next_at = time.monotonic()
                    delay = 0
                if self._stop.wait(delay):
                    return
                if not self._torch.cuda.is_initialized():
                    continue
                allocated, reserved = self._memory.current(self._device_index())
                if allocated < 0:
                    return  # the readings failed (already said)
                seconds = time.monotonic() - self._t0
                self._send('{"type":"sample","sample":[%.3f,-1,-1,-1,%d,%d,-1]}'
                           % (seconds, allocated, reserved))
        except Exception as exc:
            faults.part_disabled("samples", exc)
