"""The probe's threads, out of the script's sight.

They are started with _thread, not threading: threading.enumerate(), active_count() and a
script that joins every thread but its own at exit (which would wait on the probe's
forever) see only the script's. Like daemon threads they never hold up the interpreter's
exit. Their code must not call threading.current_thread() (it would register a stand-in
Thread, visible again); Event, Condition and Lock are fine. An exception that escapes one
is swallowed: it would print "Unhandled exception in thread started by ..." on the
script's stderr.
"""
import _thread


def start(target):
    """Runs `target()` on a new thread; raises what _thread raises when none can start."""
    _thread.start_new_thread(_run, (target,))


def _run(target):
    try:
        target()
    except BaseException:  # (SystemExit included: a thread's end is ours to make quiet)
        pass
