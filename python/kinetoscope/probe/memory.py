"""CUDA allocator figures (host-side counters: never a synchronisation) and the optional
allocator snapshot (`--memory-snapshot`). On the CPU the probe reports no memory: -1.
"""
import os

from . import faults

UNKNOWN = (-1, -1, -1, -1)  # allocated, reserved, peak allocated, peak reserved (bytes)


class CudaMemory(object):
    """Per-step allocator figures on one device; one C call per reading."""

    def __init__(self, torch):
        self._torch = torch
        self._stats = getattr(torch._C, "_cuda_memoryStats", None)  # nested dict, no flattening
        self.ok = True

    def read(self, index):
        """(allocated, reserved, peak allocated, peak reserved) bytes, peaks since the last
        reset_peaks(); UNKNOWN once a reading has failed."""
        if not self.ok:
            return UNKNOWN
        try:
            if self._stats is not None:
                stats = self._stats(index)
                a, r = stats["allocated_bytes"]["all"], stats["reserved_bytes"]["all"]
                return int(a["current"]), int(r["current"]), int(a["peak"]), int(r["peak"])
            cuda = self._torch.cuda
            return (int(cuda.memory_allocated(index)), int(cuda.memory_reserved(index)),
                    int(cuda.max_memory_allocated(index)), int(cuda.max_memory_reserved(index)))
        except Exception as exc:
            self.ok = False
            faults.part_disabled("memory readings", exc)
            return UNKNOWN

    def current(self, index):
        """(allocated, reserved) bytes now."""
        figures = self.read(index)
        return figures[0], figures[1]

    def reset_peaks(self, index):
        if not self.ok:
            return
        try:
            self._torch.cuda.reset_peak_memory_stats(index)
        except Exception as exc:
            self.ok = False
            faults.part_disabled("memory readings", exc)


class Snapshot(object):
    """`--memory-snapshot`: the CUDA caching allocator's history, recorded from CUDA's first
    use and dumped to OUT/memory_snapshot.pickle at exit, or at an out-of-memory error
    before its traceback propagates (that dump is kept: it shows what was alive then)."""

    NAME = "memory_snapshot.pickle"

    def __init__(self, torch, out_dir):
        self._torch = torch
        self._out_dir = out_dir
        self.recording = False
        self.dumped_at_oom = False
        self.ok = True

    def start(self):
        """Called once CUDA is initialised (torch.cuda._lazy_call); never raises."""
        if not self.ok or self.recording:
            return
        try:
            self._torch.cuda.memory._record_memory_history(max_entries=100000)
            self.recording = True
            attach = getattr(self._torch._C, "_cuda_attach_out_of_memory_observer", None)
            if attach is not None:
                attach(self._on_oom)
        except Exception as exc:
            self.ok = False
            faults.part_disabled("memory snapshot", exc)

    def _on_oom(self, device, alloc, device_alloc, device_free):
        # Called by the allocator, before the OutOfMemoryError is raised.
        if not self.dumped_at_oom and self.dump():
            self.dumped_at_oom = True

    def dump(self):
        """Writes the snapshot atomically; True when written."""
        if not self.ok or not self.recording:
            return False
        final = os.path.join(self._out_dir, self.NAME)
        temporary = "%s.tmp-%d" % (final, os.getpid())
        try:
            self._torch.cuda.memory._dump_snapshot(temporary)
            os.replace(temporary, final)
            return True
        except Exception as exc:
            self.ok = False
            faults.part_disabled("memory snapshot", exc)
            try:
                os.unlink(temporary)
            except OSError:
                pass
            return False

    def dump_at_exit(self):
        if not self.dumped_at_oom:
            self.dump()
