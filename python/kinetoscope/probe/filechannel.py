"""A rank's stream file (job mode, ranks.py): the launcher's socket's lines, appended.

Out: outbox.Outbox, exactly the lines the socket carries, each write whole lines to a
file opened O_APPEND. A rare message (hello, started, done) is written at once by the
thread that sends it; the frequent ones by the writer thread within FLUSH_S. (A write to a
regular file never waits on a reader.) A write error (the disk full, the folder gone)
calls `on_lost` once: the probe turns itself off silently, the script runs on. So does the
script closing the file's descriptor under the probe (descriptor.OwnedFd, said in one line).
In: a poller thread looks for the cancel file every CANCEL_POLL_S seconds. Its content is
one JSON line `{"type":"cancel","by":"..."}`; when it cannot be read (still being written)
it is read again at the next poll, then taken as a cancel by "the launcher". The cancel
is heard once: `on_cancel(by)` on the poller thread, as the socket's reader calls it.
"""
import json
import os
import threading

from . import threads
from .descriptor import OwnedFd
from .outbox import Outbox

CANCEL_POLL_S = 0.2  # seconds between two looks for the cancel file
UNKNOWN_CANCEL = "the launcher"


class FileChannel(Outbox):
    def __init__(self, fd, cancel_path, on_cancel, on_lost):
        Outbox.__init__(self, on_cancel, on_lost)
        self._fd = OwnedFd(fd, "the rank's stream file")
        self._cancel_path = cancel_path
        self._stop = threading.Event()  # set at close: the poller ends
        self._start_writer()
        threads.start(self._poll_loop)

    def _write_some(self, data):
        self._write_all(data)
        return len(data)

    def _write_all(self, data):
        self._fd.check()  # a number the script reused is never written to
        view = memoryview(data)
        while view:
            written = os.write(self._fd.fd, view)  # a short write: the rest follows at once
            if written <= 0:
                raise OSError("the stream file took no bytes")
            view = view[written:]

    def close(self, timeout):
        Outbox.close(self, timeout)
        self._stop.set()

    def abandon(self):
        self.open = False
        self._fd.close()

    def _poll_loop(self):
        unreadable = 0  # polls that found the file but could not read a cancel from it
        while not self._stop.wait(CANCEL_POLL_S):
            if not self.open:
                return
            if not os.path.exists(self._cancel_path):
                continue
            by = _read_cancel(self._cancel_path)
            if by is None:
                unreadable += 1
                if unreadable < 2:
                    continue
                by = UNKNOWN_CANCEL
            self._on_cancel(by)
            return


def _read_cancel(path):
    """The `by` of the cancel file's first line ("the launcher" when it has none), or None
    when the line is not a whole JSON object yet."""
    try:
        with open(path, "rb") as f:
            line = f.readline(65536)
        message = json.loads(line.decode("utf-8", "replace"))
    except (OSError, ValueError):
        return None
    if not isinstance(message, dict):
        return None
    by = message.get("by")
    return by if isinstance(by, str) and by else UNKNOWN_CANCEL
