"""Kinetoscope's entry into a profiled script.

`kinetoscope profile -- python train.py` puts this folder first on PYTHONPATH, so Python's
`site` imports this module at start-up, before the script. It

1. chains to the `sitecustomize` the environment already had (if any), as if we were not
   here: an error in it is reported exactly as `site` reports one, and start-up goes on;
2. does nothing else at all (no torch, no thread, no file) unless KINETOSCOPE_PROBE_FD is
   set and KINETOSCOPE_PROBE_OWNER is not (a process the profiled script starts inherits
   the environment with OWNER set, and so stays dormant);
3. when active, appends `<kinetoscope>/python` to the END of sys.path and starts
   `kinetoscope.probe`. Any fault of ours is one line on stderr,
   "kinetoscope probe: disabled (<reason>)", and the script runs on unharmed.

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
    """Import the next `sitecustomize` on the path (ours hides it), then restore ours."""
    ours = sys.modules.get("sitecustomize")
    removed = [(i, p) for i, p in enumerate(sys.path) if _same_dir(p)]
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
        # sys.path as the other module left it, with our folder back where it was.
        for index, entry in removed:
            sys.path.insert(min(index, len(sys.path)), entry)
        if ours is not None:
            sys.modules["sitecustomize"] = ours


def _activate():
    if not os.environ.get("KINETOSCOPE_PROBE_FD") or "KINETOSCOPE_PROBE_OWNER" in os.environ:
        return
    try:
        python_dir = os.path.dirname(_BOOT_DIR)
        if python_dir not in sys.path:
            sys.path.append(python_dir)
        import kinetoscope.probe as probe
        where = os.path.dirname(os.path.abspath(getattr(probe, "__file__", "") or ""))
        if os.path.dirname(os.path.dirname(where)) != python_dir:
            raise RuntimeError("another 'kinetoscope' package on the path hides the probe (%s)" % where)
        probe.start()
    except Exception as exc:
        _say_disabled("%s: %s" % (type(exc).__name__, exc))


_chain()
_activate()
