"""KINETOSCOPE_PROBE_OPTIONS: the launcher's JSON object of what to measure.

Missing keys take the defaults below; a key of the wrong type or out of range is refused
(the whole probe is then disabled with the reason: a launcher bug, never the user's).
Unknown keys (at the top and inside "loader") are a newer launcher's: ignored.
"""
import json

ARMS = ("", "fp32", "bf16", "bf16+compile")
LOADER_KEYS = {  # "loader": DataLoader arguments forced at every construction
    "num_workers": (int, 0),  # (type, least value)
    "batch_size": (int, 1),
    "pin_memory": (bool, None),
    "persistent_workers": (bool, None),
}
MAX_SEED = 2 ** 64 - 1  # torch.manual_seed takes a 64-bit seed

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
    # the lab on the script's own model (arms.py, overrides.py)
    "arm": "",  # "": the script as written; "fp32" | "bf16" | "bf16+compile"
    "compile_mode": "",  # torch.compile's mode for bf16+compile ("": its default)
    "seed": -1,  # seeds torch, random (and numpy if imported) at arming; -1: none
    "loader": {},  # DataLoader overrides: LOADER_KEYS
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

    @property
    def lab(self):
        """True when an option of the lab (arm, seed, loader) changes the script's run."""
        return bool(self.arm or self.seed >= 0 or self.loader)


def _whole(key, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
        raise ValueError("option %s is not a whole number" % key)
    return int(value)


def _loader(value):
    if not isinstance(value, dict):
        raise ValueError("option loader is not a JSON object")
    loader = {}
    for key, given in value.items():
        if key not in LOADER_KEYS:
            continue
        kind, least = LOADER_KEYS[key]
        name = "loader." + key
        if kind is bool:
            if not isinstance(given, bool):
                raise ValueError("option %s is not true or false" % name)
        else:
            given = _whole(name, given)
            if given < least:
                raise ValueError("option %s is less than %d" % (name, least))
        loader[key] = given
    return loader


def parse(text):
    """Options from the environment variable's text (None or empty: all defaults)."""
    values = dict(DEFAULTS)
    values["loader"] = {}
    given = json.loads(text) if text else {}
    if not isinstance(given, dict):
        raise ValueError("KINETOSCOPE_PROBE_OPTIONS is not a JSON object")
    for key, value in given.items():
        if key not in DEFAULTS:
            continue  # a newer launcher's option: not ours to refuse
        default = DEFAULTS[key]
        if key == "seed":
            value = _whole(key, value)
            if value < -1 or value > MAX_SEED:
                raise ValueError("option seed is not -1 or a seed from 0 to 2**64-1")
        elif key == "loader":
            value = _loader(value)
        elif isinstance(default, bool):
            if not isinstance(value, bool):
                raise ValueError("option %s is not true or false" % key)
        elif isinstance(default, int):
            value = _whole(key, value)
            if value < 0:
                raise ValueError("option %s is negative" % key)
        elif not isinstance(value, str):
            raise ValueError("option %s is not a string" % key)
        values[key] = value
    values["sample_rate"] = min(20, max(10, values["sample_rate"]))
    values["step_marker"] = values["step_marker"].strip()
    values["compile_mode"] = values["compile_mode"].strip()
    if values["arm"] not in ARMS:
        raise ValueError("option arm is not one of fp32, bf16, bf16+compile: %r" % values["arm"][:40])
    return Options(values)
