"""What the probe says about the run as a whole: the `started` environment, and how the
script ended (the `done` message's ok/error)."""
import os
import platform
import sys

MAX_ERROR = 300  # characters of done's error line


def environment(torch):
    """The `started` environment, strings only. The device name only when CUDA is
    already initialised: the probe never initialises CUDA itself."""
    version = getattr(torch, "version", None)
    env = {
        "torch": str(getattr(torch, "__version__", "")),
        "python": platform.python_version(),
        "python_executable": sys.executable or "",
        "cuda": str(getattr(version, "cuda", None) or ""),
        "hip": str(getattr(version, "hip", None) or ""),
    }
    try:
        if torch.cuda.is_initialized():
            env["device_name"] = str(torch.cuda.get_device_name(torch.cuda.current_device()))
    except Exception:
        pass
    return env


def outcome(probe_dir):
    """(ok, error) of a script that is exiting. Python sets sys.last_exc (3.12+) or
    sys.last_value when it prints an uncaught exception; SystemExit sets neither."""
    exc = getattr(sys, "last_exc", None) or getattr(sys, "last_value", None)
    if exc is None or isinstance(exc, SystemExit):
        return True, ""
    return False, describe_exception(exc, probe_dir)


def describe_exception(exc, probe_dir):
    """'<ExcType>: <message> (<file>, line <n>, in <function>)' on one line, at most
    MAX_ERROR characters, from the innermost frame in the user's code (not torch, not
    site-packages, not the standard library, not the probe), else the innermost."""
    message = " ".join(str(exc).split())
    head = type(exc).__name__ + (": " + message if message else "")
    where = _user_frame(getattr(exc, "__traceback__", None), probe_dir)
    tail = " (%s, line %d, in %s)" % where if where else ""
    if len(head) + len(tail) > MAX_ERROR:
        head = head[: max(0, MAX_ERROR - len(tail) - 3)] + "..."
    return (head + tail)[:MAX_ERROR]


def _user_frame(tb, probe_dir):
    frames = []
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append((code.co_filename, tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    if not frames:
        return None
    not_users = _library_dirs(probe_dir)
    chosen = frames[-1]
    for filename, line, function in reversed(frames):
        if _is_users(filename, not_users):
            chosen = (filename, line, function)
            break
    return os.path.basename(chosen[0]) or chosen[0], chosen[1], chosen[2]


def _library_dirs(probe_dir):
    dirs = [probe_dir]
    torch = sys.modules.get("torch")
    torch_file = getattr(torch, "__file__", None)
    if torch_file:
        dirs.append(os.path.dirname(torch_file))
    dirs.append(os.path.dirname(os.__file__))  # the standard library
    return [os.path.normcase(os.path.abspath(d)) + os.sep for d in dirs if d]


def _is_users(filename, not_users):
    if not filename or filename.startswith("<"):  # <frozen ...>, <string>
        return False
    path = os.path.normcase(os.path.abspath(filename))
    if "site-packages" in path or "dist-packages" in path:
        return False
    return not any(path.startswith(d) for d in not_users)
