"""The launcher's socket (KINETOSCOPE_PROBE_FD): newline-delimited JSON both ways.

Out: outbox.Outbox (the lines, post and send, the writer thread). Sends from the training
thread are non-blocking (MSG_DONTWAIT); what the socket does not take (the launcher slow
to read) waits in the backlog that the writer thread sends. The training thread never
blocks on the launcher.
In: a reader thread reads `{"type":"cancel","by":"..."}` lines.
Either side failing (EOF, a write error) calls `on_lost` once: the probe turns itself off
silently, the script runs on. So does the script closing the socket's descriptor under the
probe (descriptor.OwnedFd): then the probe says so in one line, and never writes to, reads
from or closes that number again, which may by then be a socket of the script's.
"""
import json
import os
import socket

from . import threads
from .descriptor import OwnedFd
from .outbox import Outbox

_NOSIGNAL = getattr(socket, "MSG_NOSIGNAL", 0)  # a closed peer is EPIPE, never SIGPIPE
_DONTWAIT = getattr(socket, "MSG_DONTWAIT", 0)


class Channel(Outbox):
    def __init__(self, fd, on_cancel, on_lost):
        Outbox.__init__(self, on_cancel, on_lost)
        self._fd = OwnedFd(fd, "the launcher's socket")
        os.set_inheritable(fd, False)  # exec'd children never get it
        self._sock = socket.socket(fileno=fd)
        self._sock.settimeout(None)  # blocking; the training thread asks MSG_DONTWAIT
        self._start_writer()
        threads.start(self._read_loop)

    def _write_some(self, data):
        self._check()
        try:
            return self._sock.send(data, _DONTWAIT | _NOSIGNAL)
        except (BlockingIOError, InterruptedError):
            return 0

    def _write_all(self, data):
        self._check()
        self._sock.sendall(data, _NOSIGNAL)  # blocking: only the writer thread waits

    def _check(self):
        """Raises OSError once the descriptor is not the probe's; the socket object then
        forgets the number (its finalizer would close it)."""
        if not self._fd.ours():
            self._sock.detach()
            raise OSError("the launcher's socket was closed by the script")

    def abandon(self):
        self.open = False
        try:
            self._sock.detach()
            self._fd.close()
        except Exception:
            pass

    def _read_loop(self):
        pending = b""
        while True:
            try:
                self._check()  # a number the script reused is never read from
                chunk = self._sock.recv(4096)
            except InterruptedError:
                continue
            except Exception:
                chunk = b""
            if not chunk:  # the launcher closed its end (or died), or the script the fd
                if self.open:
                    self._lost()
                return
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                self._handle(line)

    def _handle(self, line):
        try:
            message = json.loads(line.decode("utf-8", "replace"))
        except ValueError:
            return
        if isinstance(message, dict) and message.get("type") == "cancel":
            by = message.get("by")
            self._on_cancel(by if isinstance(by, str) and by else "a cancel")
