"""The probe's only output of its own: one line on the script's stderr when a part of it
turns itself off. Everything else the probe says goes to the launcher's socket.

Not every exception caught in the probe's code is the probe's: Python runs a signal
handler between any two bytecodes of the main thread, the probe's included, and an
exception the script's handler raises (a step time-out's) surfaces there. The probe turns
off as for a fault of its own (its bookkeeping was cut short) and raises it on, to the
script's own `except`.
"""
import os
import signal
import sys


def one_line(exc, limit=200):
    """'ExcType: message' on one line, at most `limit` characters."""
    message = " ".join(str(exc).split())
    text = type(exc).__name__ + (": " + message if message else "")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def say(text):
    """Writes 'kinetoscope probe: <text>' to fd 2 in one write. Not sys.stderr: the script
    may have replaced it (a logger, a file) and its stderr is its own."""
    try:
        line = "kinetoscope probe: " + " ".join(str(text).split()) + "\n"
        os.write(2, line.encode("utf-8", "replace"))
    except Exception:
        pass


def part_disabled(part, exc):
    cause = one_line(exc)
    if raised_by_signal_handler(exc):
        cause += ", raised by the script's signal handler inside the probe's code"
    say("%s disabled (%s)" % (part, cause))


def pass_on_scripts(exc):
    """For a probe `except` that goes on without the exception: raises `exc` on when the
    script's signal handler raised it (the script's own `except` must see it). Only `exc`
    itself: its __context__ may be one the script has already handled (a probe fault inside
    the script's own `except Preempted:` clean-up must not raise Preempted again). The
    probe's own clean-ups raise the handler's exception in a `finally` (steps.Loop.fault),
    so that a failure meanwhile never replaces it."""
    if raised_by_signal_handler(exc):
        raise exc


def raised_by_signal_handler(exc):
    """Whether `exc` came out of a Python signal handler the process has now (a frame of
    the handler's, a function, bound method or partial, is in its traceback)."""
    handlers = set()
    try:
        for number in signal.valid_signals():
            handler = signal.getsignal(number)
            handler = getattr(handler, "func", handler)  # functools.partial
            handler = getattr(handler, "__func__", handler)  # a bound method
            code = getattr(handler, "__code__", None)
            if code is not None:
                handlers.add(code)
    except (ValueError, OSError):  # (getsignal off the main interpreter)
        return False
    traceback = getattr(exc, "__traceback__", None)
    while traceback is not None:
        if traceback.tb_frame.f_code in handlers:
            return True
        traceback = traceback.tb_next
    return False


_PROBE_FOLDER = os.path.dirname(os.path.abspath(__file__)) + os.sep


def leave_out_own_frame(exc):
    """For a wrapper of the probe's, between the script and torch, that passes an exception
    on (`except BaseException as exc: leave_out_own_frame(exc); raise`): the wrapper's own
    line, and those of the probe's frames it called before the script's or torch's code, go
    off the exception's traceback (a bare `raise` adds none back on Python 3.11 and later;
    before, it restores the traceback it caught), so the script's traceback reads as it
    does without the probe (a DataLoader's error, an error in backward, an out-of-memory
    there), with no kinetoscope file in it to suspect."""
    traceback = exc.__traceback__
    if traceback is None or traceback.tb_frame is not sys._getframe(1):
        return
    while traceback is not None and traceback.tb_frame.f_code.co_filename.startswith(
            _PROBE_FOLDER):
        traceback = traceback.tb_next
    exc.__traceback__ = traceback
