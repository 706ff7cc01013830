"""Finding the outermost module (the model) from torch's hooks.

While discovering, torch's GLOBAL forward pre/post hooks see every module call; a depth
counter (on the training thread) keeps the top-level calls (depth 0). Top-level modules
with parameters are the candidates (a loss module has none). The model is
- in training: the candidate whose parameters the optimizer holds (chosen at the first
  optimizer step);
- in inference: the first candidate called with grad disabled.
Once chosen, the global hooks are REMOVED (they slow every module call) and a pre/post
hook pair is put on the model alone: the pre hook only where the forward's start is needed
(see Loop.forward_from_batch: a training model on the CPU fed by a DataLoader has none, as
any hook on a module sends each of its calls down torch's slower path); the post hook only
until an optimizer steps (inference). If the optimizer turns out to hold another module's
parameters, discovery starts again. A loop with neither (weights updated by hand) ends
discovery after MAX_UNCHOSEN_CALLS top-level calls: the only candidate is the model, and
among several none is.

The hooks on the model are the probe's, never the model's: a copy of it (pickle,
torch.save(model), copy.deepcopy for an EMA model) is made without them (nn.Module is
given a __reduce_ex__ that leaves them out of the state, whatever __getstate__ the
model's class has), and torch.jit.script, which compiles a module's hooks, runs with them
taken off the model for the call.

torch.compile while discovering: Dynamo guards on the global hooks' count (it inlines the
submodules' calls), so global hooks there at the first compiled call and gone later
recompile the script's model once more than its bare run does; and a compiled module
called with global hooks on warns on the script's stderr. The first torch.compile call
made while discovering (compiled() below, from the wrapper in hooks.py) therefore ends
discovery before anything compiled runs: a module compiled (the usual `model =
torch.compile(model)`, Hugging Face's Trainer and accelerate) is the model, hooked on its
compiled wrapper, whose own hooks run outside the compiled code; a module's method
compiled (`module.compile()`, `torch.compile(model.forward)`) ends discovery with no model,
as a hook on it would run inside the compiled code, where Dynamo guards on it too: the
forward is not timed apart. Global hooks never come back after either: a rediscovery (the
optimizer holds another module's parameters) chooses among the modules the script
compiled (their compiled wrappers, remembered), without hooks; with none, the model stays
as it was. A plain function compiled changes nothing: one that calls no module (a loss, a
compiled optimizer step) sees no hook; one that calls the model (a whole step compiled)
hides its forward from any hook, and its graphs are recompiled once when the global hooks
go, as before.
"""
import functools
import importlib
import weakref
from threading import get_ident

from . import faults
from .dynamo import tracing_check

MAX_CANDIDATES = 16
# Top-level calls of modules with parameters that discovery waits through for an optimizer
# step or a no_grad forward: a loop that has neither (weights updated by hand, as the
# tutorials' `p -= lr * p.grad`) would keep the global hooks, ~5 us on every module call,
# for the whole run. Past this, the only candidate is the model, or discovery gives up.
MAX_UNCHOSEN_CALLS = 256


def first_parameter(module):
    for parameter in module.parameters():
        return parameter
    return None


class ModelFinder(object):
    def __init__(self, loop, torch):
        self._loop = loop
        self._torch = torch
        self.discovering = False
        self._global = []  # handles of the global hooks (discovery)
        self._local = []  # handles of the hooks on the model (its pre hook, if any)
        self._local_post = []  # handle of the model's post hook (until an optimizer steps)
        self._training = False  # an optimizer has stepped: the model's post hook is not needed
        self._candidates = []  # weakrefs, in order of first call
        self._with_params = {}  # id(module) -> has parameters (discovery only)
        self._model = None  # weakref to the model
        self._misses = 0  # optimizer steps whose parameters no candidate held
        self._unchosen_calls = 0  # top-level calls of candidates while discovering
        self.on_model = None  # called with the model once chosen, None when discovery restarts
        self._unwrap = []  # restores what install_guards() wrapped
        self._compiled = False  # torch.compile was called: global hooks no more (see doc)
        self._compiled_modules = []  # weakrefs: the compiled wrappers of modules (see doc)

    @property
    def model(self):
        return self._model() if self._model is not None else None

    # -- discovery --------------------------------------------------------------------------
    def discover(self):
        if self._compiled:
            self._discover_compiled()
            return
        if self.on_model is not None and self.model is not None:
            self.on_model(None)
        self._remove(self._local)
        self._remove(self._local_post)
        self._loop.batch_opens_forward = False
        self._model = None
        self._candidates = []
        self._with_params = {}
        self._unchosen_calls = 0
        loop = self._loop
        module_api = importlib.import_module("torch.nn.modules.module")
        tracing = tracing_check(self._torch)  # inside a compiled module's call: nothing

        def pre(module, args):
            if tracing():
                return None
            if not loop.live:
                loop.cleanup()
            elif loop.mine():
                depth = loop.depth
                loop.depth = depth + 1
                if depth == 0:
                    try:
                        loop.on_forward_pre(module, True)
                    except Exception as exc:
                        loop.fault(exc)
                else:  # each hooked call open is a frame of ours deeper (headroom.py)
                    loop.headroom.lend(depth + 1)
            return None

        def post(module, args, output):
            # Not always_call: on a forward that raised, torch would call this with no
            # output and a step must not end there. The loop resets the depth instead at
            # each batch, backward and optimizer step.
            if tracing():
                return None
            if loop.live and loop.mine():
                depth = loop.depth - 1
                loop.depth = depth if depth > 0 else 0
                if depth == 0:
                    if loop.headroom.lent:
                        loop.headroom.settle()
                    try:
                        loop.on_forward_post(module, True)
                    except Exception as exc:
                        loop.fault(exc)
            return None

        self._global.append(module_api.register_module_forward_pre_hook(pre))
        self._global.append(module_api.register_module_forward_hook(post))
        loop.depth = 0
        self.discovering = True

    def consider(self, module):
        """While discovering: True when this top-level module has parameters (and is then
        a candidate)."""
        key = id(module)
        known = self._with_params.get(key)
        if known is None:
            known = first_parameter(module) is not None
            if len(self._with_params) < 1024:
                self._with_params[key] = known
            if known and len(self._candidates) < MAX_CANDIDATES:
                self._candidates.append(weakref.ref(module))
        if known:
            self._unchosen_calls += 1
        return known

    def overdue(self):
        """Discovery has waited MAX_UNCHOSEN_CALLS top-level calls for a choice."""
        return self._unchosen_calls >= MAX_UNCHOSEN_CALLS

    def settle(self):
        """An overdue discovery ends: the one candidate there is becomes the model (returns
        its device, as choose()); among several none is taken on a guess, and the global
        hooks go (returns None: forwards are not timed)."""
        alive = [module for module in (ref() for ref in self._candidates) if module is not None]
        if len(alive) == 1:
            return self.choose(alive[0])
        self._end_discovery()
        return None

    def choose(self, module):
        """Makes `module` the model: global hooks off, hooks on it alone. Returns the
        device of its first parameter."""
        self._end_discovery()
        if self.model is not module:  # (a rediscovery after a compile keeps the old until now)
            self._remove(self._local)
            self._remove(self._local_post)
        self._model = weakref.ref(module)
        loop = self._loop
        parameter = first_parameter(module)
        device = parameter.device if parameter is not None else None
        loop.batch_opens_forward = self._training and loop.forward_from_batch(device)
        if not loop.batch_opens_forward:
            self.hook_forward()
        if not self._training:
            tracing = tracing_check(self._torch)  # a model compiled inside: nothing

            def post(module, args, output):
                if tracing():
                    return None
                if loop.hot == get_ident() or (loop.live and loop.mine()):
                    try:
                        loop.on_forward_post(module, False)
                    except Exception as exc:
                        loop.fault(exc)
                return None

            self._local_post.append(module.register_forward_hook(post))
        if self.on_model is not None:
            self.on_model(module)
        return device

    def hook_forward(self):
        """Puts the pre hook on the model (its forward's start), once: where it was chosen,
        or later when the loop turns out not to run one forward per batch
        (Loop.on_backward_start)."""
        loop = self._loop
        loop.batch_opens_forward = False
        model = self.model
        if model is None or self._local:
            return
        tracing = tracing_check(self._torch)  # a model compiled inside: nothing

        def pre(module, args):
            if tracing():
                return None
            if loop.hot == get_ident() or (loop.live and loop.mine()):
                try:
                    loop.on_forward_pre(module, False)
                except Exception as exc:
                    loop.fault(exc)
            elif not loop.live:
                loop.cleanup()
            return None

        self._local.append(model.register_forward_pre_hook(pre))

    def compiled(self, target, result):
        """After a torch.compile(target) call returned `result` (nothing compiled has run
        yet: compiling is lazy). While discovering: the global hooks go, and the model is
        chosen (see the module's doc). Returns the model's device when one was chosen."""
        module_type = self._torch.nn.Module
        if isinstance(target, module_type):
            if first_parameter(target) is None:
                return None
            self._compiled = True
            module = result if isinstance(result, module_type) else target
            if len(self._compiled_modules) < MAX_CANDIDATES:
                self._compiled_modules.append(weakref.ref(module))
            return self.choose(module) if self.discovering else None
        if isinstance(getattr(target, "__self__", None), module_type):  # a module's method
            self._compiled = True
            if self.discovering:
                self._end_discovery()
        return None

    def _discover_compiled(self):
        """discover() once the script has compiled: the modules it compiled are the
        candidates, chosen from by the next optimizer step (choose_for), without hooks."""
        alive = [ref for ref in self._compiled_modules if ref() is not None]
        if not alive:
            return  # nothing to choose from: the model, if any, stays
        self._remove(self._global)
        self._candidates = alive
        self._misses = 0
        self.discovering = True

    def choose_for(self, optimizer):
        """At an optimizer step while discovering: the candidate whose parameters the
        optimizer holds becomes the model (returns its device); after 3 steps with none,
        discovery gives up (no forward timing) rather than keep the global hooks."""
        held = self._parameter_ids(optimizer)
        for ref in self._candidates:
            module = ref()
            if module is not None and self._shares(module, held):
                return self.choose(module)
        self._misses += 1
        if self._misses >= 3:
            self._end_discovery()
        return None

    def model_matches(self, optimizer):
        model = self.model
        return model is not None and self._shares(model, self._parameter_ids(optimizer))

    def training(self):
        """An optimizer has stepped: only the pre hook is needed from now on (each hook
        costs every call of the model a few microseconds)."""
        self._training = True
        self._remove(self._local_post)

    def remove_all(self):
        self._end_discovery()
        self._remove(self._local)
        self._remove(self._local_post)
        self.remove_guards()

    def _end_discovery(self):
        """The global hooks off (they slow every module call), with or without a model."""
        self._remove(self._global)
        self.discovering = False

    # -- the model's copies ------------------------------------------------------------------
    def install_guards(self):
        """Gives nn.Module a __reduce_ex__ (pickle, torch.save, copy.deepcopy and copy.copy
        all reduce through it) and wraps torch.jit.script so that the probe's hooks on the
        model never go with it (see the module's doc). __reduce_ex__, not __getstate__: a
        model class with a __getstate__ of its own (nn.LSTM's, DDP's, a user's
        `self.__dict__.copy()`) never reaches nn.Module's. Each is best effort: nothing of
        ours can fail the script's call."""
        finder = self
        module_type = self._torch.nn.Module
        original_reduce = module_type.__dict__.get("__reduce_ex__")  # (none: object's)
        reduce = original_reduce if callable(original_reduce) else object.__reduce_ex__

        def __reduce_ex__(module, protocol):
            try:
                reduced = reduce(module, protocol)  # (a class's own __reduce__ is inside)
            except BaseException as exc:
                faults.leave_out_own_frame(exc)
                raise
            if module is finder.model and (finder._local or finder._local_post):
                try:
                    reduced = finder._without_hooks_reduced(reduced)
                except Exception as exc:
                    faults.pass_on_scripts(exc)
            return reduced

        module_type.__reduce_ex__ = __reduce_ex__
        self._unwrap.append(
            lambda: _restore(module_type, "__reduce_ex__", __reduce_ex__, original_reduce))

        jit = getattr(self._torch, "jit", None)
        original_script = getattr(jit, "script", None)
        if callable(original_script):

            @functools.wraps(original_script)
            def script(*args, **kwargs):
                try:
                    taken = finder._take_hooks_off()
                except Exception as exc:
                    faults.pass_on_scripts(exc)
                    taken = []
                try:
                    return original_script(*args, **kwargs)
                except BaseException as exc:
                    faults.leave_out_own_frame(exc)
                    raise
                finally:
                    try:
                        finder._put_hooks_back(taken)
                    except Exception as exc:
                        faults.pass_on_scripts(exc)

            jit.script = script
            self._unwrap.append(lambda: _restore(jit, "script", script, original_script))

    def remove_guards(self):
        while self._unwrap:
            try:
                self._unwrap.pop()()
            except Exception as exc:
                faults.pass_on_scripts(exc)

    def _ours(self):
        """(hooks dict, key) of each hook the probe put on the model."""
        for handle in self._local + self._local_post:
            # the hook's dict, and those that flag it (with kwargs, always called)
            for ref in (handle.hooks_dict_ref,) + tuple(handle.extra_dict_ref or ()):
                hooks = ref()
                if hooks is not None and handle.id in hooks:
                    yield hooks, handle.id

    def _without_hooks_reduced(self, reduced):
        """A __reduce_ex__ result whose state (a dict, or a (dict, slots) pair) holds the
        probe's hooks without them; any other result as it is."""
        if not isinstance(reduced, tuple) or len(reduced) < 3:
            return reduced
        state = reduced[2]
        if isinstance(state, dict):
            state = self._without_hooks(state)
        elif isinstance(state, tuple) and len(state) == 2 and isinstance(state[0], dict):
            state = (self._without_hooks(state[0]), state[1])
        else:
            return reduced
        return reduced[:2] + (state,) + reduced[3:]

    def _without_hooks(self, state):
        """The module's state (a dict copy of its __dict__) with copies of its hook dicts
        that leave the probe's out."""
        ours = list(self._ours())
        if not ours:
            return state
        state = dict(state)
        for name, value in list(state.items()):
            if any(value is hooks for hooks, _ in ours):
                kept = type(value)()
                keys = {key for hooks, key in ours if hooks is value}
                for key, hook in value.items():
                    if key not in keys:
                        kept[key] = hook
                state[name] = kept
        return state

    def _take_hooks_off(self):
        taken = []
        for hooks, key in list(self._ours()):
            taken.append((hooks, key, hooks.pop(key)))
        return taken

    @staticmethod
    def _put_hooks_back(taken):
        for hooks, key, hook in taken:
            hooks[key] = hook

    # -- helpers ----------------------------------------------------------------------------
    @staticmethod
    def _parameter_ids(optimizer):
        return {id(p) for group in optimizer.param_groups for p in group.get("params", ())}

    @staticmethod
    def _shares(module, held):
        return any(id(p) in held for p in module.parameters())

    @staticmethod
    def _remove(handles):
        while handles:
            try:
                handles.pop().remove()
            except Exception as exc:
                faults.pass_on_scripts(exc)


def _restore(owner, name, wrapper, original):
    """Puts `original` back (None: the attribute was not the owner's own, and is taken off
    again) unless someone wrapped `wrapper` since (theirs then stays, and ours does nothing
    once the model's hooks are gone)."""
    if vars(owner).get(name) is not wrapper:
        return
    if original is None:
        delattr(owner, name)
    else:
        setattr(owner, name, original)
