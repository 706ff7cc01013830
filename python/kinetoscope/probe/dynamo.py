"""Keeping the probe's hooks out of torch.compile's graphs.

A hook torch calls inside a module's call is traced by Dynamo when the module runs compiled
(torch.compile(model) traces the module's hooks with its forward): the probe's Python there
(the thread check, the clocks) cannot be traced, so it would break the user's graph in two,
or fail a fullgraph=True compile. Every hook that can run inside a compiled call returns at
once while Dynamo traces it: torch.compiler.is_compiling() is True there, a constant, so
the compiled graph holds nothing of the probe; run eagerly, it is False. (torch < 2.3 has
no torch.compiler.is_compiling: the hooks are not guarded there.)
"""


def tracing_check(torch):
    """The function that says whether Dynamo is tracing now: torch's own, or one that
    always says no where torch has none."""
    compiler = getattr(torch, "compiler", None)
    check = getattr(compiler, "is_compiling", None)
    return check if callable(check) else _never


def _never():
    return False
