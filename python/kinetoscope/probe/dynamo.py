"""Keeping the probe's hooks out of torch.compile's graphs.

A hook torch calls inside a module's call is traced by Dynamo when the module runs compiled
(torch.compile(model) traces the module's hooks with its forward): the probe's Python there
(the thread check, the clocks) cannot be traced, so it would break the user's graph in two,
or fail a fullgraph=True compile. Every hook that can run inside a compiled call returns at
once while Dynamo traces it: torch.compiler.is_compiling() is True there, a constant, so
the compiled graph holds nothing of the probe; run eagerly, it is False. (torch < 2.3 has
no torch.compiler.is_compiling: the hooks are not guarded there.)

Two checks, for two kinds of hook:
- tracing_check: a module's hooks, which torch.export's non-strict mode also runs (outside
  Dynamo, under is_compiling());
- dynamo_tracing_check: the optimizer step's hooks, which only Dynamo can trace (export
  never steps an optimizer): torch.compiler.is_dynamo_compiling, one Python call where
  is_compiling makes two, on a path that runs twice a step.
"""


def tracing_check(torch):
    """The function that says whether Dynamo (or export) is tracing now: torch's own, or
    one that always says no where torch has none."""
    return _compiler_function(torch, "is_compiling")


def dynamo_tracing_check(torch):
    """The function that says whether Dynamo is tracing now (see the module's doc)."""
    return _compiler_function(torch, "is_dynamo_compiling", "is_compiling")


def _compiler_function(torch, *names):
    compiler = getattr(torch, "compiler", None)
    for name in names:
        check = getattr(compiler, name, None)
        if callable(check):
            return check
    return _never


def _never():
    return False
