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
"""
import os
import warnings

from . import faults


class _NoWarnings(object):
    """Keeps torch.profiler's own warnings ("Profiler clears events at the end of each
    cycle", ...) off the script's stderr. It swaps `warnings.showwarning` for the call
    rather than using catch_warnings, which would reset every "shown once" registry and
    let the script's own warnings show again."""

    def __enter__(self):
        self._saved = warnings.showwarning
        warnings.showwarning = lambda *args, **kwargs: None

    def __exit__(self, *exc):
        warnings.showwarning = self._saved
        return False


def cupti_teardown_wanted(cuda_version, environ):
    """Whether the window should ask Kineto to tear CUPTI down when it stops: unless the
    script's environment already decides (TEARDOWN_CUPTI set either way), on CUDA 12.6 or
    later. Left attached, CUPTI's callbacks slow every later launch (10-20 % of a host-bound
    loop, pytorch#144455), which would bias each measured step after the window; torch
    itself sets "0" where teardown crashes (CUDA graphs before 12.6)."""
    if "TEARDOWN_CUPTI" in environ or not cuda_version:
        return False
    try:
        major, minor = (int(part) for part in cuda_version.split(".")[:2])
    except ValueError:
        return False
    return (major, minor) >= (12, 6)


def teardown_cupti_at_stop(cuda_version, environ):
    """Before a CUDA window's stop (Kineto reads TEARDOWN_CUPTI there): sets it to "1" where
    cupti_teardown_wanted says so at that moment (torch sets "0" when the window starts if
    CUDA graphs need it). It stays set: Kineto re-attaches CUPTI for a later profiler only
    while it is "1" (lazy re-initialisation), so a window the script opens itself after the
    probe's still records the device. `cuda_version`: torch.version.cuda for a CUDA
    window, None for a CPU one."""
    if cuda_version and cupti_teardown_wanted(cuda_version, environ):
        environ["TEARDOWN_CUPTI"] = "1"


class ProfilerWindow(object):
    NAME = "trace.json"

    def __init__(self, torch, options, out_dir):
        self._torch = torch
        self._skip = options.skip
        self._active = options.active
        self._options = options
        self._out_dir = out_dir
        self._prof = None
        self._cuda_version = None  # a CUDA window's torch.version.cuda: CUPTI torn down at its stop
        self.enabled = options.active > 0
        self.written = False

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

    def start(self, step, cuda):
        if not self.enabled or self._prof is not None:
            return
        try:
            profiler = self._torch.profiler
            activities = [profiler.ProfilerActivity.CPU]
            if cuda:
                activities.append(profiler.ProfilerActivity.CUDA)
                self._cuda_version = self._torch.version.cuda
            schedule = self._schedule()
            with _NoWarnings():
                prof = profiler.profile(activities=activities, schedule=schedule,
                                        record_shapes=self._options.record_shapes,
                                        profile_memory=self._options.profile_memory,
                                        with_stack=self._options.with_stack)
                # Count from the run's step so that the trace says ProfilerStep#<step>.
                prof.step_num = step
                prof.current_action = schedule(step)
                self._prof = prof
                prof.start()
        except Exception as exc:
            self._fail(exc)

    def step(self):
        if self._prof is None:
            return
        try:
            with _NoWarnings():
                self._prof.step()
        except Exception as exc:
            self._fail(exc)

    def finish(self):
        """Stops the window and writes trace.json."""
        prof, self._prof = self._prof, None
        if prof is None:
            return
        self.enabled = False  # one window per run
        final = os.path.join(self._out_dir, self.NAME)
        temporary = "%s.tmp-%d" % (final, os.getpid())
        try:
            teardown_cupti_at_stop(self._cuda_version, os.environ)
            with _NoWarnings():
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

    def abandon(self):
        """Stops the window without writing it (the probe is turning off, or the run
        changed from inference to training and the window will be taken again)."""
        prof, self._prof = self._prof, None
        if prof is None:
            return
        try:
            teardown_cupti_at_stop(self._cuda_version, os.environ)
            with _NoWarnings():
                prof.stop()
        except Exception:
            pass

    def restart(self):
        """Allows a new window after abandon() (a mode change restarts the step count)."""
        self.abandon()
        self.enabled = self._active > 0  # the new window's trace replaces any earlier one

    def _fail(self, exc):
        self.enabled = False
        self.abandon()
        faults.part_disabled("profiler window", exc)
