"""The step loop: where steps begin and end, the phases of each, and what is sent. Its
parts elsewhere: the optimizer's hooks and closures (optimizer_steps.py, its base class),
the run's config (run_config.py), the messages' text (step_lines.py).

Steps are numbered from 0 (warm-up included). Steps 0..skip-1 are warm-up, skip..
skip+active-1 the profiler window (profiled, not sent: the profiler inflates them), and
every step from skip+active on is measured (a `step` message).

A step ENDS at its boundary:
- training: the post-hook of the step's optimizer (the first one seen; gradient
  accumulation's several forwards and backwards stay one step);
- inference (no optimizer has stepped): the model's forward called with grad disabled;
- `--step-marker NAME`: the exit of record_function(NAME), or a return from the script's
  function NAME / module:NAME.
A step BEGINS at the first hook event after the previous boundary (a batch fetched, a
forward, a backward, an optimizer step, the marker): the profiler window is started,
stepped or finished there, outside every phase. One post a step: at a measured step's
boundary its `step` line alone (the launcher reads it as the next step's start: the
measured stage is the last); at any other boundary the next step's `progress` (step 0's
at its beginning).
Messages are posted as (format, arguments): the channel's writer thread formats them.
A run first taken for inference (no-grad forwards before any optimizer step: a validation
pass, a frozen teacher) that turns out to train starts again at step 0 with a new
`started` (mode "train"); the launcher keeps the steps after it.

Phases per step, in milliseconds:
- data: host time inside the DataLoader iterator's __next__ (summed; the call that ends its
  epoch too), only for the iterator that feeds the model (a validation loader's batches are
  not the step's);
- h2d: end of the last __next__ -> start of the model's forward (the copies to the device);
- forward: the model's forward start -> backward start (the loss included); in inference
  the forward's own start -> end; a training model on the CPU fed by a DataLoader has no
  hook (forward_from_batch): its forward runs from the batch's end, and h2d is 0;
- backward: torch.autograd.backward (loss.backward() included), the outermost call;
- optimizer: optimizer pre-hook -> post-hook;
- wall: the previous step's boundary -> this step's, less the profiler window's own work
  (starting it, writing its trace) (host clock always; step 0's from
  its beginning): everything the loop did, the script's own code and the probe's included.
On the CPU these are time.perf_counter(); on CUDA (the model's device) events (clocks.py),
except data, always host time. Hooks run on the training thread only (the thread of the
first hook event); other threads' calls are ignored.
"""
import time
import weakref
from threading import get_ident

from . import faults, run_config, step_lines
from .dynamo import dynamo_tracing_check
from .headroom import Headroom
from .model import ModelFinder, first_parameter
from .optimizer_steps import OptimizerSteps
from .outbox import FLUSH_S
from .phases import BACKWARD, FORWARD, H2D, OPTIMIZER
_NAN = float("nan")
# Seconds: a step reads its loss (item(), or a copy to the host on CUDA: microseconds on the
# training thread) when it will likely end at least this long after the last step that was
# due to read it (judged at its start from the step before: see end()). Every step of a loop
# whose steps take 10 ms or more; one in so many of a faster one (the others' loss is null,
# unknown): of the order of 100 reads a second.
LOSS_EVERY_S = 0.01
perf_counter = time.perf_counter


class Loop(OptimizerSteps):
    # Every attribute is a slot (a fixed place in the object, no dict): the hooks run once
    # or twice a step between the script's tensor operations, with the caches cold, where
    # each object and dict they touch costs a miss. The hooks' state comes first.
    __slots__ = (
        "hot", "live", "begun", "timing", "step", "boundary", "wall_s", "data_s", "other_s",
        "h2d_s", "forward_s", "backward_s", "optimizer_s", "loss", "read_loss",
        "loss_read_at", "next_end", "forward_open", "inference_open", "optimizer_open",
        "src", "last_src", "batch_opens_forward", "backward_depth", "depth",
        "measured_from", "post", "append", "posted_at", "config_sent", "lab", "cancel_by",
        "total", "window_due", "cuda", "tid", "primary", "marker", "finder",
        "dynamo_tracing", "announced", "saw_backward", "saw_optimizer", "_grad_enabled",
        "_tensor", "_modes_active", "scaled_loss", "headroom", "model_calls", "batches",
        "other_batches", "other_grad_s", "partner_s", "closure_calls", "unopened_backward",
        # the rest
        "probe", "torch", "_clocks", "skip", "active", "limit", "window", "memory", "mode",
        "cleanup_pending", "cancel_at", "steps_from", "device", "marker_kind",
        "marker_wrapped", "loaders", "first_batch_size", "batches_per_step", "pairs",
        "loss_device", "other_optimizers")

    def __init__(self, probe, torch, clocks_module):
        options = probe.options
        self.probe = probe
        self.post = probe.channel.post  # frequent messages, coalesced (outbox.py)
        self.append = probe.channel.appender()  # post() without its checks (see end())
        self.posted_at = -1.0  # perf_counter when end() last posted
        self.torch = torch
        self._clocks = clocks_module
        self._tensor = torch.Tensor
        self._modes_active = _modes_check(torch)
        self._grad_enabled = torch.is_grad_enabled
        self.skip = options.skip
        self.active = options.active
        self.measured_from = options.skip + options.active  # first measured step
        self.limit = options.steps
        self.total = options.total_steps  # 0: unbounded
        self.marker = options.step_marker
        self.window = probe.window
        self.window_due = self.window.enabled
        self.memory = probe.cuda_memory
        self.finder = ModelFinder(self, torch)
        self.dynamo_tracing = dynamo_tracing_check(torch)  # (the optimizer hooks' guard)
        self.lab = probe.lab  # arms.Lab with the lab's options, else None
        self.boundary = None  # perf_counter at the last step boundary (wall time)
        self.wall_s = 0.0  # the step that just ended
        self.read_loss = True  # the step in flight reads its loss (see end())
        self.loss_read_at = 0.0  # perf_counter at the end of the last step due to read it

        self.live = True  # False once off: a fault, the launcher gone, a forked child
        self.hot = None  # the training thread's id while live with its step begun, else None:
        # the hooks' whole test on their fast path (one comparison with get_ident())
        self.cleanup_pending = False  # off, but the profiler still to stop on our thread
        self.tid = None  # the training thread
        self.step = 0  # the step in flight
        self.begun = False  # its beginning (window, timing) done
        self.announced = -1  # the last step whose progress was sent
        self.mode = None  # "train" | "inference" once known
        self.steps_from = ("marker " + self.marker) if self.marker else None
        self.device = None  # the model's device (first a provisional guess)
        self.cuda = None  # CudaTiming when the device is CUDA
        self.timing = None  # the step in flight's: CudaTiming, or None for the host clock
        self.config_sent = False
        self.cancel_by = None  # set by the channel's reader thread
        self.cancel_at = 0  # a cancel stops at the boundary where self.step reaches it (job
        # mode: the step every rank agreed on, ranks.py; else 0: the next boundary)
        self.saw_optimizer = False
        self.saw_backward = False
        self.primary = None  # weakref: the optimizer whose step ends a step
        # id -> whether it trains another model, for each other optimizer that stepped (a
        # GAN's second one trains its generator; Muon beside AdamW, the same model): the
        # models they train are not the one the lab's arms change (said in the config)
        self.other_optimizers = {}
        self.marker_kind = None  # "label" | "function": the first that fired
        self.marker_wrapped = False
        self.loaders = {}  # id(iterator) -> loader config strings (until config is sent)
        self.first_batch_size = None
        # The feeding iterator's batches in the first measured step (gradient accumulation
        # takes several a step): a step's samples are that many batches' (0: not known).
        self.batches_per_step = 0
        self.src = None  # id of the iterator that feeds the model
        self.last_src = None  # id of the iterator of the last batch
        self.depth = 0  # module call depth while discovering (training thread)
        self.batch_opens_forward = False  # the model has no pre hook: its forward is timed
        # from the batch (forward_from_batch); set by the finder
        # A backward that no batch's forward preceded ran in this step, its reading waiting
        # for the next optimizer step (on_backward_start): the host seconds from the step's
        # start to it (the forward of another model's update, if that is what it is), or None
        self.unopened_backward = None
        self.backward_depth = 0
        self.scaled_loss = None  # weakrefs (scaled, loss) of GradScaler.scale's last call
        self.headroom = Headroom()  # the recursion limit, raised by our hooks' frames
        self.model_calls = 0  # calls of the model since the step began (or its backward)
        self.pairs = []  # CUDA: (phase, start event, end event)
        self.loss_device = None  # CUDA part of the loss: a 0-d float32 tensor
        self._new_step_state()

    def _new_step_state(self):
        self.data_s = 0.0  # seconds in the feeding iterator's __next__
        self.batches = 0  # the feeding iterator's batches in the step
        self.other_s = 0.0  # seconds in other iterators' since the model's last forward
        self.other_batches = 0  # and their batches
        # Of the other iterators' seconds since the model's last forward, those of a batch
        # fetched with grad enabled that was not its iterator's second in a row (a training
        # batch zipped with the feeding one's, a GAN's images and noise; not a validation's,
        # under no_grad, in a loop of its own, or fed to a no_grad forward): all of them
        # (partner_s, the step's data too), and the last other iterator's alone
        # (other_grad_s, in other_s).
        self.partner_s = self.other_grad_s = 0.0
        # host clock: seconds per timed phase (attributes, not a list: the cheapest to add to)
        self.h2d_s = self.forward_s = self.backward_s = self.optimizer_s = 0.0
        if self.timing is not None:
            self.pairs = []
            self.loss_device = None
        self.next_end = None  # mark at the end of the last batch fetch, until a forward
        self.forward_open = None  # mark: a training forward started (closed by backward)
        self.inference_open = None  # mark: a no-grad forward of the model started
        self.optimizer_open = None
        self.closure_calls = -1  # in optimizer.step(closure): the closure's calls so far
        self.model_calls = 0
        self.loss = None  # host part of the step's loss (the sum over its backward calls):
        # None until one is read; NaN once one could not be (the step's loss is unknown)

    # -- state ------------------------------------------------------------------------------
    def mine(self):
        """True on the training thread (the first thread that asks is it). The hooks test
        `loop.hot == get_ident()` first and ask this only when that fails."""
        return self.tid == get_ident() or self.claim()

    def claim(self):
        if self.tid is None:
            self.tid = get_ident()
            return True
        return False

    def go_inert(self):
        """Every hook is the original call from now on (no clean-up: see turn_off)."""
        self.live = False
        self.hot = None

    def fault(self, exc):
        """A fault in the probe's own step code: steps off for good, one line, the script
        goes on. An exception of the script's signal handler is raised on (faults)."""
        try:
            if self.live:
                faults.part_disabled("step timing", exc)
                self.turn_off(on_training_thread=True)
        finally:  # (even when turning off failed: the script's exception goes on)
            faults.pass_on_scripts(exc)

    def turn_off(self, on_training_thread):
        """Off for good. Hooks are removed and the window stopped on the training thread
        only (torch iterates some hook tables in Python; the profiler is thread-local):
        from another thread (the launcher gone) the hooks turn inert now and the next one
        that runs on the training thread cleans up."""
        self.go_inert()
        if on_training_thread:
            self._remove_everything()
        else:
            self.cleanup_pending = True

    def cleanup(self):
        """Called by a hook once the loop is off."""
        if self.cleanup_pending and self.mine():
            self.cleanup_pending = False
            self._remove_everything()

    def _remove_everything(self):
        try:
            self.finder.remove_all()
        except Exception as exc:
            faults.pass_on_scripts(exc)
        self.window.abandon(for_good=True)

    def mark(self):
        timing = self.timing
        return perf_counter() if timing is None else timing.mark()

    def _add(self, phase, start, end):
        if self.timing is None:  # (the hot paths add to their phase's attribute themselves)
            if phase == FORWARD:
                self.forward_s += end - start
            elif phase == OPTIMIZER:
                self.optimizer_s += end - start
            elif phase == BACKWARD:
                self.backward_s += end - start
            else:
                self.h2d_s += end - start
        elif start is not None and end is not None:  # None: marked during a graph capture
            self.pairs.append((phase, start, end))

    def set_device(self, device):
        if device is None or device == self.device:
            return
        self.device = device
        if self.cuda is not None and self.cuda.waiting:
            self.cuda.poll(self.emit, wait=True)  # rare: the model moved (a rediscovery)
        self.cuda = None
        if device.type == "cuda":
            self.cuda = self._clocks.CudaTiming(self.torch, device)

    def forward_from_batch(self, device):
        """Whether a training model on `device` can be timed without a hook of its own: on
        the CPU, fed by a DataLoader (a batch has started its forward), with steps not
        taken from a marker, outside a lab (whose bf16 arm hooks the model: every arm has
        the same hooks). Its forward then runs from the batch's arrival to backward (h2d,
        with no copy to a device to time, stays 0): a hook on the model would send every
        call of it down torch's slower path, the probe's largest cost a step. A loop that
        turns out to run forwards without a batch of their own gets the hook back
        (on_backward_start)."""
        return (device is not None and device.type == "cpu" and self.src is not None
                and not self.marker and self.lab is None)

    def cuda_index(self):
        return self.cuda.index if self.cuda is not None else 0

    def _cuda_in_use(self):
        if self.cuda is not None:
            return True
        try:
            return bool(self.torch.cuda.is_initialized())
        except Exception as exc:
            faults.pass_on_scripts(exc)
            return False

    # -- step boundaries --------------------------------------------------------------------
    def begin(self):
        self.begun = True
        step = self.step
        if self.boundary is None:
            self.boundary = perf_counter()  # step 0's wall time runs from its beginning
        if self.window_due:  # the window may start, step or end at this step
            window_work = perf_counter()
            window = self.window
            if window.open:
                if step < self.measured_from:
                    window.step()
                else:
                    window.finish()
            elif window.enabled and step == self.skip:
                window.start(step, self._cuda_in_use())
            self.window_due = window.open or (window.enabled and step < self.skip)
            if window.news:  # (given up in the last step, or not opened now): config again
                window.news = False
                self.config_sent = False
            # The profiler's own start and stop (a trace written) are not the step's time.
            self.boundary += perf_counter() - window_work
        self.timing = self.cuda
        if self.cuda is not None and step >= self.measured_from:
            self.memory.reset_peaks(self.cuda.index)  # peaks from the step's start
        if self.announced != step:
            self._send_progress(step)
        if self.live:
            self.hot = self.tid

    def _send_progress(self, step):
        self.announced = step
        self.post((step_lines.progress_line, (step, self.skip, self.measured_from, self.total)))

    def end(self):
        """The step in flight has ended: record it, move on, stop if asked to. (Runs once a
        step on the training thread: the common path is kept short.)"""
        now = perf_counter()
        boundary = self.boundary
        self.wall_s = wall_s = now - boundary if boundary is not None else 0.0
        self.boundary = now
        # Whether the next step reads its loss: when it will likely end LOSS_EVERY_S or more
        # after the last step that was due to (this step's wall time as the guess). A step due
        # to read it that had none (no backward, not a tensor) counts as one that did.
        if self.read_loss:
            self.loss_read_at = now
        self.read_loss = now - self.loss_read_at + wall_s >= LOSS_EVERY_S
        lab = self.lab
        if lab is not None:
            lab.step_end()  # autocast never stays entered across a boundary
        step = self.step
        if self.src is None:  # no forward told which iterator feeds the model
            self.data_s += self.other_s + self.partner_s - self.other_grad_s
            self.batches += self.other_batches
        if self.timing is None:
            line = None
            if step >= self.measured_from:  # formatted from seconds by the writer thread
                line = (step_lines.host_step_line, (step, self.data_s, self.h2d_s, self.forward_s,
                                          self.backward_s, self.optimizer_s, self.loss, wall_s))
            if self.cuda is not None:  # (the model moved to CUDA during this step)
                self.cuda.poll(self.emit)
        else:
            line = self._end_on_device(step, wall_s)
        if step == self.measured_from:
            self.batches_per_step = self.batches
        self.step = step = step + 1
        self.depth = 0
        if self.headroom.lent:
            self.headroom.settle()
        self._new_step_state()
        if (not self.config_sent or lab is not None or self.cancel_by is not None
                or (self.total and step >= self.total) or step == self.measured_from + 1):
            self.begun = False
            self.hot = None
            line = self._after_end(line)
        # The next step starts now: a measured step's line says so (see the module's doc).
        self.announced = step
        if line is None:
            line = (step_lines.progress_line, (step, self.skip, self.measured_from, self.total))
        posting = perf_counter()  # (not `now`: end() may have been held up since)
        if posting - self.posted_at < FLUSH_S and step & 63:
            self.append(line)  # the writer is awake: this loop posted less than FLUSH_S ago
        else:
            self.post(line)  # (and every 64th step: post()'s checks)
        self.posted_at = posting
        # On the host clock with no window to start or step, begin() would do nothing more
        # at the next step's first event: that step is begun now.
        if not self.window_due and self.cuda is None and self.live:
            self.begun = True
            self.timing = None
            self.hot = self.tid
        else:
            self.begun = False
            self.hot = None

    def _end_on_device(self, step, wall_s):
        """end() on CUDA: a measured step's record waits for its events (CudaTiming.poll
        posts it); the step's events go back to the pool. Returns None (no line yet)."""
        timing = self.timing
        if step >= self.measured_from:
            host_loss = self.loss
            memory = self.memory.read(timing.index)
            loss_ref = None
            if host_loss is not None and self.loss_device is not None and host_loss == host_loss:
                loss_ref = timing.loss_copy(self.loss_device)  # (not when NaN: the loss is unknown)
            timing.submit(step, (self.data_s * 1e3, wall_s * 1e3), self.pairs, host_loss,
                          loss_ref, memory)
        else:
            timing.release_pairs(self.pairs)
        timing.release(self.next_end)
        timing.release(self.forward_open)
        timing.release(self.inference_open)
        if self.cuda is not None:
            self.cuda.poll(self.emit)
        return None

    def _after_end(self, line):
        """end()'s rarer work: the config sent once, a lab's figures, a stop (--steps, a
        cancel, the lab's). Returns the step's line if it is still to be posted."""
        lab = self.lab
        if not self.config_sent:
            self.config_sent = True
            if line is not None:
                self.post(line)
                line = None
            self.probe.send_started(self.config())
        elif lab is not None and lab.dirty:
            self.probe.send_started(self.config())  # the lab's figures changed
        elif self.step == self.measured_from + 1 and self.batches_per_step > 1:
            self.probe.send_started(self.config())  # several batches a step
        if self.total and self.step >= self.total:
            stop_by = "--steps %d" % self.limit
        elif self.cancel_by is not None and self.step >= self.cancel_at:
            stop_by = self.cancel_by
        elif lab is not None and lab.stop_by:
            stop_by = lab.stop_by
        else:
            return line
        if line is not None:
            self.post(line)
        self.probe.stop(stop_by)  # raises SystemExit(0) (runtime.py)
        return None

    def emit(self, step, host, phases, loss, memory):
        """CudaTiming's record: host = (data ms, wall ms), the step's host-clock figures."""
        self.post((step_lines.step_line, (step, host[0], phases[0], phases[1], phases[2], phases[3], loss,
                                memory, host[1])))

    def restart(self):
        """The run turned out to be training after steps counted as inference (a
        validation pass or a frozen teacher before the first optimizer step): the count
        starts again at 0 with the step in flight; a window taken is taken again."""
        self.window.restart()
        self.window_due = self.window.enabled
        self.step = 0
        self.config_sent = False
        self._send_progress(0)
        if self.window.enabled and self.skip == 0:
            self.window.start(0, self._cuda_in_use())

    def finish_at_exit(self):
        """atexit, on the main thread: close an open window (its trace is written), read
        the CUDA records still waiting."""
        if self.live:
            self.window.finish()
        else:
            self.window.abandon(for_good=True)
        if self.live and self.cuda is not None:
            try:
                self.cuda.poll(self.emit, wait=True)
            except Exception as exc:
                faults.part_disabled("step timing", exc)

    # -- hook events (training thread, loop live) ---------------------------------------------
    def on_loader_iter(self, loader, iterator):
        if self.marker and not self.marker_wrapped:
            self.marker_wrapped = self.probe.wrap_marker_function()
        if not self.config_sent and len(self.loaders) < 64:  # (a restart sends it again)
            config = run_config.loader_config(loader)
            # (above this frame: hooks.py's __iter__, then whoever asked for the iterator)
            package = run_config.iterating_package(frames_above=2)
            if package:
                config["loader_loop"] = package
            self.loaders[id(iterator)] = config

    def on_batch(self, iterator, started, ended, batch):
        src = id(iterator)
        if src == self.src:
            self.data_s += ended - started
            self.batches += 1
        else:
            if src != self.last_src:
                self.other_s = 0.0  # only the last other iterator's batches may be adopted
                self.other_batches = 0
                self.other_grad_s = 0.0
                if self._grad_enabled():  # (a validation's batches come under no_grad)
                    self.partner_s += ended - started
                    self.other_grad_s = ended - started
            else:  # twice in a row: a loop of its own (a validation's), not a zipped partner
                self.partner_s -= self.other_grad_s
                self.other_grad_s = 0.0
            self.other_s += ended - started
            self.other_batches += 1
        self.last_src = src
        self._fetch_ended(ended)
        if not self.config_sent and self.first_batch_size is None:
            self.first_batch_size = run_config.batch_size_of(batch, self._tensor)

    def on_loader_end(self, iterator, started, ended):
        """An iterator's __next__ raised StopIteration (its epoch's end). For the one that
        feeds the model the call's time is the step's data, and the forward runs from its
        end as from a batch's arrival (no batch counted): a loop that fetches one batch
        ahead of its forward (accelerate's DataLoaderShard, timm's PrefetchLoader) hands
        out the epoch's last batch after this call, fetched a step before; in any other
        loop the next batch's arrival moves the mark on."""
        src = id(iterator)
        if src != self.src:
            return
        self.data_s += ended - started
        self.last_src = src
        self._fetch_ended(ended)

    def _fetch_ended(self, ended):
        """A fetch of the feeding iterator's (or a batch of any) ended at `ended`
        (perf_counter): what follows until the model's forward is the step's h2d."""
        timing = self.timing
        if timing is None:
            self.next_end = ended
            if self.batch_opens_forward and self._grad_enabled():
                self.forward_open = ended  # (a no-grad batch is a validation's, not the step's)
        else:
            timing.release(self.next_end)
            self.next_end = timing.mark()
        if self.depth:
            self.depth = 0

    def on_forward_pre(self, module, discovering):
        if self.backward_depth:
            return  # activation checkpointing runs the forward again inside the backward
        if not self.begun:
            self.begin()
        if discovering:
            if not self.finder.consider(module):
                return  # no parameters: a loss or a transform, not the model
            if self.device is None:  # a first guess, used from the next step on
                self.set_device(first_parameter(module).device)
            if self.finder.overdue():  # no optimizer step, no no_grad forward so far
                self.set_device(self.finder.settle())
            if self.marker and not self.marker_wrapped:
                self.marker_wrapped = self.probe.wrap_marker_function()
        calls = self.model_calls + 1  # (the model's calls since the step began or backward)
        self.model_calls = calls
        if calls > 1:  # inside its own forward (a recursive model), each call is a frame of
            self.headroom.lend(calls)  # ours deeper; lent for sequential calls too (bounded)
        grad = self._grad_enabled()
        if grad:
            if self.forward_open is not None:
                return  # the model called again before the loss's backward
        elif self.mode == "train":
            self.partner_s = self.other_grad_s = 0.0  # what it was fed was a validation's
            return
        timing = self.timing
        now = perf_counter() if timing is None else timing.mark()
        if self.next_end is not None:  # the model's forward starts after a batch
            self._batch_went_in(now)
        if grad:
            self.forward_open = now
        else:
            self.inference_open = now

    def _batch_went_in(self, now):
        """The batch went into the model (its forward, or the step's closure) at `now`: the
        time since it came is the step's h2d."""
        self._batch_fed_model()
        self._add(H2D, self.next_end, now)
        self.next_end = None

    def _batch_fed_model(self):
        """The last batch went into the model: its iterator is the one that feeds it (its
        batches are counted), and the training batches other iterators gave since the last
        forward were fetched for it too (their time is the step's data)."""
        partners_s = self.partner_s
        if self.last_src != self.src:
            self.src = self.last_src  # a new epoch's iterator, or the first
            self.data_s += self.other_s
            self.batches += self.other_batches
            partners_s -= self.other_grad_s  # (in other_s)
        self.data_s += partners_s
        self.other_s = self.partner_s = self.other_grad_s = 0.0
        self.other_batches = 0

    def on_forward_post(self, module, discovering):
        if self.inference_open is None or self.mode == "train" or self._grad_enabled():
            return
        if discovering and not self.finder.consider(module):
            return
        now = self.mark()
        self._add(FORWARD, self.inference_open, now)
        self.inference_open = None
        if discovering:
            self.set_device(self.finder.choose(module))
        if self.marker:
            return
        self.mode = "inference"
        self.steps_from = "forward"
        self.end()

    def on_backward_start(self, tensors):
        """The outermost backward starts: the forward ends. `tensors`: backward's first
        argument (the loss). Returns the mark backward's time runs from."""
        if not self.begun:
            self.begin()
        self.saw_backward = True
        timing = self.timing
        now = perf_counter() if timing is None else timing.mark()
        forward_open = self.forward_open
        if forward_open is not None:
            if self.batch_opens_forward and (self.last_src != self.src or self.other_s):
                self._batch_fed_model()
            if timing is None:
                self.forward_s += now - forward_open
            else:
                self._add(FORWARD, forward_open, now)
            self.forward_open = None
        elif self.batch_opens_forward:
            # A backward that no batch's forward preceded. Another model's update (a GAN's
            # generator, whose optimizer steps next) needs nothing; a forward without a
            # batch of its own (a batch split into chunks, batches fetched ahead, one fetched
            # under no_grad) needs the model's own hook to be timed, which costs every call
            # of the model a slower path. Decided at the next optimizer step, or here at a
            # second such backward (_unopened_backward_ends). (Host clock: the model is on
            # the CPU.)
            if self.unopened_backward is not None:
                self.unopened_backward = None
                self.finder.hook_forward()
            else:
                self.unopened_backward = now - self.boundary
        self.depth = 0  # (the module depth counts only while the finder discovers)
        self.model_calls = 0
        if self.headroom.lent:
            self.headroom.settle()  # (the forward's calls of the model are over)
        scaled_loss = self.scaled_loss
        if scaled_loss is not None:
            self.scaled_loss = None
            if tensors is scaled_loss[0]():  # scaler.scale(loss).backward(): read the loss
                tensors = scaled_loss[1]()  # (None: freed since, the step's loss unknown)
        if not self.read_loss or self.closure_calls > 1:
            return now  # (a step LOSS_EVERY_S after the last one read will read it; a
            # closure's later calls evaluate the step's batch again: its loss is the first's)
        # The loss: a 1-element tensor (or a sequence of one), read without a
        # synchronisation; anything else leaves the step's loss unknown. Not read where
        # the script would see the read: a tensor subclass's own dispatch, or a dispatch or
        # function mode of the script's (an op logger's, a FLOP counter's) around the
        # backward.
        if tensors.__class__ is not self._tensor:
            if isinstance(tensors, (tuple, list)) and len(tensors) == 1:
                tensors = tensors[0]
            if tensors.__class__ is not self._tensor:
                self.loss = _NAN
                return now
        if self._modes_active():
            self.loss = _NAN
            return now
        try:  # (item() and reshape(()) raise on a tensor of more than one element)
            if tensors.is_cpu:
                value = tensors.item()  # (float() would warn on a tensor that requires grad)
                loss = self.loss
                self.loss = value if loss is None else loss + value
            elif tensors.is_cuda and timing is not None and not timing.capturing():
                value = tensors.detach().float().reshape(())
                self.loss_device = value if self.loss_device is None else self.loss_device + value
                if self.loss is None:
                    self.loss = 0.0
            else:  # reading it would synchronise (or the step is on the host clock)
                self.loss = _NAN
        except Exception as exc:  # (a tensor that cannot be read: the step's loss unknown)
            self.loss = _NAN
            if faults.raised_by_signal_handler(exc):
                self.fault(exc)  # cut short by the script's handler: off, raised on
        return now

    def on_loss_scaled(self, loss, scaled):
        """GradScaler.scale(loss) on the training thread (hooks._install_grad_scaler)."""
        self.scaled_loss = (weakref.ref(scaled), weakref.ref(loss))

    def on_backward_end(self, started):
        """On a device clock (the host clock's backward time is added by the hook itself)."""
        self._add(BACKWARD, started, self.timing.mark())

    def on_compiled(self, target, result):
        """torch.compile(target) returned `result` (hooks.py): the finder's turn (model.py);
        a model chosen there is timed on its device, and said again if the config went."""
        device = self.finder.compiled(target, result)
        if device is not None:
            self.set_device(device)
            if self.config_sent:
                self.probe.send_started(self.config())

    def config(self):
        """The `started` config (run_config.py)."""
        return run_config.config_of(self)

    def on_marker_start(self):
        if not self.begun:
            self.begin()

    def on_marker_end(self, kind):
        if self.marker_kind is None:
            self.marker_kind = kind
        elif kind != self.marker_kind:
            return  # the other reading of the same name already counts the steps
        if not self.begun:
            self.begin()
        self.mode = "train" if (self.saw_optimizer or self.saw_backward) else "inference"
        self.end()


def _modes_check(torch):
    """The function that says whether a TorchDispatchMode or TorchFunctionMode is active on
    this thread (the script's: the probe has none); one that says no where torch has
    neither check."""
    dispatch = getattr(torch._C, "_len_torch_dispatch_stack", None)
    function = getattr(torch._C, "_is_torch_function_mode_enabled", None)
    if not callable(dispatch) or not callable(function):
        return lambda: False
    return lambda: dispatch() > 0 or function()
