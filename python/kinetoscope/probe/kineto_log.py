"""Keeps Kineto's own log lines off the script's stderr while the window's profiler starts,
steps, stops and writes.

Kineto logs through a logger of its own, straight to fd 2. On a machine without a CUDA
driver, the first profiler stop of a process asks for the GPUs to describe them in the
trace and logs "ERROR ... DeviceProperties.cpp:48] gpuGetDeviceCount failed with code 35"
(once: the answer is kept). Under the probe that line is the window's, not the script's,
and it reads as a failure of the run.

Its level is read from KINETO_LOG_LEVEL once, at the first profiler start of the process,
and kept in `libkineto::Logger::severityLevel_`, a variable libtorch_cpu exports: the
window raises it for the length of its own calls and puts it back, so the script's
environment stays as it was and its own profilers log as they would. A first start sets
the level itself (KINETO_LOG_LEVEL's, or torch's ERROR when that is unset): a level that
changed during the call is kept. The library is torch's own copy (torch/lib), else the
one loaded by its soname (a conda or distribution torch keeps it in PREFIX/lib); without
it or the symbol (another platform, a torch that does not export it), nothing is done:
the lines show as before.

What the script loses: Kineto logs the failed GPU count once a process, so a profiler of
the script's own after the window does not log it again.
"""
import ctypes
import os

_QUIET = 1000  # above every Kineto severity (VERBOSE 0 .. ERROR 4, STAGE 5)
_SYMBOL = "_ZN9libkineto6Logger14severityLevel_E"  # libkineto::Logger::severityLevel_
_level = None  # ctypes.c_int over the variable, False when it cannot be found


def _find(torch):
    path = os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so")
    if not os.path.exists(path):
        path = "libtorch_cpu.so"  # matched against the sonames of the libraries loaded
    # RTLD_NOLOAD: the library torch has loaded already, or nothing (never a second copy).
    library = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
    return ctypes.c_int.in_dll(library, _SYMBOL)


class Quiet(object):
    """`with Quiet(torch):` around a call of the window's profiler. Any failure to find the
    level leaves Kineto as it is; the call runs in every case."""

    def __init__(self, torch):
        global _level
        if _level is None:
            try:
                _level = _find(torch)
            except Exception:  # (no such library or symbol; torch.__file__ None...)
                _level = False
        self._before = None

    def __enter__(self):
        if _level:
            self._before = _level.value
            _level.value = _QUIET
        return self

    def __exit__(self, *exc):
        if self._before is not None and _level.value == _QUIET:
            _level.value = self._before
        return False
