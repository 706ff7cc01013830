"""KINETOSCOPE_PROBE_OPTIONS: the launcher's JSON object of what to measure.

Missing keys take the defaults below; a key of the wrong type or out of range is refused
(the whole probe is then disabled with the reason: a launcher bug, never the user's).
"""
import json

DEFAULTS = {
    "skip": 5,  # warm-up steps: counted, neither measured nor profiled
    "active": 3,  # profiler-window steps after the warm-up (0: no window)
    "steps": 0,  # measured steps after the window, then SystemExit(0); 0: run to the end
    "step_marker": "",  # a record_function label, or a function `func` / `module:func`
    "record_shapes": True,
    "profile_memory": True,
    "with_stack": False,
    "memory_snapshot": False,  # CUDA only: record allocator history, dump at exit / OOM
    "sample_rate": 20,  # Hz, clamped to 10-20
}


class Options(object):
    __slots__ = tuple(DEFAULTS)

    def __init__(self, values):
        for key, value in values.items():
            setattr(self, key, value)

    @property
    def total_steps(self):
        """Steps the run lasts (warm-up + window + measured), or 0 when it is not bounded."""
        return self.skip + self.active + self.steps if self.steps > 0 else 0


def parse(text):
    """Options from the environment variable's text (None or empty: all defaults)."""
    values = dict(DEFAULTS)
    given = json.loads(text) if text else {}
    if not isinstance(given, dict):
        raise ValueError("KINETOSCOPE_PROBE_OPTIONS is not a JSON object")
    for key, value in given.items():
        if key not in DEFAULTS:
            continue  # a newer launcher's option: not ours to refuse
        default = DEFAULTS[key]
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise ValueError("option %s is not true or false" % key)
        elif isinstance(default, int):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
                raise ValueError("option %s is not a whole number" % key)
            value = int(value)
            if value < 0:
                raise ValueError("option %s is negative" % key)
        elif not isinstance(value, str):
            raise ValueError("option %s is not a string" % key)
        values[key] = value
    values["sample_rate"] = min(20, max(10, values["sample_rate"]))
    values["step_marker"] = values["step_marker"].strip()
    return Options(values)
