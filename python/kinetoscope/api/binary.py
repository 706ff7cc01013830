"""The `kinetoscope` binary, found and run: every analysis the Python API returns is the
binary's own output (its `--json` and `--csv` commands), never a second implementation.

Where the binary is looked for, in order: $KINETOSCOPE_BIN; `kinetoscope` on PATH; the
source tree's build/bin/kinetoscope when this package is python/kinetoscope in a checkout
(or build/share/kinetoscope/python/kinetoscope, the build's copy of it).
"""
import os
import shutil
import subprocess

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../kinetoscope


class KinetoscopeError(Exception):
    """The binary could not be found or did not succeed: the message is its one line."""

    def __init__(self, message, command=None, returncode=None, stderr=""):
        Exception.__init__(self, message)
        self.message = message
        self.command = command
        self.returncode = returncode
        self.stderr = stderr


class KinetoscopeFileNotFoundError(KinetoscopeError, FileNotFoundError):
    """The path given does not exist (the binary's own line says so)."""


def _candidates():
    yield os.path.join(_PACKAGE_DIR, os.pardir, os.pardir, "build", "bin", "kinetoscope")
    # build/share/kinetoscope/python/kinetoscope -> build/bin/kinetoscope
    yield os.path.join(_PACKAGE_DIR, os.pardir, os.pardir, os.pardir, os.pardir, "bin",
                       "kinetoscope")


def find_binary():
    """The path of the `kinetoscope` binary, or KinetoscopeError saying where it looked."""
    named = os.environ.get("KINETOSCOPE_BIN")
    if named:
        if os.path.isfile(named) and os.access(named, os.X_OK):
            return named
        raise KinetoscopeError("$KINETOSCOPE_BIN names %s, which is not an executable file" % named)
    on_path = shutil.which("kinetoscope")
    if on_path:
        return on_path
    for candidate in _candidates():
        candidate = os.path.normpath(candidate)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise KinetoscopeError(
        "the kinetoscope binary was not found: install Kinetoscope, put `kinetoscope` on PATH "
        "or set $KINETOSCOPE_BIN to it")


def _one_line(stderr, returncode):
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if lines:
        return lines[-1]
    return "kinetoscope exited with status %d and said nothing" % returncode


def run_cli(arguments, binary=None):
    """Runs `kinetoscope ARGUMENTS...`; its stdout (text) on exit 0 (or 1: findings at a
    --fail-on severity are still output), KinetoscopeError with its stderr's last line
    otherwise."""
    binary = binary or find_binary()
    command = [binary] + [os.fspath(a) for a in arguments]
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    except OSError as e:
        raise KinetoscopeError("cannot run %s: %s" % (binary, e), command=command)
    stdout = done.stdout.decode("utf-8", "replace")
    stderr = done.stderr.decode("utf-8", "replace")
    if done.returncode == 0 or (done.returncode == 1 and stdout):
        return stdout
    raise KinetoscopeError(_one_line(stderr, done.returncode), command=command,
                           returncode=done.returncode, stderr=stderr)


def has_display():
    """Whether a desktop window can open here (Linux: X11 or Wayland, or a Qt platform
    named; other systems: assumed)."""
    import sys

    if not sys.platform.startswith("linux"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                or os.environ.get("QT_QPA_PLATFORM"))


def start_app(paths, binary=None):
    """Starts the desktop app on PATHS, detached (its own session, no pipes): the
    subprocess.Popen, or None with a line printed where there is no display."""
    binary = binary or find_binary()
    if not has_display():
        print("kinetoscope: no display here; open it where there is one: kinetoscope %s"
              % " ".join(os.fspath(p) for p in paths))
        return None
    kwargs = {}
    if os.name == "posix":
        kwargs["start_new_session"] = True
    return subprocess.Popen([binary] + [os.fspath(p) for p in paths], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True,
                            **kwargs)
