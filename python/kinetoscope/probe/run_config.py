"""What the run is, as the step loop tells the launcher (the `started` message's config):
the loop's mode and device, the feeding DataLoader's settings, the batch, the model and
optimizer found, the lab's figures and the window's note.
"""
import sys


def config_of(loop):
    """The `started` config, strings only; only keys known."""
    config = {"skip": str(loop.skip), "active": str(loop.active)}
    if loop.mode:
        config["mode"] = loop.mode
    if loop.steps_from:
        config["steps_from"] = loop.steps_from
    if loop.device is not None:
        config["device"] = loop.device.type
    loader = loop.loaders.get(loop.src) or loop.loaders.get(loop.last_src) or {}
    config.update(loader)
    if "batch_size" not in config and loop.first_batch_size is not None:
        config["batch_size"] = str(loop.first_batch_size)
    if loop.batches_per_step > 1:
        config["batches_per_step"] = str(loop.batches_per_step)
    model = loop.finder.model
    if model is not None:
        # torch.compile's wrapper (OptimizedModule) is named by the module it compiles
        config["model"] = type(getattr(model, "_orig_mod", model)).__name__
    optimizer = loop.primary() if loop.primary is not None else None
    if optimizer is not None:
        config["optimizer"] = type(optimizer).__name__
    others = sum(1 for other_model in loop.other_optimizers.values() if other_model)
    if others:
        config["other_optimizers"] = str(others)
    if loop.lab is not None:
        config.update(loop.lab.config())
    if loop.window.note:
        config["window"] = loop.window.note
    return config


def loader_config(loader):
    config = {}
    batch_size = getattr(loader, "batch_size", None)
    if isinstance(batch_size, int) and not isinstance(batch_size, bool):
        config["batch_size"] = str(batch_size)
    workers = getattr(loader, "num_workers", None)
    if isinstance(workers, int):
        config["workers"] = str(workers)
    pin = getattr(loader, "pin_memory", None)
    if isinstance(pin, bool):
        config["pin_memory"] = "true" if pin else "false"
    prefetch = getattr(loader, "prefetch_factor", None)
    if isinstance(workers, int) and workers > 0 and isinstance(prefetch, int):
        config["prefetch"] = str(prefetch)
    return config


# Packages whose frames stand between a training loop and its DataLoader: torch's own, the
# probe's, and accelerate's DataLoaderShard, which iterates the loader a loop prepared.
_BETWEEN_LOOP_AND_LOADER = ("torch", "accelerate", "kinetoscope")


def iterating_package(frames_above):
    """The top-level package of the code that iterates a DataLoader, from the frame
    `frames_above` frames above the caller's (the caller of DataLoader.__iter__) up, past
    torch's, accelerate's and the probe's frames: "__main__" for the script's own loop,
    "transformers" for Hugging Face's Trainer (which builds its loaders itself: the advice
    names its TrainingArguments), else the package that runs the loop; None when no frame
    says."""
    try:
        frame = sys._getframe(frames_above + 1)
    except ValueError:  # (called from C with no Python frame above)
        return None
    depth = 0
    while frame is not None and depth < 32:
        name = frame.f_globals.get("__name__")
        if isinstance(name, str) and name:
            package = name.partition(".")[0]
            if package not in _BETWEEN_LOOP_AND_LOADER:
                return package
        frame = frame.f_back
        depth += 1
    return None


def batch_size_of(batch, tensor_type, depth=0):
    """size(0) of the first tensor in a batch (a tensor, or nested tuples/lists/dicts)."""
    if isinstance(batch, tensor_type):
        return int(batch.shape[0]) if batch.dim() > 0 else None
    if depth > 3:
        return None
    if isinstance(batch, dict):
        items = batch.values()
    elif isinstance(batch, (tuple, list)):
        items = batch
    else:
        return None
    for item in items:
        size = batch_size_of(item, tensor_type, depth + 1)
        if size is not None:
            return size
    return None
