"""The script's recursion headroom, kept while the probe's hooks are on its stack.

A hook on a module sends each call of it down torch's slower path, one frame deeper
(Module._call_impl's `inner`): while the model is being found, every nested module call
(the global hooks, model.py), and after that each call of the model. A model that recurses
through module calls (a tree network whose module calls itself per child) then reached
Python's recursion limit sooner than without the probe: RecursionError at step 0 on trees
180 deep that trained bare. So the limit is raised by the frames the hooks add while they
are on the stack, and set back once they are gone: the script's own code reaches the depth
it reaches without the probe. Meanwhile sys.getrecursionlimit() says the raised limit; a
limit the script sets itself meanwhile is kept, with ours on top.
"""
import sys

SLACK = 8  # the hooks' own frames at the deepest call (the hook, the loop's method, ...)
CHUNK = 32  # raised in steps, so that a deep recursion sets the limit once per 32 levels
# Never more than a quarter of the script's limit above it: a hooked module call is one
# frame in at least four (the call, torch's two, the forward), so that is always enough,
# and a limit far past the script's would let a runaway recursion overflow the C stack
# (a crash) before RecursionError.
SHARE = 4


class Headroom(object):
    __slots__ = ("lent", "_base")

    def __init__(self):
        self.lent = 0  # frames above the script's limit, 0: the script's limit as it set it
        self._base = 0  # the script's limit while lent

    def lend(self, frames):
        """`frames` of the probe's are on the stack: the limit is at least that much (and
        SLACK) above the script's."""
        if frames + SLACK <= self.lent:
            return
        current = sys.getrecursionlimit()
        if not self.lent or current != self._base + self.lent:
            self._base = current  # (the script's own, or one it set since: ours goes on top)
        most = self._base // SHARE + SLACK
        lent = min(frames + SLACK + CHUNK, most)
        if lent > self.lent:
            self.lent = lent
            sys.setrecursionlimit(self._base + lent)

    def settle(self):
        """The probe's frames are gone: the script's limit again (unless it set one since)."""
        if sys.getrecursionlimit() == self._base + self.lent:
            try:
                sys.setrecursionlimit(self._base)
            except RecursionError:  # (deeper than that right now: at the next settle)
                return
        self.lent = 0
