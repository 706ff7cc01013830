"""What the lab's session says about its run: the environment (torch, Python, the device,
the CPU's bf16 units) and the configuration (the model, optimizer, loss and loader as
given), strings only, under the keys the app reads (core/engine's lab writes the same
environment keys: "device" is "CPU" or the GPU's name, "cpu_bf16" on the CPU)."""
import os
import platform
import sys


def cpu_bf16_units():
    """What the engine writes as environment["cpu_bf16"]: the CPU's bf16 matrix units."""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("flags"):
                    flags = line.split()
                    for flag in ("amx_bf16", "avx512_bf16"):
                        if flag in flags:
                            return flag
                    return "none"
    except OSError:
        pass
    return "unknown"


def environment(torch, device):
    """The session's "environment"."""
    env = {
        "torch": str(torch.__version__),
        "python": platform.python_version(),
        "python_executable": sys.executable or "",
        "cuda": str(getattr(torch.version, "cuda", None) or ""),
        "cuda_available": "yes" if torch.cuda.is_available() else "no",
        "host_threads": str(os.cpu_count() or 0),
        "torch_threads": str(torch.get_num_threads()),
    }
    if device.type == "cuda":
        env["device"] = torch.cuda.get_device_name(device)
        env["device_memory_bytes"] = str(torch.cuda.get_device_properties(device).total_memory)
    elif device.type == "cpu":
        env["device"] = "CPU"
        env["cpu_bf16"] = cpu_bf16_units()
    else:
        env["device"] = str(device)
    return env


def config(lab, arms, loader, compile_mode):
    """The session's "config": `lab` is the runner (device, steps, warm-up, seed, the
    model's and optimizer's names, the arms that ran)."""
    config = {
        "kind": "python",
        "mode": "train",
        "device": str(lab.device),
        "steps": str(lab.steps),
        "warmup": str(lab.warmup),
        "seed": str(lab.seed),
        "arms": ",".join(arms),
    }
    if "bf16+compile" in arms:
        config["compile_mode"] = compile_mode or "default"
    config.update(lab.identity)
    batch = next((arm.batch_size for arm in lab.ran_arms if arm.batch_size), 0)
    if batch:
        config["batch_size"] = str(batch)
    dataset = getattr(loader, "dataset", None)
    if dataset is not None:
        config["dataset"] = type(dataset).__name__
    for key, attribute in (("workers", "num_workers"), ("pin_memory", "pin_memory"),
                           ("prefetch", "prefetch_factor")):
        value = getattr(loader, attribute, None)
        if value is not None:
            config[key] = str(value).lower() if isinstance(value, bool) else str(value)
    return config
