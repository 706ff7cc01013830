"""What the probe puts into torch (at arming, after the script imported it):

- the DataLoader: `_BaseDataLoaderIter.__next__` (data time) and `DataLoader.__iter__`
  (the loader's configuration; where a `--step-marker` function is looked for);
- `torch.autograd.backward` (the module attribute, so `loss.backward()` goes through it),
  and `torch.compile`, which puts that wrapper under torch.compiler.disable once called,
  and ends the model's discovery before anything compiled runs (model.py);
- torch's global optimizer step pre/post hooks (the loop's own methods, which make the
  same checks: optimizer_steps.OptimizerSteps.on_optimizer_pre);
- the global module forward hooks while the model is being found (model.py), then hooks
  on the model alone, kept out of its copies: nn.Module.__getstate__ and torch.jit.script
  are wrapped (model.py);
- with `--step-marker`: record_function's __enter__/__exit__, and the script's function.

Every wrapper first checks that the loop is live and that this is the training thread
(one comparison, `loop.hot == get_ident()`, once the step has begun); else it is the
original call and nothing more. The script's own exceptions raised through
a wrapper (StopIteration at an epoch's end, an error in backward) propagate unchanged, the
same objects, with the wrapper's line left out of their tracebacks on Python 3.11 and
later (faults.leave_out_own_frame): a traceback reads as in the bare run. A fault in our own
code turns the step loop off (one line on stderr) and the call goes on.
"""
import functools
import importlib
import sys
import time
from threading import get_ident

from . import faults
from .dynamo import dynamo_tracing_check
from .passthrough_importlib_bootstrap import backward_wrapper

perf_counter = time.perf_counter


def install(loop, torch):
    _install_dataloader(loop, torch)
    _install_backward(loop, torch)
    _install_grad_scaler(loop, torch)
    _install_optimizer(loop, torch)
    if loop.marker:
        _install_marker_label(loop, torch)
    loop.finder.install_guards()
    loop.finder.discover()


def _install_dataloader(loop, torch):
    dataloader = importlib.import_module("torch.utils.data.dataloader")

    iterator_type = dataloader._BaseDataLoaderIter
    original_next = iterator_type.__next__

    def __next__(self):
        try:
            if loop.hot != get_ident():
                if not loop.live or not loop.mine():
                    if loop.cleanup_pending:
                        loop.cleanup()
                    return original_next(self)
                if not loop.begun:
                    try:
                        loop.begin()
                    except Exception as exc:
                        loop.fault(exc)
            started = perf_counter()
            try:
                batch = original_next(self)
            except StopIteration:  # the epoch's end
                if loop.live:
                    try:
                        loop.on_loader_end(self, started, perf_counter())
                    except Exception as exc:
                        loop.fault(exc)
                raise
            ended = perf_counter()
            if loop.live:
                try:
                    loop.on_batch(self, started, ended, batch)
                except Exception as exc:
                    loop.fault(exc)
            return batch
        except BaseException as exc:  # (StopIteration at each epoch's end too)
            faults.leave_out_own_frame(exc)
            raise

    functools.update_wrapper(__next__, original_next)
    iterator_type.__next__ = __next__

    loader_type = dataloader.DataLoader
    original_iter = loader_type.__iter__

    def __iter__(self):
        try:
            iterator = original_iter(self)
        except BaseException as exc:
            faults.leave_out_own_frame(exc)
            raise
        if loop.live and loop.mine():
            try:
                loop.on_loader_iter(self, iterator)
            except Exception as exc:
                loop.fault(exc)
        return iterator

    functools.update_wrapper(__iter__, original_iter)
    loader_type.__iter__ = __iter__


def _install_backward(loop, torch):
    autograd = torch.autograd
    original_backward = autograd.backward
    backward = backward_wrapper(loop, original_backward)  # (frames warnings pass over)
    functools.update_wrapper(backward, original_backward)
    autograd.backward = backward
    _install_compile(loop, torch, backward)


def _install_compile(loop, torch, backward):
    """torch.compile, wrapped once for two things:
    - the backward's shield: a `loss.backward()` inside a compiled function breaks Dynamo's
      graph, and Tensor.backward then runs eagerly; but Dynamo still watches the frames it
      calls, and the backward wrapper (a frame of ours, not torch's) would be compiled:
      warnings on the script's stderr ("Dynamo does not know how to trace
      `_thread.get_ident`"), a graph break at the loss's .item(), graphs and counters the
      bare run has not. From the script's first torch.compile call (no compiled code runs
      before one), that wrapper runs under torch.compiler.disable, as torch's own frames
      do; before that it costs nothing (torch._dynamo is not imported);
    - the model's discovery, which ends once the call has returned, before anything
      compiled runs (model.py, ModelFinder.compiled)."""
    original_compile = getattr(torch, "compile", None)
    if not callable(original_compile):
        return
    disable = getattr(getattr(torch, "compiler", None), "disable", None)
    autograd = torch.autograd
    shielded = []

    def compile(*args, **kwargs):
        if not shielded and callable(disable):
            shielded.append(True)
            try:
                if autograd.backward is backward:
                    autograd.backward = functools.update_wrapper(disable(backward), backward)
            except Exception as exc:
                faults.pass_on_scripts(exc)  # else unshielded: the bare run's graphs, plus ours
        try:
            result = original_compile(*args, **kwargs)
        except BaseException as exc:
            faults.leave_out_own_frame(exc)
            raise
        target = args[0] if args else kwargs.get("model")
        # torch.compile(fullgraph=True, ...) is a decorator: it calls torch.compile again
        # (this wrapper, by its global name) with what it decorates.
        if target is not None and loop.live:
            try:
                loop.on_compiled(target, result)
            except Exception as exc:
                loop.fault(exc)
        return result

    functools.update_wrapper(compile, original_compile)
    torch.compile = compile


def _install_grad_scaler(loop, torch):
    """GradScaler.scale: a loss that goes to backward scaled (`scaler.scale(loss).backward()`,
    mixed precision's idiom) is the loss times the scale (65,536 at first, halved at each
    overflow). The step's loss is read from the tensor scaled instead
    (Loop.on_backward_start); both are held weakly, so the probe keeps no graph alive.
    torch.amp's class (torch >= 2.3, whose torch.cuda.amp and torch.cpu.amp classes derive
    from it), and torch.cuda.amp's own before it."""
    for module_name in ("torch.amp.grad_scaler", "torch.cuda.amp.grad_scaler"):
        scaler_type = getattr(sys.modules.get(module_name), "GradScaler", None)
        if scaler_type is not None and callable(vars(scaler_type).get("scale")):
            _wrap_scale(loop, torch, scaler_type)


def _wrap_scale(loop, torch, scaler_type):
    original_scale = scaler_type.scale
    tracing = dynamo_tracing_check(torch)  # (a compiled step that scales its loss: nothing)
    tensor_type = torch.Tensor

    def scale(self, outputs):
        try:
            scaled = original_scale(self, outputs)
        except BaseException as exc:
            faults.leave_out_own_frame(exc)
            raise
        if (scaled is not outputs and outputs.__class__ is tensor_type and not tracing()
                and loop.hot == get_ident()):
            try:
                loop.on_loss_scaled(outputs, scaled)
            except Exception as exc:
                loop.fault(exc)
        return scaled

    functools.update_wrapper(scale, original_scale)
    scaler_type.scale = scale


def _install_optimizer(loop, torch):
    # (torch.optim deletes its `optimizer` attribute: the module is found by name.) The
    # loop's own methods are the hooks, their checks included (optimizer_steps.py).
    optimizer_api = importlib.import_module("torch.optim.optimizer")
    optimizer_api.register_optimizer_step_pre_hook(loop.on_optimizer_pre)
    optimizer_api.register_optimizer_step_post_hook(loop.on_optimizer_post)


def _install_marker_label(loop, torch):
    """--step-marker NAME as a record_function label: a step ends at each exit of
    record_function(NAME) (torch.profiler's and torch.autograd.profiler's are one class)."""
    record_function = importlib.import_module("torch.autograd.profiler").record_function
    original_enter = record_function.__enter__
    original_exit = record_function.__exit__
    name = loop.marker

    def __enter__(self):
        if loop.live and getattr(self, "name", None) == name and loop.mine():
            try:
                loop.on_marker_start()
            except Exception as exc:
                loop.fault(exc)
        try:
            return original_enter(self)
        except BaseException as exc:
            faults.leave_out_own_frame(exc)
            raise

    def __exit__(self, exc_type, exc_value, traceback):
        try:
            result = original_exit(self, exc_type, exc_value, traceback)
        except BaseException as exc:
            faults.leave_out_own_frame(exc)
            raise
        if exc_type is None and loop.live and getattr(self, "name", None) == name and loop.mine():
            try:
                loop.on_marker_end("label")
            except Exception as exc:
                loop.fault(exc)
        return result

    functools.update_wrapper(__enter__, original_enter)
    functools.update_wrapper(__exit__, original_exit)
    record_function.__enter__ = __enter__
    record_function.__exit__ = __exit__


def wrap_marker_function(loop):
    """--step-marker `func` (in __main__) or `module:func`: replaces the module global by a
    wrapper once it exists, so that later calls through the name are steps (one ends at
    each return). True once wrapped."""
    module_name, _, function_name = loop.marker.rpartition(":")
    module = _module_named(module_name or "__main__")
    if module is None:
        return False
    function = getattr(module, function_name, None)
    if function is None or not callable(function) or isinstance(function, type):
        return False
    if getattr(function, "__kinetoscope_marker__", False):
        return True

    @functools.wraps(function)
    def marked(*args, **kwargs):
        if loop.live and loop.mine():
            try:
                loop.on_marker_start()
            except Exception as exc:
                loop.fault(exc)
        try:
            result = function(*args, **kwargs)
        except BaseException as exc:
            faults.leave_out_own_frame(exc)
            raise
        if loop.live and loop.mine():
            try:
                loop.on_marker_end("function")
            except Exception as exc:
                loop.fault(exc)
        return result

    marked.__kinetoscope_marker__ = True
    setattr(module, function_name, marked)
    return True


def _module_named(name):
    module = sys.modules.get(name)
    if module is not None:
        return module
    main = sys.modules.get("__main__")  # `python -m pkg.train` runs pkg.train as __main__
    spec = getattr(main, "__spec__", None)
    if spec is not None and getattr(spec, "name", None) == name:
        return main
    return None
