"""The probe's wrapper of torch.autograd.backward, in a file of its own whose name holds
"importlib" and "_bootstrap" on purpose.

torch raises some warnings during a backward with a fixed `stacklevel` (a full backward
hook on a module whose inputs need no grad: stacklevel=5), counting the frames between
its code and the script's `loss.backward()` line. A wrapper in between adds a frame, and
the warning then names torch's _tensor.py instead of the script's line: filters by module
or line no longer match it, and "once per location" folds every call site into one.
CPython's warnings (warnings.py and _warnings.c alike) do not count the frames of a file
whose name contains both words when they walk `stacklevel` up the stack: they are its own
import machinery's. So the frames of this file are passed over, as if the script had
called torch directly; tracebacks leave them out too on Python 3.11 and later
(faults.leave_out_own_frame).

Keep only pass-through wrappers here (code between the script and torch); the timing
itself is the step loop's (steps.Loop.on_backward_start/_end).
"""
from threading import get_ident
from time import perf_counter

from . import faults


def backward_wrapper(loop, original_backward):
    """torch.autograd.backward, timed: only the outermost call (checkpointing calls backward
    again inside it) on the training thread while the loop is live."""

    def backward(*args, **kwargs):
        try:
            if loop.backward_depth or (loop.hot != get_ident() and not (loop.live and loop.mine())):
                return original_backward(*args, **kwargs)
            try:
                started = loop.on_backward_start(args[0] if args else kwargs.get("tensors"))
            except Exception as exc:
                loop.fault(exc)
                return original_backward(*args, **kwargs)
            loop.backward_depth = 1
            try:
                result = original_backward(*args, **kwargs)
            finally:
                loop.backward_depth = 0
        except BaseException as exc:  # the script's (an out-of-memory in backward)
            faults.leave_out_own_frame(exc)
            raise
        try:
            if loop.timing is None:  # the host clock's addition, here: a call costs more
                loop.backward_s += perf_counter() - started
            elif loop.live:
                loop.on_backward_end(started)
        except Exception as exc:  # (the clock changed during the backward: a CUDA mark)
            loop.fault(exc)
        return result

    return backward
