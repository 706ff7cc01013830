"""The lab's session file, `*.kinetoscope.json`, as the app reads it
(core/session/session.cpp, format 1): the statistics of a phase as the C++ core computes
them (core/session/timing_stats.cpp) and the atomic write (a temporary file in the same
folder, flushed, then renamed over the path).

Standard library only: the lab hands it plain numbers.
"""
import json
import math
import os
import tempfile

SESSION_FORMAT = 1
SESSION_SUFFIX = ".kinetoscope.json"
PHASES = ("data", "h2d", "forward", "backward", "optimizer")


class PhaseStats(object):
    """Mean, population std, and nearest-rank median, p95 and p99 of one phase's per-step
    times (milliseconds): the times actually seen, no interpolation."""

    __slots__ = ("phase", "mean_ms", "std_ms", "median_ms", "p95_ms", "p99_ms")

    def __init__(self, phase, values_ms):
        self.phase = phase
        values = sorted(float(v) for v in values_ms)
        if not values:
            self.mean_ms = self.std_ms = self.median_ms = self.p95_ms = self.p99_ms = 0.0
            return
        n = len(values)
        self.mean_ms = sum(values) / n
        self.std_ms = math.sqrt(sum((v - self.mean_ms) ** 2 for v in values) / n)

        def rank(p):  # the smallest value with at least p of the values at or below it
            k = int(math.ceil(p * n - 1e-9))
            return values[min(max(k, 1), n) - 1]

        self.median_ms = rank(0.5)
        self.p95_ms = rank(0.95)
        self.p99_ms = rank(0.99)

    def to_json(self):
        return {"phase": self.phase, "mean_ms": finite(self.mean_ms), "std_ms": finite(self.std_ms),
                "median_ms": finite(self.median_ms), "p95_ms": finite(self.p95_ms),
                "p99_ms": finite(self.p99_ms)}

    def __repr__(self):
        return "PhaseStats(%s: mean %.3f ms, median %.3f ms, p95 %.3f ms)" % (
            self.phase, self.mean_ms, self.median_ms, self.p95_ms)


def finite(value, fallback=0.0):
    """A float JSON can carry (JSON has no NaN or infinity)."""
    value = float(value)
    return value if math.isfinite(value) else fallback


def session_document(config, environment, arms, phases, steps, interrupted=""):
    """The session's JSON object. `arms`: the lab entries (dicts); `phases`: PhaseStats
    of the arm the per-step figures come from; `steps`: its rows [step, data, h2d,
    forward, backward, optimizer (ms), loss or None]."""
    by_phase = {p.phase: p for p in phases}
    split = {}
    if phases:
        split["dataloader_ms"] = finite(by_phase["data"].mean_ms)
        split["compute_ms"] = finite(sum(by_phase[name].mean_ms
                                         for name in ("forward", "backward", "optimizer")))
    document = {
        "kinetoscope_session": SESSION_FORMAT,
        "config": {str(k): str(v) for k, v in config.items()},
        "environment": {str(k): str(v) for k, v in environment.items()},
        "lab": list(arms),
        "phases": [p.to_json() for p in phases],
        "split": split,
        "steps": [list(row) for row in steps],
        "sweep": [],
        "samples": [],
        "trace": "",
        "memory_snapshot": "",
        "findings": [],
    }
    if interrupted:
        document["interrupted"] = interrupted
    return document


def write_atomically(path, document):
    """Writes the document as JSON to a temporary file beside `path`, flushes it to disk
    and renames it over `path`: a reader never sees half a session."""
    folder = os.path.dirname(os.path.abspath(path))
    text = json.dumps(document, indent=2, sort_keys=True, allow_nan=False) + "\n"
    handle, temporary = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".",
                                         suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o644)  # mkstemp's 0600 is not a session's
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    return path
