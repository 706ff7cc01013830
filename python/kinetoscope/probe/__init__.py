"""The probe that rides inside a user's own training run (`kinetoscope profile`).

Started by python/boot/sitecustomize.py through `start()`; pure Python (>= 3.9), the
standard library only until the script imports torch (>= 2.1). What each module does:

  runtime.py   activation, arming on torch's import, the end (done)
  outbox.py    the messages out, whatever carries them: lines, post/send, the writer thread
  channel.py   the launcher's socket: messages out, cancel in
  ranks.py     job mode: a rank of a torchrun/srun job, its folder, the stop step after a cancel
  filechannel.py  a rank's stream file: messages out, the cancel file polled
  descriptor.py  whether a descriptor the probe holds is still its own (os.closerange)
  arming.py    the sys.meta_path hook that arms when the script imports torch
  options.py   KINETOSCOPE_PROBE_OPTIONS
  steps.py     the step loop: boundaries, phases, progress and step messages
  model.py     finding the model (outermost module) and hooking it alone
  hooks.py     what is put into torch: DataLoader, backward, optimizer, step marker
  passthrough_importlib_bootstrap.py  the backward wrapper, in frames warnings pass over
  headroom.py  the recursion limit, raised by the frames the probe's hooks add
  signal_report.py  the signals the script got, for the launcher (Python's wakeup fd)
  arms.py      the lab's arms on the script's model: fp32, bf16 (autocast), bf16+compile
  overrides.py the lab's seed and DataLoader overrides, applied at arming
  clocks.py    CUDA-event timing read back a step later
  window.py    the torch.profiler window -> trace.json
  forkexit.py  a child forked after the window exits instead of hanging in Kineto
  memory.py    CUDA allocator figures, the memory snapshot
  samples.py   live allocator samples while CUDA is initialised
  report.py    the environment, how the script ended
  faults.py    the one-line stderr message when a part turns itself off
"""


def start():
    from .runtime import start as _start

    return _start()
