"""The probe's only output of its own: one line on the script's stderr when a part of it
turns itself off. Everything else the probe says goes to the launcher's socket."""
import os


def one_line(exc, limit=200):
    """'ExcType: message' on one line, at most `limit` characters."""
    message = " ".join(str(exc).split())
    text = type(exc).__name__ + (": " + message if message else "")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def say(text):
    """Writes 'kinetoscope probe: <text>' to fd 2 in one write. Not sys.stderr: the script
    may have replaced it (a logger, a file) and its stderr is its own."""
    try:
        line = "kinetoscope probe: " + " ".join(str(text).split()) + "\n"
        os.write(2, line.encode("utf-8", "replace"))
    except Exception:
        pass


def part_disabled(part, exc):
    say("%s disabled (%s)" % (part, one_line(exc)))
