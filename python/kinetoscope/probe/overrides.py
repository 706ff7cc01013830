"""What the lab sets in the script before its code goes on (at arming, right after it
imported torch): the seed and the DataLoader's arguments.

- `seed` (>= 0): torch.manual_seed (which seeds CUDA too), Python's `random`, and numpy's
  global generator when numpy is already imported. torch.manual_seed and
  torch.random.manual_seed (one function) are then wrapped: a later call from the
  script's own code (not torch's) is noted, config `script_reseeds` "true" (its seed,
  not ours, decides from there), and goes through unchanged.
- `loader`: num_workers, pin_memory, persistent_workers, batch_size forced at every
  DataLoader construction (DataLoader.__init__ wrapped; the arguments bound to its
  signature, so positional ones count). num_workers 0 drops what needs workers
  (persistent_workers, prefetch_factor, multiprocessing_context); batch_size only when
  the loader batches by batch_size (not a batch_sampler, not batch_size=None). The first
  construction's changes are config `loader_overrides`, e.g. "num_workers=4 (script: 0),
  pin_memory=true (script: false)".

Both report through the lab (arms.Lab.set): the config keys go with the next `started`.
"""
import functools
import inspect
import os
import random
import sys

from . import faults


def seed(lab, torch, value):
    """Seeds now, then notes the script's own reseeding."""
    original = torch.random.manual_seed
    original(value)
    random.seed(value)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        try:
            numpy.random.seed(value % (2 ** 32))
        except Exception as exc:
            faults.part_disabled("numpy seeding", exc)
    lab.set("seed", str(value))
    torch_dir = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
    pid = os.getpid()

    def manual_seed(seed):
        if os.getpid() == pid and "script_reseeds" not in lab.values:
            try:
                caller = sys._getframe(1).f_code.co_filename
                if not os.path.abspath(caller).startswith(torch_dir):
                    lab.set("script_reseeds", "true")
            except Exception:
                pass
        return original(seed)

    functools.update_wrapper(manual_seed, original)
    torch.random.manual_seed = manual_seed
    if getattr(torch, "manual_seed", None) is original:
        torch.manual_seed = manual_seed


def _text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def apply_loader(arguments, defaults, wanted):
    """Changes a DataLoader call's bound arguments (a dict) to the wanted ones; returns
    the changes, as text for `loader_overrides`."""
    def script(name):
        return arguments.get(name, defaults.get(name))

    notes = []
    workers = script("num_workers")
    if "num_workers" in wanted:
        workers = wanted["num_workers"]
        notes.append("num_workers=%d (script: %s)" % (workers, _text(script("num_workers"))))
        arguments["num_workers"] = workers
    if workers == 0:  # torch refuses these without workers
        for name in ("prefetch_factor", "multiprocessing_context"):
            if name in arguments:
                arguments[name] = None
    if "persistent_workers" in wanted or (workers == 0 and script("persistent_workers")):
        persistent = bool(wanted.get("persistent_workers", True)) and workers > 0
        notes.append("persistent_workers=%s (script: %s)"
                     % (_text(persistent), _text(bool(script("persistent_workers")))))
        arguments["persistent_workers"] = persistent
    if "pin_memory" in wanted:
        notes.append("pin_memory=%s (script: %s)"
                     % (_text(wanted["pin_memory"]), _text(bool(script("pin_memory")))))
        arguments["pin_memory"] = wanted["pin_memory"]
    if "batch_size" in wanted:
        size = wanted["batch_size"]
        if script("batch_sampler") is not None:
            notes.append("batch_size=%d not applied (the loader uses a batch_sampler)" % size)
        elif script("batch_size") is None:
            notes.append("batch_size=%d not applied (the loader does not batch)" % size)
        else:
            notes.append("batch_size=%d (script: %s)" % (size, _text(script("batch_size"))))
            arguments["batch_size"] = size
    return ", ".join(notes)


def wrap_loader(lab, torch, wanted):
    """Wraps DataLoader.__init__ (subclasses' super().__init__ included)."""
    import torch.utils.data  # noqa: F401  (the script imported torch, not always this)

    loader_type = torch.utils.data.DataLoader
    original = loader_type.__init__
    signature = inspect.signature(original)
    defaults = {name: p.default for name, p in signature.parameters.items()
                if p.default is not inspect.Parameter.empty}
    pid = os.getpid()

    def __init__(self, *args, **kwargs):
        try:
            if os.getpid() != pid:
                return original(self, *args, **kwargs)
            try:
                bound = signature.bind(self, *args, **kwargs)
            except TypeError:
                return original(self, *args, **kwargs)  # torch says what is wrong
            try:
                notes = apply_loader(bound.arguments, defaults, wanted)
                args, kwargs = bound.args[1:], bound.kwargs
            except Exception as exc:
                faults.part_disabled("loader overrides", exc)
                notes = None
            if notes and "loader_overrides" not in lab.values:
                lab.set("loader_overrides", notes)
            return original(self, *args, **kwargs)
        except BaseException as exc:  # the script's (a bad option of its own)
            faults.leave_out_own_frame(exc)
            raise

    functools.update_wrapper(__init__, original)
    loader_type.__init__ = __init__
