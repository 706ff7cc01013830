"""Which signals reached the script, for the launcher (core/lab/signal_relay.h).

A signal sent to the whole process group (timeout, kill -- -PGID) or to every process of a
job (a scheduler's) reaches the script and `kinetoscope profile` alike; the launcher must
not pass it on a second time, but it cannot see what the script got. The interpreter can
say it without any code of ours on the script's path: the write end of the launcher's pipe
becomes Python's signal wakeup fd (signal.set_wakeup_fd), where the interpreter's C signal
handler writes the number of each signal the script handles in Python (its own handlers,
and Ctrl-C's default KeyboardInterrupt) as it arrives. The script keeps the read end open
too, never read: with the launcher gone, the pipe still has a reader, so the interpreter's
writes do not fail (a failed write is reported on the script's stderr), and a pipe left
full only drops bytes (warn_on_full_buffer=False).

Only where the script has no wakeup fd of its own yet (at start it has none); a script
that sets one later (an asyncio loop's signal handlers) replaces ours, and the launcher
then passes on what it gets, after its wait. What stays visible: set_wakeup_fd returns our
descriptor to the first caller instead of -1 (Trio warns that it collided with another
library there).

The write end is at a high number (the launcher's choice), away from the lowest free ones
the script's own files take. A script that closes it (os.closerange(3, ...), a daemon's
close of every descriptor) makes the interpreter's next write fail, reported on its stderr
on each signal, or reach a file of the script's that took the number: os.close and
os.closerange are wrapped to take the wakeup fd back (-1) as the script closes ours (on the
main thread, where set_wakeup_fd may be called; elsewhere nothing is done). A forked child
(a DataLoader worker, os.fork) takes it back at once and closes its copies: its signals
are not the script's.
"""
import os
import signal
import threading

from .descriptor import inherited

_ends = []  # (write, read) once installed


def install(text):
    """text: KINETOSCOPE_PROBE_SIGNALS, "WRITE:DEVICE:INODE,READ:DEVICE:INODE" (the
    launcher's pipe). Raises ValueError on a bad value (the descriptors are then closed,
    where they are the launcher's)."""
    ends = text.split(",")
    if len(ends) != 2:
        raise ValueError("KINETOSCOPE_PROBE_SIGNALS is not two file descriptors: %r" % text)
    write, read = (inherited(end, "KINETOSCOPE_PROBE_SIGNALS") for end in ends)
    if write is None or read is None:
        raise ValueError("the launcher's signal pipe is not this process's")
    try:
        for fd in (write, read):
            os.set_inheritable(fd, False)  # (none of the script's own processes gets them)
        if threading.current_thread() is not threading.main_thread():
            raise ValueError("not on the main thread")
        previous = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
        if previous != -1:  # an embedding's own: it stays
            signal.set_wakeup_fd(previous)
            raise ValueError("the interpreter has a signal wakeup fd of its own")
        _ends[:] = [write, read]
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=_forget)
        _watch_closes()
    except Exception:
        if _ends:
            _forget()  # (the wakeup fd back first: never left naming a closed descriptor)
        else:
            for fd in (write, read):
                try:
                    os.close(fd)
                except OSError:
                    pass
        raise


def _forget(closed=False):
    """The wakeup fd taken back, where it is still ours, and our ends closed (`closed`: the
    script closed the write end itself). Never raises."""
    if not _ends:
        return
    write, read = _ends
    try:
        if threading.current_thread() is not threading.main_thread():
            return  # (set_wakeup_fd is the main thread's: left as it is)
        current = signal.set_wakeup_fd(-1)
        if current not in (write, -1):  # the script's own by now: it stays
            signal.set_wakeup_fd(current)
    except Exception:
        pass
    del _ends[:]
    for fd in ((read,) if closed else (write, read)):
        try:
            os.close(fd)
        except OSError:
            pass


def _watch_closes():
    """os.close and os.closerange, wrapped: closing our write end forgets it first."""
    original_close, original_closerange = os.close, os.closerange

    def close(fd):
        if _ends and fd == _ends[0]:
            _forget(closed=True)
        return original_close(fd)

    def closerange(low, high):
        if _ends and low <= _ends[0] < high:
            _forget(closed=True)
        return original_closerange(low, high)

    for wrapper, original in ((close, original_close), (closerange, original_closerange)):
        wrapper.__doc__, wrapper.__name__ = original.__doc__, original.__name__
        wrapper.__wrapped__ = original
    os.close, os.closerange = close, closerange
