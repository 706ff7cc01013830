"""The optimizer's step as the step loop reads it: torch's global optimizer step hooks
(the step's end, at the first optimizer's post hook), another optimizer's step (a GAN's
second model), and `optimizer.step(closure)`, whose closure runs the forward and the
backward inside the step. A part of steps.Loop (its base class): these methods read and
set the loop's own slots.
"""
import time
import weakref
from threading import get_ident

from . import faults
from .phases import FORWARD, H2D, OPTIMIZER

perf_counter = time.perf_counter


class OptimizerSteps(object):
    __slots__ = ()  # (the state is steps.Loop's slots)

    # torch's global optimizer step hooks: hooks.py registers these bound methods
    # themselves (no wrapper's call between: a Python call costs more than their work). Each
    # does nothing while Dynamo traces a compiled optimizer step (nothing of the probe in its
    # graph) and off the training thread; a fault of ours turns the loop off; a stop
    # (SystemExit(0) from end(): --steps, a cancel) propagates. They return None, except
    # the pre hook of a step given a closure: the step's arguments, the closure wrapped.
    def on_optimizer_pre(self, optimizer, args, kwargs):
        if self.dynamo_tracing() or (self.hot != get_ident() and not (self.live and self.mine())):
            return None
        try:
            if not self.begun:
                self.begin()
            if not self.saw_optimizer:
                self._first_optimizer_step(optimizer)
            finder = self.finder
            if finder.discovering:
                self.depth = 0
                device = finder.choose_for(optimizer)
                if device is not None:
                    self.set_device(device)
                    if self.config_sent:  # found after the config went: say it again
                        self.probe.send_started(self.config())
            timing = self.timing
            now = perf_counter() if timing is None else timing.mark()
            if kwargs or len(args) > 1:  # (a plain step() passes the optimizer alone)
                closure, index = closure_of(optimizer, args, kwargs)
                if closure is not None:
                    return self._step_with_closure(closure, index, args, kwargs, now)
            if self.forward_open is not None:
                self._add(FORWARD, self.forward_open, now)
                self.forward_open = None
            self.optimizer_open = now
        except Exception as exc:
            self.fault(exc)
        return None

    def _step_with_closure(self, closure, index, args, kwargs, now):
        """optimizer.step(closure) (Lightning's automatic optimization, LBFGS): the closure
        runs the forward and the backward inside the step, once or several times. What ran
        since the batch is the loop's own (h2d); each call's forward is timed from the call
        (or the model's hook); the optimizer's own time runs from each call's return to the
        next call or the step's end (on_closure_start, on_closure_end). Returns the step's
        arguments with the closure wrapped (torch's pre hooks may replace them)."""
        self.closure_calls = 0
        self.optimizer_open = None
        used = False
        if self.forward_open is not None and self.batch_opens_forward:
            if self.last_src != self.src or self.other_s:
                self._batch_fed_model()
            self._add(H2D, self.forward_open, now)  # (the forward starts in the closure)
            self.forward_open = None
            used = True
        elif self.next_end is not None:
            self._batch_went_in(now)
            used = True
        if not used and self.timing is not None:
            self.timing.release(now)
        timed = timed_closure(self, closure)
        if kwargs and kwargs.get("closure") is closure:
            kwargs = dict(kwargs)
            kwargs["closure"] = timed
        else:
            args = tuple(args[:index]) + (timed,) + tuple(args[index + 1:])
        return args, kwargs

    def on_closure_start(self):
        """A call of the step's closure starts (_timed_closure)."""
        if self.hot != get_ident() and not (self.live and self.mine()):
            return
        try:
            self.closure_calls += 1
            now = self.mark()
            opened = self.optimizer_open
            if opened is not None:  # the optimizer's own work since the last call returned
                self._add(OPTIMIZER, opened, now)
                self.optimizer_open = None
            if self.batch_opens_forward and self.forward_open is None:
                self.forward_open = now  # (no hook on the model: its forward starts here)
            elif opened is None and self.timing is not None:
                self.timing.release(now)
        except Exception as exc:
            self.fault(exc)

    def on_closure_end(self):
        """A call of the step's closure returned or raised: the optimizer's own time again."""
        if self.hot != get_ident() and not (self.live and self.mine()):
            return
        try:
            now = self.mark()
            if self.forward_open is not None:  # a call that ran a forward and no backward
                self._add(FORWARD, self.forward_open, now)
                self.forward_open = None
            self.optimizer_open = now
        except Exception as exc:
            self.fault(exc)

    def _first_optimizer_step(self, optimizer):
        self.saw_optimizer = True
        self.primary = weakref.ref(optimizer)
        finder = self.finder
        if finder.model is not None and not finder.model_matches(optimizer):
            finder.discover()  # the model chosen in inference is not the one trained
        elif finder.model is None and not finder.discovering and finder.overdue():
            finder.discover()  # given up before any optimizer stepped: it names it now
        if self.marker:
            return
        was = self.mode
        self.mode = "train"
        self.steps_from = "optimizer"
        self.finder.training()  # no-grad forwards are not steps any more: no post hook
        if was == "inference":
            self.restart()

    def on_optimizer_post(self, optimizer, args, kwargs):
        if self.dynamo_tracing() or (self.hot != get_ident() and not (self.live and self.mine())):
            return
        try:
            opened = self.optimizer_open
            if opened is None:
                if self.closure_calls < 0:
                    return
            else:  # (None in a step whose closure was never called)
                timing = self.timing
                if timing is None:
                    self.optimizer_s += perf_counter() - opened
                else:
                    self._add(OPTIMIZER, opened, timing.mark())
                self.optimizer_open = None
            self.closure_calls = -1
            primary = self.primary() if self.primary is not None else None
            if self.unopened_backward is not None:
                self._unopened_backward_ends(primary is optimizer or primary is None)
            if primary is not optimizer:
                if primary is not None:
                    # another optimizer (a GAN's second one): the first ends steps
                    if id(optimizer) not in self.other_optimizers:
                        self._another_optimizer(optimizer)
                    return
                self.primary = weakref.ref(optimizer)  # the first is gone: this one ends them
            if not self.marker:
                self.end()
        except Exception as exc:
            self.fault(exc)

    def _unopened_backward_ends(self, ends_step):
        """An optimizer stepped after a backward that no batch's forward preceded: when it
        is the one that ends steps, that backward's forward had no batch of its own, and the
        model's hook times forwards from now on (that forward is not timed); another
        optimizer's step says the backward was its own update (a GAN's generator): the time
        from the step's start to that backward was its forward (the models' forwards count
        as one phase)."""
        seconds = self.unopened_backward
        self.unopened_backward = None
        if not self.batch_opens_forward:
            return
        if ends_step:
            self.finder.hook_forward()
        else:
            self.forward_s += seconds

    def _another_optimizer(self, optimizer):
        """An optimizer other than the one whose step ends a step trains a model of its own
        (once per optimizer): said in the config, and again if the config went."""
        if len(self.other_optimizers) >= 16:
            return
        # (the model's own parameters in it: a second optimizer of the same model)
        other_model = not self.finder.model_matches(optimizer)
        self.other_optimizers[id(optimizer)] = other_model
        if other_model and self.config_sent:
            self.probe.send_started(self.config())


def closure_of(optimizer, args, kwargs):
    """The closure given to optimizer.step (its first argument, or `closure=`), else None;
    and where that first argument is in the hooks' `args` (torch passes the optimizer itself
    first)."""
    index = 1 if args and args[0] is optimizer else 0
    closure = kwargs.get("closure") if kwargs else None
    if closure is None and len(args) > index and callable(args[index]):
        closure = args[index]
    return closure, index


def timed_closure(loop, closure):
    """The step's closure with its calls marked for the loop; the script's closure is called
    as given, and what it returns or raises goes back unchanged."""
    def closure_timed(*args, **kwargs):
        loop.on_closure_start()
        try:
            return closure(*args, **kwargs)
        except BaseException as exc:
            faults.leave_out_own_frame(exc)
            raise
        finally:
            loop.on_closure_end()
    return closure_timed
