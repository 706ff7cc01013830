"""Kinetoscope's entry into a profiled script.

`kinetoscope profile -- python train.py` puts this folder first on PYTHONPATH, so Python's
`site` imports this module at start-up, before the script. It

1. chains to the `sitecustomize` the environment already had (if any), as if we were not
   here: an error in it is reported exactly as `site` reports one, and start-up goes on;
2. does nothing else at all (no torch, no thread, no file) unless KINETOSCOPE_PROBE_OWNER
   is not set (a process the profiled script starts inherits the environment with OWNER
   set, and so stays dormant) and either KINETOSCOPE_PROBE_FD is set (the launcher's
   socket) or KINETOSCOPE_PROBE_JOB is and this process is a rank of a distributed job
   (job mode, kinetoscope/probe/ranks.py): RANK or SLURM_PROCID is set and it is not
   torchrun's own agent (`torchrun`, `python -m torch.distributed.run` or `.launch`,
   which has SLURM_PROCID under srun; without srun it has no rank);
3. when active, appends `<kinetoscope>/python` to the END of sys.path, starts
   `kinetoscope.probe` and takes the folder off again. Any fault of ours is one line on
   stderr, "kinetoscope probe: disabled (<reason>)", and the script runs on unharmed.

Either way this folder is left off sys.path, and `import sitecustomize` gives the
environment's own module when it has one.

Python >= 3.9; the standard library only.
"""
import os
import sys

_BOOT_DIR = os.path.dirname(os.path.abspath(__file__))


def _say_disabled(reason):
    # fd 2 directly: the script has not started yet, but keep to one write of one line.
    try:
        os.write(2, ("kinetoscope probe: disabled (%s)\n" % " ".join(str(reason).split())).encode(
            "utf-8", "replace"))
    except Exception:
        pass


def _same_dir(entry):
    try:
        return os.path.abspath(entry or os.curdir) == _BOOT_DIR
    except Exception:
        return False


def _chain():
    """Import the next `sitecustomize` on the path (ours hides it). This folder stays off
    sys.path (the script's sys.path is as without us), and the other module, if there is
    one, is what `import sitecustomize` gives the script from then on, as without us (the
    import machinery allows the replacement during our own import; with none, ours stays:
    taking it out then would fail our import)."""
    ours = sys.modules.get("sitecustomize")
    sys.path[:] = [p for p in sys.path if not _same_dir(p)]
    sys.modules.pop("sitecustomize", None)
    try:
        # Exactly what site.execsitecustomize() does, so an error in the other module reads
        # as it would have without us; a BaseException (SystemExit) still propagates.
        try:
            import sitecustomize  # noqa: F401  (the environment's own one)
        except ImportError as exc:
            if exc.name != "sitecustomize":
                raise
    except Exception as err:
        if sys.flags.verbose:
            sys.excepthook(*sys.exc_info())
        else:
            sys.stderr.write("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n"
                             "%s: %s\n" % (err.__class__.__name__, err))
    finally:
        if ours is not None and "sitecustomize" not in sys.modules:
            sys.modules["sitecustomize"] = ours


_LAUNCHERS = ("torch.distributed.run", "torch.distributed.launch")
_LAUNCHER_FILES = ("torch/distributed/run.py", "torch/distributed/launch.py")


def _command_line():
    """The interpreter's own arguments (sys.argv[0] is only "-m" while site runs)."""
    argv = getattr(sys, "orig_argv", None)  # Python >= 3.10
    if argv is None:
        try:
            with open("/proc/self/cmdline", "rb") as f:
                argv = [a.decode("utf-8", "replace") for a in f.read().split(b"\0")[:-1]]
        except Exception:
            argv = []
    return argv


def _main_module(argv):
    """The module of `python [options] -m MODULE ...`, else "" (CPython's option syntax:
    flags may be grouped, and -c, -m, -W, -X take the rest of the word or the next one)."""
    words = iter(argv[1:])
    for word in words:
        if word == "--check-hash-based-pycs":
            next(words, None)
            continue
        if not word.startswith("-") or word in ("-", "--") or word.startswith("--"):
            return ""  # the script (or stdin): no module
        for index in range(1, len(word)):
            flag = word[index]
            if flag in "cmWX":
                value = word[index + 1:] or next(words, "")
                if flag in "cm":
                    return value if flag == "m" else ""
                break
    return ""


def _is_torchrun_agent():
    program = sys.argv[0] if sys.argv else ""
    if os.path.basename(program).endswith("torchrun"):
        return True
    if program.replace(os.sep, "/").endswith(_LAUNCHER_FILES):
        return True
    return _main_module(_command_line()) in _LAUNCHERS


def _wanted():
    environ = os.environ
    if "KINETOSCOPE_PROBE_OWNER" in environ:
        return False
    if environ.get("KINETOSCOPE_PROBE_FD"):
        return True
    if not environ.get("KINETOSCOPE_PROBE_JOB"):
        return False
    if not (environ.get("RANK", "").strip() or environ.get("SLURM_PROCID", "").strip()):
        return False  # no rank: torchrun's agent (its workers have RANK), a plain run
    return not _is_torchrun_agent()


def _activate():
    if not _wanted():
        return
    python_dir = os.path.dirname(_BOOT_DIR)
    added = python_dir not in sys.path
    try:
        if added:
            sys.path.append(python_dir)
        import kinetoscope.probe as probe
        where = os.path.dirname(os.path.abspath(getattr(probe, "__file__", "") or ""))
        if os.path.dirname(os.path.dirname(where)) != python_dir:
            raise RuntimeError("another 'kinetoscope' package on the path hides the probe (%s)" % where)
        probe.start()
    except Exception as exc:
        _say_disabled("%s: %s" % (type(exc).__name__, exc))
    finally:
        # The package is imported: its later imports go through its own __path__, and the
        # script's sys.path is as it would be without us.
        if added and python_dir in sys.path:
            sys.path.remove(python_dir)


_chain()
_activate()
