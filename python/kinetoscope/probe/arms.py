"""The lab on the script's own model: one run per arm, the script unchanged otherwise.

  arm "fp32"          nothing wrapped (the seed and loader overrides still apply)
  arm "bf16"          the model's forward and the loss under torch.autocast(bfloat16)
  arm "bf16+compile"  bf16, and the model compiled in place (torch.compile)

Arms apply once the model is known (model.py's ModelFinder.choose); the warm-up steps
before that run as written (they are not measured).

bf16: an autocast context (the model's device type, bfloat16) is entered at the model's
forward pre-hook and exited at the start of backward (training), at the model's forward
end when grad is off (inference), and at the step's end if still entered: never across a
step boundary. A script that already runs the model under autocast, or constructs an
enabled GradScaler (its own mixed precision), is left as it is (config `arm_note`).
bf16 not supported by the device: config `arm_error`, and the script is stopped cleanly
at the next step boundary (as --steps stops it).

bf16+compile: the instance attribute `model.forward` becomes a small eager function of
ours calling torch.compile(the original bound forward): the script's own reference
runs compiled, and the module's hooks (ours) stay outside the compiled code. A call
during which torch compiled (its internal counters moved) adds its wall time to
`compile_seconds` (a backward that compiles lazily adds its own); `graph_breaks`,
`recompiles` (compiling calls after the first), `compiled_in_measured` (compiling calls
in measured steps) go with the next `started`. A compiled call that raises is run again
with the original forward: if that raises too, the error is the script's own and
propagates as without compile; else compilation failed (a torch._dynamo / torch._inductor
error, a missing C++ compiler, ...): the original forward is put back, its output
returned, `arm_error` says "torch.compile failed: <ExcType: first line>", and the script
stops at the next step boundary. A mode torch.compile refuses fails the same way.

Config keys (strings; sent with `started`, merged, at the step boundary after they
change and at exit): arm, compile_mode, arm_note, arm_precision ("script": the script's
own mixed precision, bf16 not applied), arm_compile ("script": the script compiles its
model itself, torch.compile not applied again), arm_error, compile_seconds,
graph_breaks, recompiles, compiled_in_measured; seed, script_reseeds, loader_overrides
(overrides.py).
"""
import functools
import time
from threading import get_ident

from . import faults, overrides
from .dynamo import tracing_check
from .model import first_parameter

perf_counter = time.perf_counter


def first_line(exc, limit=200):
    """'ExcType: the first line of its message', at most `limit` characters."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = type(exc).__name__ + (": " + lines[0] if lines else "")
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Lab(object):
    def __init__(self, probe, torch):
        options = probe.options
        self.probe = probe
        self.torch = torch
        self.tracing = tracing_check(torch)  # the hooks do nothing inside a compiled graph
        self.arm = options.arm
        self.mode = options.compile_mode
        self.seed = options.seed
        self.loader = options.loader
        self.values = {}  # the config keys so far
        self.dirty = False  # values changed since config() last read them
        self.stop_by = ""  # set: the next step boundary stops the script
        self.loop = None
        self.bf16 = self.arm in ("bf16", "bf16+compile")
        self.compile = self.arm == "bf16+compile"
        self.model = None  # the module the arm is applied to
        self.handles = []  # its hooks
        self.autocast = None  # torch.autocast, reused (entered/exited in turn)
        self.device_type = None
        self.use_autocast = self.bf16  # False once the script's own is seen
        self.entered = False
        self.compiled = None  # the compiled callable while compile is applied
        self.eager = None  # the original forward (bound), while compile is applied
        self.saved_forward = None  # an instance `forward` the script had set, if any
        self.compiles = 0  # forward calls that compiled
        self.compile_s = 0.0
        self.in_measured = 0
        self.gave_up_model = False

    # -- config -----------------------------------------------------------------------------
    def set(self, key, value):
        if self.values.get(key) != value:
            self.values[key] = value
            self.dirty = True

    def config(self):
        self.dirty = False
        return dict(self.values)

    def add_note(self, note):
        """What the arm found, said in `arm_note` (several joined by '; ')."""
        before = self.values.get("arm_note")
        self.set("arm_note", note if not before or note in before else before + "; " + note)

    def fail(self, error):
        """The arm cannot run as asked: said, and the script stops at the next boundary."""
        if "arm_error" not in self.values:
            self.set("arm_error", error)
            self.stop_by = error

    # -- arming -----------------------------------------------------------------------------
    def install(self, loop):
        """At arming, after hooks.install (so that our backward wrapper is the outer one)."""
        self.loop = loop
        torch = self.torch
        if self.arm:
            self.set("arm", self.arm)
        if self.compile:
            self.set("compile_mode", self.mode or "default")
        if self.seed >= 0:
            overrides.seed(self, torch, self.seed)
        if self.loader:
            overrides.wrap_loader(self, torch, self.loader)
        if self.bf16:
            self._watch_grad_scalers()
            self._wrap_backward()
        loop.finder.on_model = self.on_model

    def _watch_grad_scalers(self):
        seen = set()
        for kind in (_attr(self.torch, "amp.GradScaler"), _attr(self.torch, "cuda.amp.GradScaler")):
            if kind is None or kind in seen:
                continue
            seen.add(kind)
            original = kind.__dict__.get("__init__")
            if original is not None:
                kind.__init__ = _noting_init(original, self)

    def _wrap_backward(self):
        autograd = self.torch.autograd
        original = autograd.backward
        lab = self

        def backward(*args, **kwargs):
            if lab.entered and lab.loop.tid == get_ident():
                lab.exit_autocast()
            try:
                if lab.compiled is None:
                    return original(*args, **kwargs)
                before = _compile_activity(lab.torch)
                started = perf_counter()
                result = original(*args, **kwargs)
            except BaseException as exc:
                faults.leave_out_own_frame(exc)
                raise
            if _compile_activity(lab.torch) != before:  # a backward compiled lazily
                lab.compile_s += perf_counter() - started
                lab._compile_figures()
            return result

        functools.update_wrapper(backward, original)
        autograd.backward = backward

    # -- the model ----------------------------------------------------------------------------
    def on_model(self, module):
        """ModelFinder chose `module` (None: it looks again, the old choice is off)."""
        if module is self.model or self.stop_by:
            return
        if not self.bf16:  # fp32: nothing applied; a model the script compiled is said
            if module is not None and _compiled_by_script(module):
                self.add_note(RAN_COMPILED)
            return
        try:
            self._unapply()
            if module is not None:
                self._apply(module)
        except Exception as exc:
            faults.part_disabled("arm", exc)
            self.fail("%s could not be applied: %s" % (self.arm, faults.one_line(exc)))

    def _apply(self, module):
        torch = self.torch
        parameter = first_parameter(module)
        device = parameter.device if parameter is not None else torch.device("cpu")
        self.device_type = device.type
        if not self._bf16_supported(device):
            self.fail("bf16 is not supported on %s" % _device_name(torch, device))
            return
        self.model = module
        if self.use_autocast:
            self.autocast = torch.autocast(device_type=device.type, dtype=torch.bfloat16)
            self.handles.append(module.register_forward_pre_hook(self._pre))
            self.handles.append(module.register_forward_hook(self._post))
        if self.compile:
            if _compiled_by_script(module):
                self.add_note("the script compiles its model itself (torch.compile not applied "
                              "twice)")
                self.set("arm_compile", "script")  # (every arm ran compiled)
            else:
                self._compile(module)
        elif _compiled_by_script(module):
            self.add_note(RAN_COMPILED)

    def _unapply(self):
        if self.entered:
            self.exit_autocast()
        while self.handles:
            self.handles.pop().remove()
        if self.compiled is not None:
            self._restore_forward()
        self.model = None

    def _bf16_supported(self, device):
        if device.type == "cpu":
            return True
        if device.type == "cuda":
            return bool(self.torch.cuda.is_bf16_supported())
        available = _attr(self.torch, "amp.is_autocast_available")
        return bool(available(device.type)) if available is not None else False

    # -- autocast -------------------------------------------------------------------------------
    def _pre(self, module, args):
        if self.tracing() or self.entered or not self.use_autocast or not self.loop.mine():
            return None
        try:
            if _autocast_enabled(self.torch, self.device_type):
                self.script_has_amp("the script already uses autocast (bfloat16 not applied twice)")
                return None
            self.autocast.__enter__()
            self.entered = True
        except Exception as exc:
            self._autocast_fault(exc)
        return None

    def _post(self, module, args, output):
        if self.tracing():
            return None
        if self.entered and not self.torch.is_grad_enabled() and self.loop.tid == get_ident():
            self.exit_autocast()
        return None

    def exit_autocast(self):
        self.entered = False
        try:
            self.autocast.__exit__(None, None, None)
        except Exception as exc:
            self._autocast_fault(exc)

    def script_has_amp(self, note):
        if not self.use_autocast:
            return
        self.use_autocast = False
        self.add_note(note)
        self.set("arm_precision", "script")  # (the fp32 arm ran the script's precision too)
        if self.entered:
            self.exit_autocast()
        while self.handles:
            self.handles.pop().remove()

    def _autocast_fault(self, exc):
        faults.part_disabled("arm", exc)
        self.use_autocast = False
        self.fail("bf16 could not be applied: %s" % faults.one_line(exc))

    def step_end(self):
        """At each step boundary (steps.Loop.end), on the training thread."""
        if self.entered:
            self.exit_autocast()
        if (self.bf16 and self.model is None and not self.gave_up_model and not self.stop_by
                and not self.loop.finder.discovering):
            self.gave_up_model = True  # the finder gave up: no model, no arm
            self.fail("the model was not found: %s not applied" % self.arm)

    def at_exit(self):
        if self.bf16 and self.model is None and not self.stop_by:
            self.fail("the model was not found: %s not applied" % self.arm)

    # -- compile --------------------------------------------------------------------------------
    def _compile(self, module):
        saved = module.__dict__.get("forward")
        eager = module.forward
        try:
            if self.mode:
                compiled = self.torch.compile(eager, mode=self.mode)
            else:
                compiled = self.torch.compile(eager)
        except Exception as exc:
            self.fail("torch.compile failed: " + first_line(exc))
            return
        self.saved_forward, self.eager, self.compiled = saved, eager, compiled
        lab = self

        def forward(*args, **kwargs):
            try:
                return lab.compiled_call(args, kwargs)
            except BaseException as exc:  # the model's own (and compiled_call's frame)
                faults.leave_out_own_frame(exc)
                raise

        functools.update_wrapper(forward, eager)
        forward.__kinetoscope_compiled__ = True
        module.forward = forward

    def compiled_call(self, args, kwargs):
        compiled = self.compiled
        if compiled is None:
            return self.eager(*args, **kwargs)
        torch = self.torch
        before = _compile_activity(torch)
        started = perf_counter()
        try:
            output = compiled(*args, **kwargs)
        except Exception as exc:
            failure = exc
        else:
            if _compile_activity(torch) != before:
                self._compiled_once(perf_counter() - started)
            return output
        return self._compile_failed(failure, args, kwargs)

    def _compiled_once(self, seconds):
        self.compiles += 1
        self.compile_s += seconds
        loop = self.loop
        if loop is not None and loop.step >= loop.measured_from:
            self.in_measured += 1
        self._compile_figures()

    def _compile_figures(self):
        self.set("compile_seconds", "%.2f" % self.compile_s)
        self.set("recompiles", str(max(0, self.compiles - 1)))
        self.set("compiled_in_measured", str(self.in_measured))
        self.set("graph_breaks", str(_graph_breaks(self.torch)))

    def _compile_failed(self, failure, args, kwargs):
        """The compiled call raised: the original forward on the same arguments decides.
        If it raises too, the error is the script's own (Dynamo wraps some of those in its
        own exception types): it propagates, as it would without compile. Else compile
        failed (a torch._dynamo / torch._inductor error, BackendCompilerFailed, or any
        other the eager forward does not raise)."""
        output = self.eager(*args, **kwargs)
        self._restore_forward()
        self.fail("torch.compile failed: " + first_line(failure))
        return output

    def _restore_forward(self):
        module = self.model
        self.compiled = None
        if module is not None:
            if self.saved_forward is not None:
                module.forward = self.saved_forward
            elif getattr(module.__dict__.get("forward"), "__kinetoscope_compiled__", False):
                del module.forward
        self.saved_forward = None


# The fp32 and bf16 arms' note for a model the script compiles: its row says it ran compiled
# (the reading says bf16 -> compile was not measured).
RAN_COMPILED = "the script compiles its model itself (this arm ran compiled)"


def _compiled_by_script(module):
    """Whether the model is the script's own torch.compile wrapper (OptimizedModule), or a
    module the script compiled in place (nn.Module.compile)."""
    return (getattr(module, "_orig_mod", None) is not None
            or getattr(module, "_compiled_call_impl", None) is not None)


def create(probe, torch):
    """The lab when an option of it is given, else None (the probe as without it)."""
    return Lab(probe, torch) if probe.options.lab else None


def _noting_init(original, lab):
    """A GradScaler's __init__ that tells the lab when the scaler is enabled."""
    def __init__(self, *args, **kwargs):
        original(self, *args, **kwargs)
        try:
            enabled = self.is_enabled()
        except Exception:
            enabled = True
        if enabled:
            lab.script_has_amp("the script uses a GradScaler (its own mixed precision): "
                               "bfloat16 not applied")

    functools.update_wrapper(__init__, original)
    return __init__


def _attr(root, dotted):
    for name in dotted.split("."):
        root = getattr(root, name, None)
        if root is None:
            return None
    return root


def _autocast_enabled(torch, device_type):
    try:
        return bool(torch.is_autocast_enabled(device_type))
    except TypeError:  # torch < 2.4: no device argument
        if device_type == "cpu":
            return bool(torch.is_autocast_cpu_enabled())
        return bool(torch.is_autocast_enabled())


def _device_name(torch, device):
    text = str(device)
    if device.type == "cuda":
        try:
            text += " (%s)" % torch.cuda.get_device_name(device)
        except Exception:
            pass
    return text


def _counters(torch):
    utils = getattr(getattr(torch, "_dynamo", None), "utils", None)
    return getattr(utils, "counters", None)


def _compile_activity(torch):
    """A figure that moves when torch compiles (Dynamo's graphs, Inductor's; internal
    counters, read defensively)."""
    try:
        counters = _counters(torch)
        if counters is None:
            return 0
        stats, frames, inductor = counters["stats"], counters["frames"], counters["inductor"]
        return (stats["unique_graphs"] + frames["ok"] + inductor["fxgraph_cache_miss"]
                + inductor["fxgraph_cache_hit"] + inductor["fxgraph_cache_bypass"])
    except Exception:
        return 0


def _graph_breaks(torch):
    try:
        counters = _counters(torch)
        return int(sum(counters["graph_break"].values())) if counters is not None else 0
    except Exception:
        return 0
