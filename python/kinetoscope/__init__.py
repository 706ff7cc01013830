"""Kinetoscope's Python side.

`kinetoscope.lab(model_fn, loader, ...)` runs the three-run lab (fp32, bf16 autocast,
bf16 + torch.compile) on your own model and data in this process and writes a session
the app opens; `kinetoscope.open(path)` reads a trace, a session, a job's folder or a
memory snapshot through the `kinetoscope` binary. Both live in `kinetoscope.api` and are
imported when first called.

`kinetoscope.probe` is the pure-Python probe that `kinetoscope profile -- python train.py`
puts inside a user's own run (started by python/boot/sitecustomize.py). It measures and
reports over the launcher's socket; it never analyses (the analysis is the C++ core's).

Importing this package imports nothing else: no torch, no thread, no file.
"""

__version__ = "0.1.0"


def lab(model_fn, loader, loss_fn=None, optimizer_fn=None, steps=30, warmup=5,
        arms=("fp32", "bf16", "bf16+compile"), device=None, compile_mode=None, out=None,
        open=False, seed=0):
    """The three-run lab on your own model and data, in this process: see
    kinetoscope.api.lab.lab. Returns a LabResult (.arms, .session_path, .table())."""
    from .api.lab import lab as _lab

    return _lab(model_fn, loader, loss_fn=loss_fn, optimizer_fn=optimizer_fn, steps=steps,
                warmup=warmup, arms=arms, device=device, compile_mode=compile_mode, out=out,
                open=open, seed=seed)


def open(path, threads=None, as_pandas=None):  # noqa: A001 (kinetoscope.open, by design)
    """A trace, a session, a job's folder or a memory snapshot, read by the `kinetoscope`
    binary: a Report (.findings, .tables, .summary, .diagnosis). See
    kinetoscope.api.reader.open_path."""
    from .api.reader import open_path

    return open_path(path, threads=threads, as_pandas=as_pandas)
