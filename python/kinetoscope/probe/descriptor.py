"""A file descriptor the probe holds for the whole run, and whether it is still the probe's.

A script may close descriptors it never opened: os.closerange(3, ...) (daemonising code,
some job wrappers) closes the launcher's socket or a rank's stream file under the probe.
The next socket or file the script opens then gets the same number, and a write, read or
close by that number would reach the script's own socket. So the probe checks, before each
write and read and before it closes, that the number still names the file it opened: the
same (device, inode) pair, which a socket keeps for its life and a new one never shares
while the old one is open. Once it does not, the probe never touches the number again.

The check is one fstat (about a microsecond), made where the probe writes (the writer
thread, at most 20 times a second, and a rare message) and reads, never per step.
"""
import os

from . import faults


class OwnedFd(object):
    def __init__(self, fd, what):
        self.fd = fd
        self.what = what  # for the one line said when it is lost: "the launcher's socket"
        status = os.fstat(fd)
        self._identity = (status.st_dev, status.st_ino)
        self.lost = False  # set once the number was found naming another file (or none)

    def ours(self):
        """Whether the number still names the file the probe opened. Once False, always."""
        if self.lost:
            return False
        try:
            status = os.fstat(self.fd)
        except OSError:
            status = None
        if status is None or (status.st_dev, status.st_ino) != self._identity:
            self.lost = True
        if self.lost:
            faults.say("disabled (the script closed %s, descriptor %d; the session ends at "
                       "what was sent before)" % (self.what, self.fd))
        return not self.lost

    def check(self):
        """Raises OSError when the number is not the probe's any more (the caller's write or
        read is then never made: the outbox takes the reader as gone)."""
        if not self.ours():
            raise OSError("descriptor %d was closed by the script" % self.fd)

    def close(self):
        """Closes the number if it is still the probe's; never the script's file."""
        if self.ours():
            self.lost = True  # (closed by the probe: nothing to say)
            try:
                os.close(self.fd)
            except OSError:
                pass


def inherited(text, variable):
    """The descriptor named by the launcher's "FD:DEVICE:INODE" (a variable's value; a bare
    "FD" is taken as it is), or None when that number is not the launcher's file in this
    process: closed, or another file at the same number. That is a process the script
    started (through a shell, say, whose environment still names the launcher's
    descriptors): the probe stays away from it, and silent. Raises ValueError on a value
    that is neither."""
    parts = text.split(":")
    try:
        numbers = [int(part) for part in parts]
    except ValueError:
        numbers = []
    if len(numbers) not in (1, 3):
        raise ValueError("%s is not a file descriptor: %r" % (variable, text))
    fd = numbers[0]
    if len(numbers) == 1:
        return fd
    try:
        status = os.fstat(fd)
    except OSError:
        return None
    return fd if (status.st_dev, status.st_ino) == tuple(numbers[1:]) else None
