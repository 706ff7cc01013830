"""A child forked after the profiler ran in this process exits instead of hanging.

The first profiler session of a process starts Kineto's config thread, which waits on a
condition variable for the rest of the process's life. A child forked after that (os.fork,
a fork-started multiprocessing.Process that returns normally) has the variable's waiter
count but not the thread: at the child's exit, the destructor of Kineto's config loader
(a C++ static) waits on it forever (pthread_cond_destroy). The script's own profiler does
the same to it; the probe's window must not, so from the window's first start, every child
forked afterwards skips the C-level exit work that hangs:

- At the child's fork, an atexit handler is registered (Python's own exit work: the
  script's atexit handlers, buffered files, flushing sys.stdout, is done as always).
- Inside the interpreter's finalisation that handler flushes C stdio (what a C extension
  printed) and registers glibc's on_exit(_exit): the last exit handler registered, so the
  first run, it ends the process with the status exit() was given (sys.exit(7): 7) before
  the C++ static destructors run (the hanging one among them).

A child that ends by os._exit (DataLoader workers, multiprocessing's) never gets that far.
Off glibc (no on_exit) nothing is done and the child hangs as it would under the script's
own profiler.
"""
import atexit
import os

_armed = False


def arm():
    """Called once the window has started a profiler (Kineto is initialised from then on).
    Idempotent; never raises."""
    global _armed
    if _armed or not hasattr(os, "register_at_fork"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        on_exit, fflush, exit_now = libc.on_exit, libc.fflush, libc._exit
    except (OSError, AttributeError):
        return  # not glibc
    on_exit.argtypes = (ctypes.c_void_p, ctypes.c_void_p)
    fflush.argtypes = (ctypes.c_void_p,)
    exit_address = ctypes.cast(exit_now, ctypes.c_void_p)

    def at_exit_of_child():
        fflush(None)
        on_exit(exit_address, None)  # called as _exit(status, NULL): the NULL is ignored

    def in_child():
        atexit.register(at_exit_of_child)

    os.register_at_fork(after_in_child=in_child)
    _armed = True
