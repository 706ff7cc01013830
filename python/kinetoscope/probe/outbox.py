"""The probe's messages out, whatever carries them: newline-delimited JSON, in order.

One message per line, UTF-8 (ASCII-escaped: never a raw newline), no NaN/Infinity.
- send(): a rare message (hello, started, done) goes out at once, after what waits.
- post(): the frequent ones (progress, step, sample) cost the training thread a deque
  append (atomic: no lock); the writer thread formats and writes them, at most FLUSH_S
  after they were posted. (On a 2-core machine a send costs 5-30 us and formatting a
  step's line 2-10 us, where 2 % of a 1.5 ms step is 30 us.) A crash loses at most the
  last FLUSH_S of posted messages; os._exit writes them first (runtime.py).
Every write holds whole lines. A write from the training thread never waits on the
reader: what the transport does not take at once waits in a backlog that the writer
thread writes, in order. Past MAX_BACKLOG bytes or MAX_POSTED lines waiting, the reader is
taken as gone. A write error calls `on_lost` once: the probe turns itself off silently,
the script runs on.

Outbox is the base; a transport (channel.Channel: the launcher's socket;
filechannel.FileChannel: a rank's stream file) gives `_write_some` and `_write_all`,
`abandon`, and whatever reads cancels.
"""
import collections
import json
import threading
import time

from . import threads

MAX_BACKLOG = 16 << 20  # bytes
MAX_POSTED = 100000  # lines
FLUSH_S = 0.05  # seconds a posted message may wait (the writer wakes at most 20 times a second)
_monotonic = time.monotonic


def encode(item):
    """One line of JSON, without its newline: a dict; a str already formatted; or a
    (format function, arguments) pair posted by a hot path, formatted here."""
    if isinstance(item, str):
        return item
    if isinstance(item, tuple):
        return item[0](*item[1])
    return json.dumps(item, separators=(",", ":"), allow_nan=False, ensure_ascii=True)


def _take_all(posted):
    """Empties the deque of posted items, in order (popleft: atomic against post())."""
    items = []
    try:
        while True:
            items.append(posted.popleft())
    except IndexError:
        return items


def _encode_all(items):
    lines = []
    for item in items:
        try:
            lines.append(encode(item))
        except (TypeError, ValueError, OverflowError):
            pass  # a probe bug (an infinite time): that message only is dropped
    return ("\n".join(lines) + "\n").encode("ascii", "replace") if lines else b""


class Outbox(object):
    """The messages out. A subclass sets up its transport, then calls `_start_writer()`."""

    def __init__(self, on_cancel, on_lost):
        self._on_cancel = on_cancel
        self._on_lost = on_lost
        self._cond = threading.Condition(threading.Lock())
        self._posted = collections.deque()  # items posted, not yet formatted (append/popleft
        # are atomic: post() takes no lock)
        self._last_flush = 0.0  # monotonic seconds
        self._idle = False  # the writer waits for a notify (nothing was posted lately)
        self._backlog = collections.deque()  # bytes not written yet, in order
        self._backlog_bytes = 0
        self._writing = False  # the writer thread holds bytes that go before anything new
        self._closing = False
        self.open = True
        self._lost_said = False

    def _start_writer(self):
        threads.start(self._write_loop)

    # -- the transport ----------------------------------------------------------------------
    def _write_some(self, data):
        """Writes what the transport takes now without waiting on the reader: the number of
        bytes taken. Raises OSError when the reader is gone."""
        raise NotImplementedError

    def _write_all(self, data):
        """Writes all of `data` (the writer thread: it may wait). Raises OSError when the
        reader is gone."""
        raise NotImplementedError

    def abandon(self):
        """In a forked child: forget the parent's transport without touching its locks or
        its threads (they do not exist here) and close this process's copy of the fd."""
        raise NotImplementedError

    # -- any thread -------------------------------------------------------------------------
    def post(self, item):
        """Queues a frequent message; the writer writes it within FLUSH_S. No lock: the
        writer sets _idle (under the lock) and looks at the deque again before it sleeps,
        so an item appended before that is seen, and one appended after sees _idle."""
        if not self.open:
            return
        posted = self._posted
        posted.append(item)
        if self._idle:
            with self._cond:
                self._idle = False
                self._cond.notify()
        elif len(posted) > MAX_POSTED:  # the reader has not read for a long while
            posted.clear()
            self._lost()

    def appender(self):
        """The posted deque's own append (a C call: no Python frame, which on the training
        thread's once-a-step path costs more than the rest of the post). For a poster that
        knows the writer is awake: it posted less than FLUSH_S ago (the writer sleeps only
        after 2 x FLUSH_S with nothing posted). Such a poster calls post() otherwise, and
        every so many lines (post() checks MAX_POSTED). Loop.end is the one. (What it
        appends once the outbox is closed, at the script's exit, or lost is never written.)"""
        return self._posted.append

    def send(self, message):
        """Writes a rare message now, after everything posted before it."""
        if not self.open:
            return
        with self._cond:
            self._posted.append(message)  # behind what was posted before
            ok = self._flush_locked()
        if not ok:
            self._lost()

    def _flush_locked(self):
        """Formats and writes what was posted (under the lock; never waits on the reader).
        False: the reader is gone."""
        data = _encode_all(_take_all(self._posted))
        self._last_flush = _monotonic()
        if not data:
            return True
        if self._backlog or self._writing:  # keep the order: queue behind them
            return self._queue(data)
        try:
            sent = self._write_some(data)
        except OSError:
            return False
        return sent == len(data) or self._queue(data[sent:])

    def _queue(self, data):
        # under the lock
        if self._backlog_bytes + len(data) > MAX_BACKLOG:
            return False
        self._backlog.append(data)
        self._backlog_bytes += len(data)
        self._cond.notify_all()
        return True

    def flush_now(self, timeout=0.5):
        """What was posted is written now (before an os._exit, which skips atexit and would
        lose the last FLUSH_S of messages). Waits `timeout` seconds at most for the writer
        to finish what it holds; never waits on the reader."""
        if not self.open:
            return
        deadline = _monotonic() + timeout
        if not self._cond.acquire(True, timeout):
            return
        try:
            while self._writing and self.open:
                left = deadline - _monotonic()
                if left <= 0:
                    return
                self._cond.wait(left)
            if self.open:
                self._flush_locked()
        finally:
            self._cond.release()

    def close(self, timeout):
        """Writes what waits (`timeout` seconds at most); no more writes after."""
        if not self.open:
            return
        deadline = _monotonic() + timeout
        with self._cond:
            self._closing = True
            ok = self._flush_locked()
            self._cond.notify_all()
            while ok and self.open and (self._backlog or self._writing or self._posted):
                left = deadline - _monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
        self.open = False

    # -- threads ----------------------------------------------------------------------------
    def _lost(self):
        self.open = False
        if not self._lost_said:
            self._lost_said = True
            try:
                self._on_lost()
            except Exception:
                pass

    def _write_loop(self):
        cond = self._cond
        lost = False
        with cond:
            while self.open and not lost:
                if self._writing:
                    cond.wait()
                    continue
                if self._backlog:
                    chunks, raw = list(self._backlog), True
                    self._backlog.clear()
                    self._backlog_bytes = 0
                elif self._posted:
                    due = self._last_flush + FLUSH_S - _monotonic()
                    if due > 0:
                        cond.wait(due)
                        continue
                    chunks, raw = _take_all(self._posted), False
                    self._last_flush = _monotonic()
                elif self._closing:
                    return
                else:
                    # Nothing waits: one more period, then sleep until something is posted.
                    if _monotonic() - self._last_flush < 2 * FLUSH_S:
                        cond.wait(FLUSH_S)
                    else:
                        self._idle = True
                        if not self._posted:  # see post()
                            cond.wait(1.0)
                        self._idle = False
                    continue
                # Format (posted items) and write outside the lock; anything sent meanwhile
                # queues behind (self._writing).
                self._writing = True
                cond.release()
                try:
                    data = b"".join(chunks) if raw else _encode_all(chunks)
                    if data:
                        self._write_all(data)  # only this thread waits
                except Exception:
                    lost = True
                finally:
                    cond.acquire()
                    self._writing = False
                    cond.notify_all()
        if lost:
            self._lost()
