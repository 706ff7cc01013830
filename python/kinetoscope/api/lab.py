"""kinetoscope.lab(): the three-run lab (seed 000's run_lab) on the caller's own model
factory and DataLoader, in this process: fp32, bf16 autocast, bf16 autocast + the real
torch.compile, same seed and data order each time, then a session file the app opens.

What a step is here: the wait for the next batch (`next()` on the loader's iterator,
re-made when it runs out), the copy to the device (`.to(device, non_blocking=True)`),
the forward and the loss (under bf16 autocast in the bf16 arms), the backward, and the
optimizer (`step()` then `zero_grad(set_to_none=True)`). On the CPU each phase is
perf_counter time; on CUDA the data wait is host time and the other phases are CUDA
events between them, read after the one synchronisation at the step's end. A step's
wall time (data wait to that synchronisation) gives the arm's figures: samples/s =
batch size (the first measured batch's) x 1000 / the median step ms, as `kinetoscope
profile --lab` reads a script's arms; the mean step ms is the measured steps' mean.

Compilation: a step in which torch._dynamo's counters moved (graphs, frames, AOT
graphs) compiled. Those steps' wall time is the compile time, reported apart; a
measured step that compiles (a recompile) is left out of the steady figures, counted in
the compile time and replaced by another step (at most `steps` more). Recompiles are the
graphs made after the first compiling step; graph breaks are torch._dynamo's count.

torch is imported when lab() is called, never when this module is.
"""
import datetime
import gc
import math
import os
import time
import traceback
import warnings

from . import binary as _binary
from . import describe
from .results import COMPILE_ARM, LabArm, LabResult, StepTiming, format_table
from .session import PHASES, PhaseStats, session_document, write_atomically

ARMS = ("fp32", "bf16", "bf16+compile")
SESSION_NAME = "session.kinetoscope.json"
MAX_REASON = 240  # characters of a skipped arm's reason


class LabError(RuntimeError):
    """No arm of the lab ran (each one's reason is in the message)."""


class _Skip(Exception):
    """An arm that cannot run here, with its reason."""


def one_line(exc):
    """'ExcType: message' on one line, at most MAX_REASON characters."""
    message = " ".join(str(exc).split())
    line = type(exc).__name__ + (": " + message if message else "")
    return line if len(line) <= MAX_REASON else line[:MAX_REASON - 3] + "..."


def _arm_names(arms):
    if isinstance(arms, str):
        arms = [a.strip() for a in arms.split(",") if a.strip()]
    names = list(arms)
    if not names:
        raise ValueError("arms is empty: name one or more of %s" % ", ".join(ARMS))
    for name in names:
        if name not in ARMS:
            raise ValueError("unknown lab arm %r: the arms are %s" % (name, ", ".join(ARMS)))
    if len(set(names)) != len(names):
        raise ValueError("a lab arm is named twice in %r" % (names,))
    return names


def _out_dir(out, started):
    if out is not None:
        return os.path.abspath(os.fspath(out))
    stamp = started.strftime("%Y%m%d-%H%M%S")
    base = os.path.abspath(os.path.join("kinetoscope-labs", "lab-" + stamp))
    folder, n = base, 1
    while os.path.exists(folder):
        n += 1
        folder = "%s-%d" % (base, n)
    return folder


def _compile_counts():
    """(graphs, frames, AOT graphs) and the graph breaks torch._dynamo has counted, or
    None where its counters cannot be read."""
    try:
        from torch._dynamo.utils import counters

        stats = counters.get("stats") or {}
        frames = counters.get("frames") or {}
        aot = counters.get("aot_autograd") or {}
        breaks = counters.get("graph_break") or {}
        compiled = (int(stats.get("unique_graphs", 0)), int(frames.get("total", 0)),
                    int(aot.get("total", 0)))
        return compiled, int(sum(breaks.values()))
    except Exception:
        return None


class _CompileWatch(object):
    """Which steps compiled, from torch._dynamo's counters read around each step: their
    wall time is the compile time; graphs made after the first compiling step are
    recompiles; a measured step that compiled is left out."""

    def __init__(self):
        self.first = self.counts = _compile_counts()
        self.seconds = 0.0
        self.recompiles = 0
        self.left_out = 0
        self.seen = False
        self.readable = self.first is not None

    def step(self, index, wall_ms):
        """Whether step `index` (just run, `wall_ms` long) compiled."""
        now = _compile_counts()
        if now is None or self.counts is None:
            self.readable = False
            compiled = index == 0  # unreadable counters: the first call compiles
        else:
            compiled = now[0] != self.counts[0]
            if compiled and self.seen:
                self.recompiles += max(now[0][0] - self.counts[0][0], 1)
        self.counts = now
        if compiled:
            self.seconds += wall_ms / 1e3
            self.seen = True
        return compiled

    def finish(self, arm):
        """The arm's compile figures, and what its note says about them."""
        arm.compile_seconds = self.seconds
        arm.recompiles = self.recompiles
        notes = []
        if self.readable:
            arm.graph_breaks = self.counts[1] - self.first[1]
        else:
            arm.graph_breaks = 0
            notes.append("torch._dynamo's counters could not be read: the first step is taken "
                         "as the compile, recompiles and graph breaks are not counted")
        if self.left_out:
            notes.append("%d measured step(s) compiled again: left out of the steady figures, "
                         "counted in the compile time" % self.left_out)
        return notes


class _StepClock(object):
    """The boundaries inside a step: perf_counter on the CPU; on CUDA events, read after
    the step's synchronisation."""

    def __init__(self, torch, device):
        self.cuda = device.type == "cuda"
        self.events = ([torch.cuda.Event(enable_timing=True) for _ in range(5)]
                       if self.cuda else None)
        self.marks = [0.0] * 5
        self.device = device
        self.sync = getattr(getattr(torch, device.type, None), "synchronize", None)

    def mark(self, i):
        if self.cuda:
            self.events[i].record()
        else:
            self.marks[i] = time.perf_counter()

    def synchronize(self):
        if self.cuda:
            self.sync(self.device)
        elif self.sync is not None and self.device.type != "cpu":
            self.sync()

    def phases_ms(self):
        """h2d, forward, backward, optimizer (ms): between marks 0-1, 1-2, 2-3, 3-4."""
        if self.cuda:
            e = self.events
            return [e[i].elapsed_time(e[i + 1]) for i in range(4)]
        m = self.marks
        return [(m[i + 1] - m[i]) * 1e3 for i in range(4)]


class _Lab(object):
    def __init__(self, torch, model_fn, loader, loss_fn, optimizer_fn, steps, warmup, device,
                 compile_mode, seed):
        self.torch = torch
        self.model_fn = model_fn
        self.loader = loader
        self.loss_fn = loss_fn
        self.optimizer_fn = optimizer_fn
        self.steps = steps
        self.warmup = warmup
        self.device = device
        self.cuda = device.type == "cuda"
        self.compile_mode = compile_mode
        self.seed = seed
        self.identity = {}  # model, optimizer, loss: from the first arm that built them
        self.ran_arms = []

    # -- what a step does -------------------------------------------------------------
    def _to_device(self, value):
        torch = self.torch
        if torch.is_tensor(value):
            return value.to(self.device, non_blocking=True)
        if isinstance(value, tuple) and hasattr(value, "_fields"):  # a namedtuple
            return type(value)(*(self._to_device(v) for v in value))
        if isinstance(value, (list, tuple)):
            return type(value)(self._to_device(v) for v in value)
        if isinstance(value, dict):
            return {k: self._to_device(v) for k, v in value.items()}
        return value

    @staticmethod
    def _split(batch):
        if isinstance(batch, (list, tuple)) and len(batch) >= 2:
            return tuple(batch[:-1]), batch[-1]
        raise TypeError("a batch must be (inputs, targets) or (inputs..., targets), not %s"
                        % type(batch).__name__)

    @staticmethod
    def _batch_size(inputs):
        first = inputs[0]
        shape = getattr(first, "shape", None)
        if shape is not None and len(shape) > 0:
            return int(shape[0])
        return len(first)

    def _autocast(self, arm):
        torch = self.torch
        if arm == "fp32":
            import contextlib

            return contextlib.nullcontext()
        return torch.autocast(device_type=self.device.type, dtype=torch.bfloat16)

    def _check_bf16(self):
        """_Skip where bf16 autocast cannot run on the device."""
        torch = self.torch
        if self.cuda:
            try:
                supported = torch.cuda.is_bf16_supported(including_emulation=False)
            except TypeError:  # torch before 2.3
                supported = torch.cuda.is_bf16_supported()
            if not supported:
                major, minor = torch.cuda.get_device_capability(self.device)
                raise _Skip("bf16 is not supported on %s (compute capability %d.%d)" % (
                    torch.cuda.get_device_name(self.device), major, minor))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an unsupported dtype warns and disables
            with torch.autocast(device_type=self.device.type, dtype=torch.bfloat16):
                try:
                    enabled = torch.is_autocast_enabled(self.device.type)
                    dtype = torch.get_autocast_dtype(self.device.type)
                except (TypeError, AttributeError):  # torch before 2.4
                    enabled, dtype = True, torch.bfloat16
        if not enabled or dtype != torch.bfloat16:
            raise _Skip("bf16 autocast is not available on the %s device" % self.device.type)

    # -- one arm ----------------------------------------------------------------------
    def run_arm(self, arm):
        """Measures one arm into `arm` (a LabArm); _Skip or the arm's exception when it
        cannot run."""
        torch = self.torch
        compiling = arm.name == COMPILE_ARM
        if arm.name != "fp32":
            self._check_bf16()
        if self.cuda:
            gc.collect()
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats(self.device)
        torch.manual_seed(self.seed)
        model = self.model_fn()
        if not isinstance(model, torch.nn.Module):
            raise TypeError("model_fn() returned %s, not a torch.nn.Module" % type(model).__name__)
        model = model.to(self.device)
        model.train()
        if self.optimizer_fn is not None:
            optimizer = self.optimizer_fn(model.parameters())
        else:
            optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        loss_fn = self.loss_fn if self.loss_fn is not None else torch.nn.CrossEntropyLoss()
        if not self.identity:
            self.identity = {
                "model": type(model).__name__,
                "optimizer": type(optimizer).__name__ + (
                    "" if self.optimizer_fn is not None else " lr 1e-3"),
                "loss": getattr(loss_fn, "__name__", None) or type(loss_fn).__name__,
            }
        forward = model
        if compiling:
            import torch._dynamo

            torch._dynamo.reset()  # a fresh compile is what the arm measures
            if self.compile_mode:
                forward = torch.compile(model, mode=self.compile_mode)
            else:
                forward = torch.compile(model)
        try:
            self._measure(arm, forward, optimizer, loss_fn, compiling)
        finally:
            if compiling:
                try:
                    torch._dynamo.reset()  # its graphs (and any CUDA graph pool) go too
                except Exception:
                    pass
        if self.cuda:
            arm.peak_allocated_bytes = int(torch.cuda.max_memory_allocated(self.device))
            arm.peak_reserved_bytes = int(torch.cuda.max_memory_reserved(self.device))

    def _measure(self, arm, forward, optimizer, loss_fn, compiling):
        torch = self.torch
        perf = time.perf_counter
        torch.manual_seed(self.seed)  # the loader's shuffle: the same order in every arm
        state = {"iterator": iter(self.loader)}

        def next_batch():
            try:
                return next(state["iterator"])
            except StopIteration:
                state["iterator"] = iter(self.loader)
                try:
                    return next(state["iterator"])
                except StopIteration:
                    raise ValueError("the DataLoader yields no batch")

        clock = _StepClock(torch, self.device)
        watch = _CompileWatch() if compiling else None
        measured = []
        limit = self.warmup + self.steps + (self.steps if compiling else 0)
        step = 0
        try:
            while len(measured) < self.steps and step < limit:
                t0 = perf()
                batch = next_batch()
                t1 = perf()
                clock.mark(0)
                inputs, target = self._split(self._to_device(batch))
                clock.mark(1)
                with self._autocast(arm.name):
                    loss = loss_fn(forward(*inputs), target)
                clock.mark(2)
                loss.backward()
                clock.mark(3)
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
                clock.mark(4)
                clock.synchronize()
                wall_ms = (perf() - t0) * 1e3
                compiled = watch is not None and watch.step(step, wall_ms)
                if step < self.warmup or compiled:
                    if compiled and step >= self.warmup:
                        watch.left_out += 1
                    step += 1
                    continue
                value = float(loss.detach().float().item())
                if not arm.batch_size:
                    arm.batch_size = self._batch_size(inputs)
                measured.append(StepTiming(step, (t1 - t0) * 1e3, *clock.phases_ms(),
                                           loss=value if math.isfinite(value) else None,
                                           wall_ms=wall_ms))
                step += 1
        finally:
            state["iterator"] = None  # a worker pool ends with its iterator
        if not measured:
            raise RuntimeError("every measured step compiled again (%d steps)" % watch.left_out)
        notes = watch.finish(arm) if watch is not None else []
        if len(measured) < self.steps:
            notes.append("%d of %d steps measured" % (len(measured), self.steps))
        arm.note = "; ".join(notes)
        arm.steps = measured
        walls = PhaseStats("step", [s.wall_ms for s in measured])
        arm.mean_step_ms = walls.mean_ms
        arm.median_step_ms = walls.median_ms
        # As `kinetoscope profile --lab` reads a script's arm: batch size x 1000 / the
        # median step, which one slow step (a collection, a late recompile) does not move.
        arm.samples_per_second = (arm.batch_size * 1000.0 / walls.median_ms
                                  if walls.median_ms > 0 else 0.0)
        columns = (("data", 1), ("h2d", 2), ("forward", 3), ("backward", 4), ("optimizer", 5))
        arm.phases = {name: PhaseStats(name, [s[i] for s in measured]) for name, i in columns}
        arm.ran = True


def _resolve_device(torch, device):
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(device)
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError("device %s: torch here has no CUDA device" % device)
        if device.index is None:
            device = torch.device("cuda", torch.cuda.current_device())
    return device


def lab(model_fn, loader, loss_fn=None, optimizer_fn=None, steps=30, warmup=5,
        arms=ARMS, device=None, compile_mode=None, out=None, open=False, seed=0):
    """Runs the three-run lab on your own model and data, in this process.

    model_fn: a callable returning a new torch.nn.Module (called once per arm).
    loader: an iterable of (inputs, targets) or (inputs..., targets) batches, usually a
        torch.utils.data.DataLoader; iterated again when it runs out.
    loss_fn: loss(output, targets); default torch.nn.CrossEntropyLoss().
    optimizer_fn: optimizer_fn(model.parameters()); default Adam, lr 1e-3.
    steps, warmup: measured steps and warm-up steps before them, per arm.
    arms: any of "fp32", "bf16", "bf16+compile" (a tuple, or one string with commas).
    device: default "cuda" where torch has it, else "cpu".
    compile_mode: torch.compile's mode for the compile arm (default: its default).
    out: the folder of the session (default ./kinetoscope-labs/lab-YYYYmmdd-HHMMSS).
    open: start the desktop app on the session when done.
    seed: torch.manual_seed before each arm's model and before its data.

    Prints the arms' table and the session's path; returns a LabResult. An arm that
    cannot run here is skipped with its one-line reason; LabError when none ran.
    """
    start_app = open
    names = _arm_names(arms)
    if not callable(model_fn):
        raise TypeError("model_fn must be a callable that returns a new torch.nn.Module")
    steps, warmup = int(steps), int(warmup)
    if steps < 1 or warmup < 0:
        raise ValueError("steps must be at least 1 and warmup at least 0 (got %d, %d)"
                         % (steps, warmup))
    try:
        import torch
    except ImportError as e:
        raise ImportError("kinetoscope.lab needs torch in this environment (%s)" % e)
    started = datetime.datetime.now()
    device = _resolve_device(torch, device)
    runner = _Lab(torch, model_fn, loader, loss_fn, optimizer_fn, steps, warmup, device,
                  compile_mode, int(seed))
    environment = describe.environment(torch, device)
    folder = _out_dir(out, started)
    session_path = os.path.join(folder, SESSION_NAME)
    results = [LabArm(name) for name in names]
    errors = []

    def save(interrupted=""):
        ran = [a for a in results if a.ran]
        if not ran:
            return None
        source = next((a for a in ran if a.name == "fp32"), ran[0])
        config = describe.config(runner, names, loader, compile_mode)
        if source.name != "fp32":
            config["phases_from"] = source.name
        phases = [source.phases[p] for p in PHASES]
        rows = [[s.step, s.data_ms, s.h2d_ms, s.forward_ms, s.backward_ms, s.optimizer_ms,
                 s.loss] for s in source.steps]
        arms = [a.to_json() for a in results]
        for entry in arms:  # a session saved while the lab runs: the arms still to come
            if not entry["ran"] and not entry["skipped_reason"]:
                entry["skipped_reason"] = "not run: the lab had not reached it"
        document = session_document(config, environment, arms, phases, rows, interrupted)
        os.makedirs(folder, exist_ok=True)
        write_atomically(session_path, document)
        return config

    for index, arm in enumerate(results):
        try:
            runner.run_arm(arm)
        except KeyboardInterrupt:
            arm.ran = False
            arm.skipped_reason = "interrupted"
            for later in results[index + 1:]:
                later.skipped_reason = "not run: the lab was interrupted"
            save("the lab was interrupted (KeyboardInterrupt) in the %s arm" % arm.name)
            raise
        except _Skip as skip:
            arm.skipped_reason = str(skip)
        except Exception as e:  # the arm cannot run here: the others go on
            arm.ran = False
            arm.skipped_reason = one_line(e)
            traceback.clear_frames(e.__traceback__)  # its model and tensors go now
            errors.append((arm.name, e))
        finally:
            gc.collect()
            if runner.cuda:
                torch.cuda.empty_cache()
        if arm.ran:
            runner.ran_arms.append(arm)
            pending = len(results) - index - 1
            if pending:
                save("the lab was still running: %d arm(s) to go" % pending)
    config = save()
    print(format_table(results))
    if config is None:
        reasons = "; ".join("%s: %s" % (a.name, a.skipped_reason) for a in results)
        error = LabError("no lab arm ran: " + reasons)
        if errors:
            raise error from errors[0][1]
        raise error
    print("session: %s" % session_path)
    result = LabResult(results, session_path, config, environment)
    if start_app:
        result.app = _binary.start_app([session_path])
    return result
