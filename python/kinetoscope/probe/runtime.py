"""The probe in one process: activation (before the script), arming (when the script
imports torch), and the end (atexit).

Activation: the channel (the launcher's socket; in job mode the rank's stream file,
ranks.py), `hello`, KINETOSCOPE_PROBE_OWNER (so that every process the script starts
stays dormant), a fork handler (a forked child closes its copy of the channel and never
says anything), the `done` atexit handler, the torch-import hook.
Arming: `started`, the hooks, the profiler window, CUDA's memory history and samples from
CUDA's first use, an atexit handler that closes the window before torch's own handlers run.
End: `done`, last, once, from the main process only.
"""
import atexit
import os
import sys
import time

from . import faults, options as options_module, report
from .arming import TorchImportHook
from .descriptor import inherited

PROTOCOL = 4


class Probe(object):
    """`make_channel(on_cancel, on_lost)` gives the channel (channel.Channel,
    filechannel.FileChannel); `job` (ranks.Job) and `rank` (ranks.Rank) in job mode."""

    def __init__(self, make_channel, out_dir, options, probe_dir, job=None, rank=None):
        self.options = options
        self.job = job
        self.rank = rank
        self.out_dir = out_dir
        self.probe_dir = probe_dir  # .../python: frames here are not the user's
        self.pid = os.getpid()
        self.t0 = time.monotonic()  # samples' seconds count from here
        self.live = True
        self.stopped_by = ""  # why the probe stopped the script (SystemExit), if it did
        self.cancel_by = None  # a cancel heard (reader thread)
        self.cancel_at = 0  # the step count at which a cancel stops the script (job mode)
        self.done_sent = False
        self.loop = None
        self.window = None
        self.cuda_memory = None
        self.sampler = None
        self.snapshot = None
        self.lab = None  # arms.Lab: the lab's options (arm, seed, loader), when given
        self._torch = None
        self.channel = make_channel(self._on_cancel, self._on_lost)

    # -- activation -------------------------------------------------------------------------
    def activate(self):
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._in_forked_child)
        hello = {"type": "hello", "protocol": PROTOCOL, "pid": self.pid}
        if self.rank is not None:
            hello["rank"] = self.rank.rank
        self.send(hello)
        atexit.register(self._at_exit_done)
        self._wrap_os_exit()
        TorchImportHook(self._arm_guarded).install()

    def _wrap_os_exit(self):
        """os._exit skips atexit: the messages posted in the last FLUSH_S are sent first
        (no done: the script did not end normally). A forked child's channel is closed, so
        a DataLoader worker's os._exit is the original call and nothing more."""
        original = os._exit
        channel = self.channel

        def _exit(status):
            try:
                channel.flush_now()
            except Exception:
                pass
            original(status)

        _exit.__doc__ = original.__doc__
        _exit.__wrapped__ = original
        os._exit = _exit

    def send(self, message):
        """A rare message (a dict), sent at once."""
        if self.live:
            self.channel.send(message)

    def post(self, line):
        """A frequent message (one JSON line), sent within outbox.FLUSH_S."""
        if self.live:
            self.channel.post(line)

    def _in_forked_child(self):
        # A DataLoader fork worker, os.fork(): this process is not the probed one. Only
        # plain attributes here: the parent's threads do not exist in the child and a lock
        # one of them held at the fork would never be released.
        self.live = False
        if self.loop is not None:
            self.loop.go_inert()
            self.loop.window.forget_in_forked_child()
        self.channel.abandon()

    def _on_lost(self):
        # The launcher is gone (or stopped reading): turn off silently, never block.
        self.live = False
        if self.loop is not None:
            self.loop.turn_off(on_training_thread=False)
        if self.sampler is not None:
            self.sampler.stop()

    def _on_cancel(self, by):
        if self.job is not None:  # every rank stops at the same step (ranks.py)
            self.cancel_at = self.job.stop_step(self._stop_proposal)
            if self.loop is not None:
                self.loop.cancel_at = self.cancel_at  # before cancel_by: end() reads both
        self.cancel_by = by  # kept for a loop not armed yet
        if self.loop is not None:
            self.loop.cancel_by = by  # a step boundary (the next, or cancel_at's) stops
            # the script: SystemExit(0)

    def _stop_proposal(self):
        from .ranks import stop_proposal

        loop = self.loop
        if loop is None:
            return stop_proposal(0, 0.0)
        return stop_proposal(loop.step, loop.wall_s * 1e3)

    def stop(self, by):
        """Ends the script cleanly from a step boundary (--steps reached, a cancel)."""
        self.stopped_by = by
        raise SystemExit(0)

    # -- arming -----------------------------------------------------------------------------
    def _arm_guarded(self):
        if not self.live or os.getpid() != self.pid:
            return
        try:
            self._arm()
        except Exception as exc:
            faults.say("disabled (%s)" % faults.one_line(exc))
            if self.loop is not None:
                self.loop.turn_off(on_training_thread=True)

    def _arm(self):
        import torch

        from . import arms, clocks, hooks, memory, samples, steps, window

        self._torch = torch
        self.send_started({"skip": str(self.options.skip), "active": str(self.options.active)})
        self.lab = arms.create(self, torch)
        self.window = window.ProfilerWindow(torch, self.options, self.out_dir)
        self.cuda_memory = memory.CudaMemory(torch)
        self.loop = steps.Loop(self, torch, clocks)
        self.loop.cancel_at = self.cancel_at
        self.loop.cancel_by = self.cancel_by
        self.sampler = samples.Sampler(torch, self.cuda_memory, self.post, self.options.sample_rate,
                                       self.t0, self.loop.cuda_index)
        if self.options.memory_snapshot:
            self.snapshot = memory.Snapshot(torch, self.out_dir)
        hooks.install(self.loop, torch)
        self._hooks = hooks
        if self.lab is not None:
            self.lab.install(self.loop)  # seeds now, before the script's code goes on
        # Registered after torch's own atexit handlers: runs before them.
        atexit.register(self._at_exit_torch)
        self._when_cuda_starts(self._on_cuda)

    def _when_cuda_starts(self, callback):
        cuda = self._torch.cuda
        if cuda.is_initialized():
            callback()
        elif hasattr(cuda, "_lazy_call"):
            cuda._lazy_call(callback)  # run by torch's CUDA initialisation
        # (no _lazy_call: a torch without it gets no samples and no snapshot)

    def _on_cuda(self):
        # Inside torch's CUDA initialisation: must never raise (the script would get it).
        try:
            if not self.live or os.getpid() != self.pid:
                return
            if self.snapshot is not None:
                self.snapshot.start()
            self.sampler.start()
        except Exception as exc:
            faults.part_disabled("samples", exc)

    def send_started(self, config):
        environment = report.environment(self._torch) if self._torch is not None else {}
        if self.rank is not None:
            config = dict(self.rank.config(), **config)
        self.send({"type": "started", "session": "", "config": config, "environment": environment})

    def wrap_marker_function(self):
        try:
            return self._hooks.wrap_marker_function(self.loop)
        except Exception as exc:
            faults.part_disabled("step marker", exc)
            return True  # do not try again

    # -- the end ----------------------------------------------------------------------------
    def _at_exit_torch(self):
        if os.getpid() != self.pid:
            return
        if self.sampler is not None:
            self.sampler.stop()
        if self.loop is not None:
            try:
                self.loop.finish_at_exit()
            except Exception as exc:
                faults.part_disabled("step timing", exc)
        if self.live and self.snapshot is not None:
            self.snapshot.dump_at_exit()

    def _at_exit_done(self):
        if os.getpid() != self.pid or self.done_sent:
            return
        self.done_sent = True
        if not self.live:
            return
        if self.lab is not None:
            try:
                self.lab.at_exit()
                if self.lab.dirty:
                    self.send_started(self.lab.config())
            except Exception as exc:
                faults.part_disabled("arm", exc)
        try:
            ok, error = report.outcome(self.probe_dir)
        except Exception as exc:
            ok, error = True, ""
            faults.part_disabled("exit report", exc)
        self.send({"type": "done", "ok": ok, "error": error, "session": "", "by": self.stopped_by})
        self.channel.close(timeout=5.0)


def start():
    """Called by python/boot/sitecustomize.py when KINETOSCOPE_PROBE_FD is set, or
    KINETOSCOPE_PROBE_JOB is and this process is a rank (job mode, ranks.py), and
    KINETOSCOPE_PROBE_OWNER is not. Raises on a bad environment (the caller says
    'kinetoscope probe: disabled (...)')."""
    environ = os.environ
    text = environ.get("KINETOSCOPE_PROBE_FD", "")
    job = rank = None
    if text:
        out_dir = os.path.abspath(environ.get("KINETOSCOPE_PROBE_OUT") or os.curdir)
        options_text = environ.get("KINETOSCOPE_PROBE_OPTIONS", "")
        signals_text = environ.get("KINETOSCOPE_PROBE_SIGNALS", "")
        _hide_from_the_script(environ)  # first: a failed start leaves none of it either
        fd = inherited(text, "KINETOSCOPE_PROBE_FD")
        if fd is None:
            return None  # not the launcher's child (its socket is not here): dormant
        if signals_text:
            try:
                from . import signal_report

                signal_report.install(signals_text)
            except Exception as exc:  # the launcher passes every signal on, as before
                faults.part_disabled("signal report", exc)
    else:
        from .ranks import Job, Rank

        # This rank owns the probe from here, even if it fails to start: its workers
        # (which inherit the rank's variables) stay dormant, and a failure is said once.
        environ["KINETOSCOPE_PROBE_OWNER"] = str(os.getpid())
        rank = Rank(environ)
        job = Job(environ.get("KINETOSCOPE_PROBE_JOB", ""), rank.rank)
        out_dir = job.rank_dir
        options_text = environ.get("KINETOSCOPE_PROBE_OPTIONS", "")
    options = options_module.parse(options_text)
    probe_dir = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if job is None:
        from .channel import Channel

        def make_channel(on_cancel, on_lost):
            return Channel(fd, on_cancel, on_lost)
    else:
        from .filechannel import FileChannel

        stream = job.open_stream()  # last: nothing is created when the options are bad

        def make_channel(on_cancel, on_lost):
            return FileChannel(stream, job.cancel_path, on_cancel, on_lost)
    probe = Probe(make_channel, out_dir, options, probe_dir, job, rank)
    probe.activate()
    sys.modules[__name__].current = probe
    return probe


def _hide_from_the_script(environ):
    """The launcher's socket mode: what the launcher put in the environment was for this
    process's start alone. The script's os.environ, what it logs or hands to its own
    processes, is as it gave it: the probe's variables taken out, and python/boot taken
    off PYTHONPATH (off entirely when the launcher added it alone), so that a Python the
    script starts never loads the probe. (Job mode keeps them: every rank of the job
    starts through them, and KINETOSCOPE_PROBE_OWNER keeps a rank's workers dormant.)"""
    for name in ("KINETOSCOPE_PROBE_FD", "KINETOSCOPE_PROBE_OUT", "KINETOSCOPE_PROBE_OPTIONS",
                 "KINETOSCOPE_PROBE_SIGNALS"):
        environ.pop(name, None)
    boot = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "boot")
    entries = environ.get("PYTHONPATH", "").split(os.pathsep)
    kept = [entry for entry in entries if not _same_folder(entry, boot)]
    if len(kept) == len(entries):
        return
    if any(kept):
        environ["PYTHONPATH"] = os.pathsep.join(kept)
    else:
        environ.pop("PYTHONPATH", None)


def _same_folder(entry, folder):
    try:
        return bool(entry) and os.path.abspath(entry) == folder
    except (TypeError, ValueError):
        return False
