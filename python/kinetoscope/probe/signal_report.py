"""Which signals reached the script, for the launcher (core/lab/signal_relay.h).

A signal sent to the whole process group (timeout, kill -- -PGID) or to every process of a
job (a scheduler's) reaches the script and `kinetoscope profile` alike; the launcher must
not pass it on a second time, but it cannot see what the script got. The interpreter can
say it without any code of ours on the script's path: the write end of the launcher's pipe
becomes Python's signal wakeup fd (signal.set_wakeup_fd), where the interpreter's C signal
handler writes the number of each signal the script handles in Python (its own handlers,
and Ctrl-C's default KeyboardInterrupt) as it arrives. The script keeps the read end open
too, never read: with the launcher gone, the pipe still has a reader, so the interpreter's
writes never fail (a failed write is reported on the script's stderr), and a pipe left
full only drops bytes (warn_on_full_buffer=False).

Only where the script has no wakeup fd of its own yet (at start it has none); a script
that sets one later (an asyncio loop's signal handlers) replaces ours, and the launcher
then passes on what it gets, as before.
"""
import os
import signal
import threading

from .descriptor import inherited


def install(text):
    """text: KINETOSCOPE_PROBE_SIGNALS, "WRITE:INODE,READ:INODE" (the launcher's pipe).
    Raises ValueError on a bad value (the descriptors are then closed, where they are the
    launcher's)."""
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
    except Exception:
        for fd in (write, read):
            try:
                os.close(fd)
            except OSError:
                pass
        raise
