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


_SYMBOLIZE_SETTINGS = ("TORCH_SYMBOLIZE_MODE", "TORCH_ADDR2LINE_BINARY", "TORCH_DISABLE_ADDR2LINE")


class SymbolizeWithoutAddr2line(object):
    """While the snapshot is dumped: TORCH_SYMBOLIZE_MODE=fast when no addr2line is on PATH
    and the script's environment names no way of its own. torch names the snapshot's C++
    frames with addr2line by default, and without it the dump fails ("ValueError: stoi": a
    container without binutils) and the snapshot is lost; torch's own reader ("fast") needs
    no program. torch fixes the mode at its first symbolisation, so this must come before."""

    def __init__(self, environ=None, which=None):
        self._environ = os.environ if environ is None else environ
        self._which = which
        self._set = False

    def __enter__(self):
        if any(name in self._environ for name in _SYMBOLIZE_SETTINGS):
            return self
        which = self._which
        if which is None:
            import shutil
            which = shutil.which
        if which("addr2line") is None:
            self._environ["TORCH_SYMBOLIZE_MODE"] = "fast"
            self._set = True
        return self

    def __exit__(self, *exc):
        if self._set:
            self._environ.pop("TORCH_SYMBOLIZE_MODE", None)
        return False


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
            with SymbolizeWithoutAddr2line():
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
