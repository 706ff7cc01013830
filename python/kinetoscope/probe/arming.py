"""Arming on `import torch`: the probe never imports torch before the script does (the
script may set CUDA_VISIBLE_DEVICES, threads, ... first).

A `sys.meta_path` finder answers only for the top-level name "torch": it asks the finders
after it for the real spec (so the import is the one Python would have done), and wraps
that spec's loader's `exec_module` on the loader instance (its type is unchanged) so that
once torch's own `__init__` has run, `on_torch()` is called. The finder then leaves
`sys.meta_path`. If torch is already imported, `on_torch()` runs at once.
"""
import sys


class TorchImportHook(object):
    def __init__(self, on_torch):
        self._on_torch = on_torch
        self._busy = False

    def install(self):
        if "torch" in sys.modules:
            self._on_torch()
        else:
            sys.meta_path.insert(0, self)

    def remove(self):
        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass

    # importlib's finder protocol
    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" or self._busy:
            return None
        self._busy = True
        try:
            spec = None
            for finder in list(sys.meta_path):
                find = getattr(finder, "find_spec", None) if finder is not self else None
                if find is None:
                    continue
                spec = find(fullname, path, target)
                if spec is not None:
                    break
        finally:
            self._busy = False
        loader = getattr(spec, "loader", None) if spec is not None else None
        exec_module = getattr(loader, "exec_module", None)
        if exec_module is None:
            return spec  # an unusual loader: torch imports as usual, the probe stays unarmed
        hook = self

        def exec_module_then_arm(module):
            try:
                exec_module(module)
            finally:
                try:
                    del loader.exec_module  # back to the loader type's own method
                except AttributeError:
                    pass
            hook.remove()
            hook._on_torch()

        try:
            loader.exec_module = exec_module_then_arm
        except Exception:
            return spec
        return spec

