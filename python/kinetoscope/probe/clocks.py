"""Phase timing on a CUDA device: events recorded on the current stream at the phase
boundaries, read back later with .query() (never a synchronisation in the loop).

A measured step's record waits in `pending` until every event it holds has completed (in
practice a step later), then is emitted in step order. The loss travels the same way: the
step's summed loss (a 0-d float32 CUDA tensor) is copied non-blocking into a pinned CPU
buffer, with an event after the copy; the buffer is read once that event completes.
Events and buffers are reused (pools): no allocation per step once warm.

On the CPU the step loop uses time.perf_counter() directly and never comes here.
"""
import collections
import math


class CudaTiming(object):
    def __init__(self, torch, device):
        self._torch = torch
        self._cuda = torch.cuda
        self.device = device  # torch.device("cuda", index): the model's
        self.index = device.index if device.index is not None else torch.cuda.current_device()
        self._events = []  # free events
        self._buffers = []  # free pinned 0-d float32 buffers
        self._pending = collections.deque()  # (step, host, pairs, host_loss, loss_ref, memory)
        self.capturing = getattr(torch.cuda, "is_current_stream_capturing", lambda: False)

    def mark(self):
        """An event recorded now on the device's current stream; None while the stream is
        being captured into a CUDA graph (a timing event there would break the capture)."""
        if self.capturing():
            return None
        event = self._events.pop() if self._events else self._cuda.Event(enable_timing=True)
        event.record(self._cuda.current_stream(self.device))
        return event

    def release(self, event):
        if event is not None and not isinstance(event, float):
            self._events.append(event)

    def release_pairs(self, pairs):
        seen = set()
        for _, start, end in pairs:
            for event in (start, end):
                if id(event) not in seen:
                    seen.add(id(event))
                    self._events.append(event)

    def loss_copy(self, device_loss):
        """(pinned buffer, event): the loss's value once the event has completed."""
        buffer = self._buffers.pop() if self._buffers else self._torch.empty(
            (), dtype=self._torch.float32, pin_memory=True)
        buffer.copy_(device_loss, non_blocking=True)
        return buffer, self.mark()

    def submit(self, step, host, pairs, host_loss, loss_ref, memory):
        """host: the step's host-clock figures, passed on to emit as they are (the step
        loop's (data ms, wall ms)); host_loss: the part of the loss read on the host
        (float), None or NaN when the step's loss is unknown; loss_ref: loss_copy()'s pair
        or None."""
        self._pending.append((step, host, pairs, host_loss, loss_ref, memory))

    def poll(self, emit, wait=False):
        """Emits every record whose events have completed, in order; with `wait` (at exit
        only) waits for them. emit(step, host, [h2d, fwd, bwd, opt] ms, loss, memory)."""
        while self._pending:
            step, host, pairs, host_loss, loss_ref, memory = self._pending[0]
            # Both ends of every pair: elapsed_time wants both completed (a start recorded
            # on another stream than its end completes on its own).
            events = [event for _, start, end in pairs for event in (start, end)]
            if loss_ref is not None:
                events.append(loss_ref[1])
            if wait:
                for event in events:
                    event.synchronize()
            elif not all(event.query() for event in reversed(events)):  # the latest first
                return
            self._pending.popleft()
            phases = [0.0, 0.0, 0.0, 0.0]
            for phase, start, end in pairs:
                phases[phase] += max(0.0, start.elapsed_time(end))  # ms
            loss = host_loss
            if loss_ref is not None:
                buffer, event = loss_ref
                value = float(buffer.item())  # a CPU tensor whose copy has completed
                loss = None if host_loss is None else host_loss + value
                self._buffers.append(buffer)
                self._events.append(event)
            if loss is not None and not math.isfinite(loss):
                loss = None
            self.release_pairs(pairs)
            emit(step, host, phases, loss, memory)

    @property
    def waiting(self):
        return len(self._pending)
