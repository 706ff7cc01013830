"""The profiler window: torch.profiler over steps skip .. skip+active-1, written to
OUT/trace.json.

Driven by the step loop on the training thread (the profiler's state is thread-local):
`start(step)` as step `skip` begins, `step()` as each later step of the window begins,
`finish()` as the first step after it begins (or at exit, when the script ends inside the
window). A schedule is given so that torch.profiler marks each step with a
`ProfilerStep#N` range; N is the run's own 0-based step (the profiler's step counter
starts at `skip`). The export goes to `trace.json.tmp-<pid>` and is renamed over
`trace.json` (atomic). Any failure turns the window off, says so in one line and leaves
no trace behind; the steps go on being measured.

A process has one profiler session, and the script's own profiler comes first: the window
is not opened under one that is recording, and while the window is open, a profiler the
script starts makes it give way (stopped unwritten, one line) before the script's begins.
Both torch.profiler.profile and torch.autograd.profiler.profile begin with autograd's
`profile._prepare_trace`: the window wraps that method while it is open, and only then.
"""
import _thread
import functools
import os
import sys
import threading
import warnings
import weakref
from threading import get_ident

from . import faults, forkexit, kineto_log


class _NoWarnings(object):
    """Keeps torch.profiler's own warnings ("Profiler clears events at the end of each
    cycle", ...) off the script's stderr, and leaves the script's as they were:
    - it swaps `warnings.showwarning` for the call rather than using catch_warnings, which
      would reset every "shown once" registry and let the script's own warnings show
      again; the stand-in drops this thread's warnings only (another thread of the
      script's may warn meanwhile: shown as ever);
    - torch.profiler shows some warnings once a process (its `_WARNINGS_SHOWN`, and
      Python's registry of what its module has shown): what the window's calls add there
      is taken out again, so that a profiler of the script's own still shows them."""

    def __enter__(self):
        saved = self._saved = warnings.showwarning
        mine = get_ident()

        def showwarning(*args, **kwargs):
            if get_ident() != mine:
                return saved(*args, **kwargs)
            return None

        warnings.showwarning = showwarning
        self._module = sys.modules.get("torch.profiler.profiler")
        self._before = [set(self._marks(name)) for name in self._MARKS]

    # What torch.profiler marks a warning shown with: its own set, and the registry Python
    # keeps in the module's globals (made at its first warning).
    _MARKS = ("_WARNINGS_SHOWN", "__warningregistry__")

    def _marks(self, name):
        marks = getattr(self._module, name, None)
        return marks if isinstance(marks, (set, dict)) else ()

    def __exit__(self, *exc):
        warnings.showwarning = self._saved
        for name, before in zip(self._MARKS, self._before):
            marks = self._marks(name)
            for key in [key for key in marks if key not in before and key != "version"]:
                if isinstance(marks, dict):
                    del marks[key]
                else:
                    marks.discard(key)
        return False


class _ThreadEndCloser(object):
    """Kept in a thread-local of the window's thread when that is not the main thread (a
    script that trains on a thread of its own). When the thread ends inside the window,
    Python clears its thread-locals on it, before a join() of it returns, and this writes
    the window there. The profiler's session belongs to the thread that started it: the
    main thread's atexit could not stop it ("Can't disable Kineto profiler when it's not
    running": no trace, and torch's complaints about leaked callbacks on stderr)."""

    __slots__ = ("window",)

    def __init__(self, window):
        self.window = window  # (only the thread-local holds this object)

    def __del__(self):
        window, self.window = self.window, None
        if window is not None and window.open and window.thread == get_ident():
            try:
                window.finish()
            except Exception:
                pass


def _script_profiles_python():
    """Whether the script has a Python profile function of its own (cProfile, a tracer
    set with sys.setprofile or threading.setprofile). torch.profiler's with_stack takes the
    interpreter's profile slot for the window and empties it at the stop: the script's
    profiler would stop seeing calls for the rest of the run."""
    return sys.getprofile() is not None or getattr(threading, "_profile_hook", None) is not None


def _takes_acc_events(profile_type):
    """Whether torch.profiler.profile has acc_events (torch >= 2.4)."""
    try:
        import inspect

        return "acc_events" in inspect.signature(profile_type.__init__).parameters
    except (TypeError, ValueError):
        return False


class ProfilerWindow(object):
    NAME = "trace.json"

    def __init__(self, torch, options, out_dir):
        self._torch = torch
        self._skip = options.skip
        self._active = options.active
        self._options = options
        self._out_dir = out_dir
        self._prof = None
        self._unguard = None  # restores autograd's profile while the window may still open
        self._script_prepared = None  # weakref: a profiler of the script's, prepared, not exited
        self.thread = None  # the thread that opened it (its profiler session is that thread's)
        self._thread_end = None  # a _thread._local holding a _ThreadEndCloser (not main)
        self.enabled = options.active > 0
        self.written = False
        # Why the window was not taken, for the session (config "window"); `news` until
        # the step loop has sent it.
        self.note = None
        self.news = False
        if self.enabled:
            self._watch()

    @property
    def open(self):
        return self._prof is not None

    def _schedule(self):
        action = self._torch.profiler.ProfilerAction
        first, last = self._skip, self._skip + self._active - 1

        def schedule(step):  # step: the run's own step number (see start)
            if step < first or step > last:
                return action.NONE
            return action.RECORD_AND_SAVE if step == last else action.RECORD

        return schedule

    def script_profiler_running(self):
        """Whether a profiler of the script's own is recording now. There is one profiler
        session a process: a window opened under it, or stopped inside it, would end the
        script's, whose own stop then raises ("Can't disable Kineto profiler when it's not
        running") and fails the run."""
        enabled = getattr(self._torch.autograd, "_profiler_enabled", None)
        if enabled is not None and enabled():
            return True
        # Prepared, not recording yet: a schedule's warm-up prepares Kineto steps before it
        # records (the window opened then took its session, and the script's stop raised).
        prepared = self._script_prepared
        return prepared is not None and prepared() is not None

    def start(self, step, cuda):
        if not self.enabled or self._prof is not None:
            return
        if self.script_profiler_running():
            self.enabled = False
            self._unwatch()
            self._tell("not opened: the script's own profiler was on (recording, or in its warm-up)")
            faults.say("profiler window skipped (the script's own profiler is on: "
                       "one profiler at a time); the steps after it are measured")
            return
        try:
            profiler = self._torch.profiler
            activities = [profiler.ProfilerActivity.CPU]
            if cuda:
                activities.append(profiler.ProfilerActivity.CUDA)
            schedule = self._schedule()
            with_stack = self._options.with_stack
            if with_stack and _script_profiles_python():
                with_stack = False
                self._tell("without Python stacks: the script's own Python profiler "
                           "(sys.setprofile) is running")
            kwargs = dict(activities=activities, schedule=schedule,
                          record_shapes=self._options.record_shapes,
                          profile_memory=self._options.profile_memory,
                          with_stack=with_stack)
            if _takes_acc_events(profiler.profile):
                # The window is one cycle, so keeping events across cycles changes nothing;
                # without it torch warns that it does not (a warning the script's "error"
                # filter, a strict test suite's, made an exception: the window was lost).
                kwargs["acc_events"] = True
            with _NoWarnings(), kineto_log.Quiet(self._torch):
                prof = profiler.profile(**kwargs)
                # Count from the run's step so that the trace says ProfilerStep#<step>.
                prof.step_num = step
                prof.current_action = schedule(step)
                self._prof = prof
                prof.start()
            forkexit.arm()  # Kineto's config thread runs from here on
            self._close_at_thread_end()
        except Exception as exc:
            self._fail(exc)

    def forget_in_forked_child(self):
        """In a child forked while the window is open (a DataLoader worker first iterated
        inside it, os.fork): the forking thread's profiler session came with it, and
        recorded every op the child ran for its whole life (a persistent worker grew by
        ~200 MB a dozen steps, and ran slower). The session is ended unwritten (its events
        are the parent's) and the window forgotten. Only for a window on the CPU: ending a
        CUDA one calls CUPTI, which a forked child must not (not checked on a GPU yet)."""
        if self._prof is None or self.thread != get_ident():
            return  # (forked from another thread: the session is not this thread's)
        activities = getattr(self._prof, "activities", None)
        cpu_only = (activities is not None
                    and self._torch.profiler.ProfilerActivity.CUDA not in activities)
        self._close()
        if cpu_only:
            try:
                with kineto_log.Quiet(self._torch):
                    self._torch._C._autograd._disable_profiler()
            except Exception:
                pass

    def _close_at_thread_end(self):
        self.thread = get_ident()
        if self.thread == threading.main_thread().ident:
            return  # the main thread's window closes at the step loop or at exit
        local = _thread._local()
        local.closer = _ThreadEndCloser(self)  # this thread's slot: cleared as it ends
        self._thread_end = local

    def _guard(self):
        """Wraps autograd's profile._prepare_trace and __exit__ until the window is done
        (_unwatch). A profiler of the script's that prepares is known until it exits, so the
        window never opens under it (script_profiler_running); one the script starts while
        the window is open makes the window give way first. The wrappers call the originals
        whatever happens in ours, and an error of theirs goes on without our frames in its
        traceback (faults.leave_out_own_frame)."""
        profile_type = self._torch.autograd.profiler.profile
        original_prepare = profile_type.__dict__["_prepare_trace"]
        original_exit = profile_type.__dict__["__exit__"]
        window = self

        @functools.wraps(original_prepare)
        def _prepare_trace(profiler, *args, **kwargs):
            prof = window._prof
            if profiler is not getattr(prof, "profiler", None):
                try:
                    window._script_prepared = weakref.ref(profiler)
                except TypeError:
                    pass
                if prof is not None:
                    window.give_way()
            try:
                return original_prepare(profiler, *args, **kwargs)
            except BaseException as exc:  # (torch's own error, as in the bare run)
                faults.leave_out_own_frame(exc)
                raise

        @functools.wraps(original_exit)
        def __exit__(profiler, *args, **kwargs):
            prepared = window._script_prepared
            if prepared is not None and prepared() is profiler:
                window._script_prepared = None
            try:
                return original_exit(profiler, *args, **kwargs)
            except BaseException as exc:
                faults.leave_out_own_frame(exc)
                raise

        def unguard():
            # (wrapped again by someone after us: ours stays, inert once the window is done)
            if profile_type.__dict__.get("_prepare_trace") is _prepare_trace:
                profile_type._prepare_trace = original_prepare
            if profile_type.__dict__.get("__exit__") is __exit__:
                profile_type.__exit__ = original_exit

        profile_type._prepare_trace = _prepare_trace
        profile_type.__exit__ = __exit__
        self._unguard = unguard

    def _watch(self):
        if self._unguard is None:
            try:
                self._guard()
            except Exception as exc:  # (the window still opens, unguarded)
                faults.pass_on_scripts(exc)

    def _unwatch(self):
        """The window is done (written, given up, failed, not opened): the wrappers go."""
        unguard, self._unguard = self._unguard, None
        self._script_prepared = None
        if unguard is not None:
            try:
                unguard()
            except Exception as exc:
                faults.pass_on_scripts(exc)

    def give_way(self):
        """The script is starting its own profiler inside the window: stop the window
        unwritten, so that the script's session begins on its own and is not ended by
        the window's stop (its own stop would then raise and fail the run)."""
        self.enabled = False
        self.abandon()
        self._unwatch()
        self._tell("given up: the script started its own profiler inside it")
        faults.say("profiler window given up: the script started its own profiler (one "
                   "profiler at a time; --skip and --active place the window elsewhere); "
                   "no trace.json, the steps after the window are measured as always")

    def _tell(self, note):
        self.note = note
        self.news = True

    def _close(self):
        """Forgets the open profiler; returns it."""
        prof, self._prof = self._prof, None
        self._thread_end = None  # (its closer runs now, on this thread: the window is closed)
        return prof

    def step(self):
        if self._prof is None:
            return
        try:
            with _NoWarnings(), kineto_log.Quiet(self._torch):
                self._prof.step()
        except Exception as exc:
            self._fail(exc)

    def finish(self):
        """Stops the window and writes trace.json."""
        prof = self._close()
        if prof is None:
            return
        self.enabled = False  # one window per run
        self._unwatch()
        final = os.path.join(self._out_dir, self.NAME)
        temporary = "%s.tmp-%d" % (final, os.getpid())
        try:
            with _NoWarnings(), kineto_log.Quiet(self._torch):
                prof.stop()
                prof.export_chrome_trace(temporary)
            os.replace(temporary, final)
            self.written = True
        except Exception as exc:
            faults.part_disabled("profiler window", exc)
            try:
                os.unlink(temporary)
            except OSError:
                pass
            faults.pass_on_scripts(exc)

    def abandon(self, for_good=False):
        """Stops the window without writing it (the probe is turning off: `for_good`; or
        the run changed from inference to training and the window will be taken again)."""
        if for_good:
            self.enabled = False
            self._unwatch()
        prof = self._close()
        if prof is None:
            return
        try:
            with _NoWarnings(), kineto_log.Quiet(self._torch):
                prof.stop()
        except Exception as exc:
            faults.pass_on_scripts(exc)  # (a stop that fails: nothing to keep)

    def restart(self):
        """Allows a new window after abandon() (a mode change restarts the step count)."""
        self.abandon()
        self.enabled = self._active > 0  # the new window's trace replaces any earlier one
        if self.enabled:
            self._watch()

    def _fail(self, exc):
        self.enabled = False
        try:
            self.abandon(for_good=True)
            faults.part_disabled("profiler window", exc)
        finally:
            faults.pass_on_scripts(exc)  # the script's own (faults)
