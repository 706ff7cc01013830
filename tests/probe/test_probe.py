"""The probe (python/kinetoscope/probe) run inside real training scripts with real torch.

The runs go through tests/probe/harness.py (what `kinetoscope profile` does, without the
launcher: the socketpair, python/boot on PYTHONPATH, the options); the tests assert on the
messages. The lab's tests (arms, seed, DataLoader overrides) are in test_lab.py and run
with these.

    <venv python> -m unittest tests/probe/test_probe.py      (from the repository root)
    <venv python> tests/probe/test_probe.py

The runs start together (a few at a time) at the first test, so the suite takes about as
long as its slowest runs; each test waits for the runs it reads.
"""
import json
import math
import os
import re
import statistics
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
# (bench/probe_overhead.py runs scripts through these)
from harness import BOOT, HERE, PYTHON, REPO, Run, run_script  # noqa: E402,F401
from harness import phase_medians as _phase_medians, result  # noqa: E402
import test_lab  # noqa: E402  (the lab's runs and tests: test_lab.py)


def _chain_dir(body):
    folder = harness.temp_dir("kinetoscope-chain-")
    with open(os.path.join(folder, "sitecustomize.py"), "w") as f:
        f.write(body)
    return folder


CHAIN_OK = _chain_dir("import os\nos.environ['OTHER_SITECUSTOMIZE'] = 'ran'\nORIGIN = 'theirs'\n")
CHAIN_FAILS = _chain_dir("raise ValueError('the other sitecustomize failed')\n")
NO_TORCH = os.path.join(harness.temp_dir("kinetoscope-notorch-"), "no_torch.py")
with open(NO_TORCH, "w") as _f:
    _f.write("import os, sys\n"
             "print('torch' in sys.modules, 'kinetoscope' in sys.modules,"
             " os.environ.get('OTHER_SITECUSTOMIZE'))\n")
# What the script finds of the probe's start-up: which sitecustomize an import gives, and
# whether python/boot or python/ (the probe's package) is on its sys.path.
SITE_CHECK = os.path.join(os.path.dirname(NO_TORCH), "site_check.py")
with open(SITE_CHECK, "w") as _f:
    _f.write("import os, sys\n"
             "import sitecustomize\n"
             "ours = [p for p in sys.path if p and os.path.isdir(os.path.join(p, 'kinetoscope'))"
             " or p.rstrip('/').endswith('python/boot')]\n"
             "print(getattr(sitecustomize, 'ORIGIN', 'ours'), ours)\n")
INTERRUPTED = os.path.join(os.path.dirname(NO_TORCH), "interrupted.py")
with open(INTERRUPTED, "w") as _f:
    _f.write("def wait():\n    raise KeyboardInterrupt\n\n\nwait()\n")
CHDIR_TO = harness.temp_dir("kinetoscope-chdir-")
SPLIT_TIMING = os.path.join(harness.temp_dir("kinetoscope-split-"), "forward.json")
CLOSURE_TIMING = os.path.join(os.path.dirname(SPLIT_TIMING), "closure.json")
GAN_TIMING = os.path.join(os.path.dirname(SPLIT_TIMING), "gan.json")
LBFGS_TIMING = os.path.join(os.path.dirname(SPLIT_TIMING), "lbfgs.json")

WINDOW = {"skip": 3, "active": 2}
RUNS = {
    # 0.5 ms per sample on the training thread: data wait >> compute
    "slow_data": (["train_mlp.py", "--sample-delay-ms", "0.5", "--steps-total", "20"], WINDOW, {}),
    # 8 batches an epoch: a new DataLoader iterator at steps 8 and 16 (each kept: a freed
    # one's id could be the next one's)
    "epochs": (["train_mlp.py", "--sample-delay-ms", "0.5", "--steps-total", "20",
                "--dataset-size", "256", "--keep-iterators"], {"skip": 2, "active": 0}, {}),
    # each batch handed out once the next is fetched (accelerate, timm's PrefetchLoader): an
    # epoch's last batch comes after the fetch that ended the epoch (8 batches an epoch)
    "fetch_ahead": (["train_mlp.py", "--steps-total", "26", "--dataset-size", "256",
                     "--fetch-ahead"], {"skip": 2, "active": 0}, {}),
    "slow_data_bare": (["train_mlp.py", "--sample-delay-ms", "0.5", "--steps-total", "20"], None,
                       {"probe": False}),
    # an error out of the DataLoader, and one out of backward, in a measured step
    "raise_data": (["raising_loop.py", "--raise-in", "data"], {"skip": 2, "active": 0}, {}),
    "raise_data_bare": (["raising_loop.py", "--raise-in", "data"], None, {"probe": False}),
    "raise_backward": (["raising_loop.py", "--raise-in", "backward"], {"skip": 2, "active": 0}, {}),
    "raise_backward_bare": (["raising_loop.py", "--raise-in", "backward"], None, {"probe": False}),
    # and one out of the script's own profilers (nested), while the window still waits for
    # its steps (its guard on autograd's profile is in place)
    "raise_profiler": (["raising_loop.py", "--raise-in", "profiler"], {"skip": 8, "active": 1}, {}),
    "raise_profiler_bare": (["raising_loop.py", "--raise-in", "profiler"], None, {"probe": False}),
    # the same samples from 4 forked workers, and a model whose step (~10 ms) is longer
    # than the 4 ms a batch takes the four: the queue stays full after warm-up
    "slow_data_fork4": (["train_mlp.py", "--sample-delay-ms", "0.5", "--steps-total", "30",
                         "--hidden", "1024", "--workers", "4", "--multiprocessing-context", "fork"],
                        WINDOW, {}),
    # no delay: steps of ~2 ms
    "fast": (["train_mlp.py", "--steps-total", "60"], {"skip": 2, "active": 0}, {}),
    "spawn": (["train_mlp.py", "--steps-total", "12", "--workers", "1",
               "--multiprocessing-context", "spawn"], {"skip": 2, "active": 0}, {}),
    "infer": (["infer_cnn.py", "--batches", "12"], {"skip": 2, "active": 2}, {}),
    "raise": (["train_mlp.py", "--raise-at-step", "7"], {"skip": 4, "active": 0}, {}),
    "os_exit": (["train_mlp.py", "--steps-total", "8", "--os-exit"], {"skip": 2, "active": 0}, {}),
    # sys.exit(4) inside the profiler window (steps 6-9 of 8): the window closes at exit
    "exit_code": (["train_mlp.py", "--steps-total", "8", "--exit-code", "4"],
                  {"skip": 6, "active": 4}, {}),
    # --steps, and a script that changes directory before training
    "steps_limit": (["train_mlp.py", "--steps-total", "40", "--chdir", CHDIR_TO],
                    {"skip": 2, "active": 2, "steps": 5}, {}),
    "cancel": (["train_mlp.py", "--steps-total", "200", "--sample-delay-ms", "0.2"],
               {"skip": 2, "active": 0}, {"cancel_after_steps": 3}),
    "accum": (["train_accum.py", "--optimizer-steps", "10", "--accumulation", "4"],
              {"skip": 2, "active": 0}, {}),
    # two optimizer steps an epoch: the first measured step (2) starts a new epoch's iterator
    "accum_epochs": (["train_accum.py", "--optimizer-steps", "2", "--accumulation", "2",
                      "--epochs", "5"], {"skip": 2, "active": 0}, {}),
    # each fetched batch in four chunks, a forward and a backward each; the script times
    # its own forwards
    "accum_split": (["train_accum.py", "--optimizer-steps", "12", "--accumulation", "1",
                     "--split", "4", "--micro-batch", "64", "--timing-out", SPLIT_TIMING],
                    {"skip": 2, "active": 0}, {}),
    # optimizer.step(closure): the forward and backward run inside the optimizer's step,
    # once (SGD), or four times (LBFGS); the script times its own phases
    "closure": (["train_closure.py", "--steps", "40", "--timing-out", CLOSURE_TIMING],
                {"skip": 2, "active": 0}, {}),
    "closure_lbfgs": (["train_closure.py", "--steps", "20", "--optimizer", "lbfgs",
                       "--timing-out", LBFGS_TIMING], {"skip": 2, "active": 0}, {}),
    "marker_label": (["marker.py", "--iterations", "12"],
                     {"skip": 4, "active": 0, "step_marker": "my_step"}, {}),
    "marker_function": (["marker.py", "--iterations", "12"],
                        {"skip": 2, "active": 0, "step_marker": "train_step"}, {}),
    "module": (["-m", "pkg.train", "--steps", "12"], {"skip": 2, "active": 2}, {}),
    # the GPU check's transformer (scripts/gpu-probe-check.sh), tiny, with its own
    # throughput line and two persistent workers
    "transformer": (["train_transformer.py", "--hidden", "32", "--layers", "1", "--heads", "2",
                     "--seq-len", "16", "--vocab", "64", "--batch-size", "4", "--steps-total", "10",
                     "--throughput-after", "4", "--log-every", "0"], {"skip": 2, "active": 0}, {}),
    # a script that opens its own profiler (steps 20-22) after the probe's window (5-7), and
    # one whose profiler records its whole loop
    "profile_whole_loop": (["profile_again.py", "--steps", "30", "--whole-loop"], {"skip": 3, "active": 2}, {}),
    # torch.save(model), deepcopy and jit.script of the model at step 8, training and
    # inference, with the probe and without
    "copy_model": (["copy_model.py", "--steps", "16", "--copy-at", "8"], {"skip": 2, "active": 2}, {}),
    "copy_model_bare": (["copy_model.py", "--steps", "16", "--copy-at", "8"], None, {"probe": False}),
    "copy_model_own_state": (["copy_model.py", "--steps", "16", "--copy-at", "8", "--own-state"],
                             {"skip": 2, "active": 2}, {}),
    "copy_model_own_state_bare": (["copy_model.py", "--steps", "16", "--copy-at", "8", "--own-state"],
                                  None, {"probe": False}),
    "copy_model_infer": (["copy_model.py", "--steps", "16", "--copy-at", "8", "--infer"],
                         {"skip": 2, "active": 2}, {}),
    # a script that joins every thread but its own before it exits
    "join_threads": (["join_threads.py"], {"skip": 2, "active": 2}, {}),
    # a script that closes every inherited descriptor at step 6 (the probe's socket among
    # them) and opens sockets of its own
    "close_fds": (["close_fds.py", "--steps", "20", "--close-at", "6"], {"skip": 2, "active": 2}, {}),
    "close_fds_bare": (["close_fds.py", "--steps", "20", "--close-at", "6"], None, {"probe": False}),
    # a child forked after the profiler window (steps 2-3) that exits with sys.exit(7)
    "fork_child": (["fork_child.py", "--steps", "12", "--fork-at", "8"], {"skip": 2, "active": 2}, {}),
    "fork_child_bare": (["fork_child.py", "--steps", "12", "--fork-at", "8"], None, {"probe": False}),
    # every warning an exception (a strict suite's filter), set after the imports
    "warnings_as_errors": (["train_mlp.py", "--steps-total", "12", "--warnings-as-errors"],
                           {"skip": 2, "active": 2}, {}),
    # training on a thread of the script's own that ends inside the window (steps 2-21 of 6)
    "thread_ends_in_window": (["train_in_thread.py", "--steps", "6"], {"skip": 2, "active": 20}, {}),
    "thread_ends_in_window_bare": (["train_in_thread.py", "--steps", "6"], None, {"probe": False}),
    # torch warns during backward with a stack level that names the script's line
    "backward_warning": (["backward_warning.py", "--steps", "12"], {"skip": 2, "active": 2}, {}),
    "backward_warning_bare": (["backward_warning.py", "--steps", "12"], None, {"probe": False}),
    # weights updated by hand: no optimizer, no no_grad forward; one model, then two
    "checkpointed": (["checkpointed.py", "--steps", "14"], {"skip": 2, "active": 0}, {}),
    "scaled_loss": (["scaled_loss.py", "--steps", "150"], {"skip": 2, "active": 0}, {}),
    "python_profiler": (["python_profiler.py", "--steps", "30"],
                        {"skip": 2, "active": 2, "with_stack": True}, {}),
    "python_profiler_bare": (["python_profiler.py", "--steps", "30"], None, {"probe": False}),
    "manual_sgd": (["manual_sgd.py", "--steps", "400"], {"skip": 2, "active": 2}, {}),
    "manual_sgd_bare": (["manual_sgd.py", "--steps", "400"], None, {"probe": False}),
    "manual_sgd_two": (["manual_sgd.py", "--steps", "400", "--two-models"], {"skip": 2, "active": 2}, {}),
    # a GAN: two models, each with an optimizer of its own
    "gan": (["train_gan.py", "--steps", "30", "--timing-out", GAN_TIMING, "--real-delay-ms", "1"],
            {"skip": 2, "active": 0}, {}),
    "gan_one_model": (["train_gan.py", "--steps", "30", "--one-model"], {"skip": 2, "active": 0}, {}),
    # a persistent fork worker and an os.fork child made inside the window (steps 2-4)
    "fork_in_window": (["fork_in_window.py", "--steps", "12", "--validate-at", "3"],
                       {"skip": 2, "active": 3}, {}),
    # a script that lists its KINETOSCOPE* variables and PYTHONPATH, and starts a Python
    "environment": (["environment_check.py"], {"skip": 2, "active": 2}, {}),
    "environment_own_path": (["environment_check.py"], {"skip": 2, "active": 2},
                             {"python_path_extra": [CHDIR_TO]}),
    # a whole training step compiled, its backward inside (Dynamo breaks the graph there)
    "compiled_step": (["compiled_step.py", "--steps", "12"], {"skip": 2, "active": 2}, {}),
    "compiled_step_bare": (["compiled_step.py", "--steps", "12"], None, {"probe": False}),
    "compiled_step_direct": (["compiled_step.py", "--steps", "12", "--direct"], {"skip": 2, "active": 2}, {}),
    # a SIGALRM handler that raises the script's own exception, 300 times
    "signal_timeout": (["signal_timeout.py"], {"skip": 2, "active": 0}, {}),
    # a TorchDispatchMode of the script's around its forward and backward
    "dispatch_log": (["dispatch_log.py", "--steps", "10"], {"skip": 2, "active": 0}, {}),
    "dispatch_log_bare": (["dispatch_log.py", "--steps", "10"], None, {"probe": False}),
    # and ones that open theirs inside the probe's window (steps 5-7), through either entry
    "profile_inside": (["profile_again.py", "--steps", "30", "--from", "6"], {"skip": 5, "active": 3}, {}),
    "profile_inside_autograd": (["profile_again.py", "--steps", "30", "--from", "6", "--api", "autograd"],
                                {"skip": 5, "active": 3}, {}),
    "profile_again": (["profile_again.py", "--steps", "30", "--from", "20"], {"skip": 5, "active": 3}, {}),
    # a schedule's warm-up (steps 5-6: Kineto prepared, not recording) when the window is due
    "profile_warming": (["profile_again.py", "--steps", "30", "--from", "4", "--schedule", "1,2"],
                        {"skip": 5, "active": 3}, {}),
    # a model compiled with fullgraph=True: a graph break anywhere fails the script
    "fullgraph": (["train_fullgraph.py", "--steps-total", "10"], {"skip": 2, "active": 0}, {}),
    "fullgraph_bare": (["train_fullgraph.py", "--steps-total", "10"], None, {"probe": False}),
    "teacher": (["train_fullgraph.py", "--steps-total", "10", "--teacher"], {"skip": 2, "active": 0}, {}),
    "teacher_bare": (["train_fullgraph.py", "--steps-total", "10", "--teacher"], None, {"probe": False}),
    "chain": ([NO_TORCH], {}, {"python_path_extra": [CHAIN_OK]}),
    "site_check": ([SITE_CHECK], {}, {"python_path_extra": [CHAIN_OK]}),
    # A process the script started (a shell's python, or one under python -I's parent)
    # whose environment still names the launcher's socket, at a number that is another
    # file here (fd 1, its standard output) or none:
    "socket_not_here": ([NO_TORCH], None, {"probe": False, "env_extra": {
        "KINETOSCOPE_PROBE_FD": "1:1:1", "KINETOSCOPE_PROBE_SIGNALS": "1:1:1,2:1:1"}}),
    "socket_closed": ([NO_TORCH], None, {"probe": False, "env_extra": {
        "KINETOSCOPE_PROBE_FD": "987:1:12345"}}),
    "chain_bare": ([NO_TORCH], None, {"probe": False, "python_path_extra": [CHAIN_OK]}),
    "chain_fails": ([NO_TORCH], {}, {"python_path_extra": [CHAIN_FAILS]}),
    "chain_fails_without_probe": ([NO_TORCH], None, {"probe": False, "python_path_extra": [CHAIN_FAILS],
                                                     "env_extra": {"PYTHONPATH": CHAIN_FAILS}}),
    "owner_set": ([NO_TORCH], {}, {"env_extra": {"KINETOSCOPE_PROBE_OWNER": "1"}}),
    "bad_options": ([NO_TORCH], {"skip": -1}, {}),
    "interrupted": ([INTERRUPTED], {}, {}),
    # faults: the session folder cannot be written (the window's export fails); the
    # launcher hangs up in the middle of the run
    "export_fails": (["train_mlp.py", "--steps-total", "12"], {"skip": 2, "active": 2},
                     {"out_dir": os.path.join(CHDIR_TO, "missing", "folder")}),
    "hung_up": (["train_mlp.py", "--steps-total", "60", "--sample-delay-ms", "0.1"],
                {"skip": 2, "active": 0}, {"hang_up_after_steps": 2}),
}
harness.RUNS.update(RUNS)
# The fork-worker run times its workers against the training thread: it runs with only the
# torch-free runs beside it. Then the longest first.
harness.ALONE.extend(["slow_data_fork4", "chain", "chain_bare", "chain_fails", "chain_fails_without_probe",
                      "owner_set", "bad_options", "interrupted"])
harness.FIRST.extend(["spawn", "cancel", "slow_data", "slow_data_bare", "infer", "raise"])


class ProtocolShape(unittest.TestCase):
    def test_hello_started_steps_done_in_order(self):
        run = result("slow_data")
        self.assertEqual(run.returncode, 0, run.explain())
        types = [m["type"] for m in run.messages]
        self.assertEqual(types[0], "hello")
        self.assertEqual(run.messages[0]["protocol"], 4)
        self.assertEqual(run.messages[0]["pid"], run.pid)
        self.assertEqual(types[-1], "done")
        self.assertEqual(types.count("done"), 1)
        self.assertEqual(types[1], "started")
        first = run.messages[1]
        self.assertEqual(first["session"], "")
        for key in ("torch", "python", "python_executable", "cuda", "hip"):
            self.assertIn(key, first["environment"])
        for message in run.of_type("started"):
            for value in list(message["config"].values()) + list(message["environment"].values()):
                self.assertIsInstance(value, str)
        self.assertEqual(run.done(), {"type": "done", "ok": True, "error": "", "session": "", "by": ""})

    def test_config_of_a_training_run(self):
        config = result("slow_data").last_config()
        expected = {"mode": "train", "device": "cpu", "batch_size": "32", "workers": "0",
                    "pin_memory": "false", "model": "Sequential", "optimizer": "Adam",
                    "steps_from": "optimizer", "skip": "3", "active": "2",
                    "loader_loop": "__main__"}  # (the script's own loop iterates its loader)
        for key, value in expected.items():
            self.assertEqual(config.get(key), value, key)
        fork = result("slow_data_fork4").last_config()
        self.assertEqual(fork.get("workers"), "4")
        self.assertEqual(fork.get("prefetch"), "2")

    def test_a_second_optimizer_is_said(self):
        # A GAN: its steps end at the first optimizer's step (one a loop iteration), its
        # model is the one that optimizer trains, and the other model's optimizer is said
        # (helper 47: --lab changed the discriminator alone and read it as the script's).
        run = result("gan")
        self.assertEqual(run.returncode, 0, run.explain())
        config = run.last_config()
        self.assertEqual(config.get("other_optimizers"), "1", config)
        self.assertEqual(config.get("optimizer"), "Adam")
        self.assertEqual([s[0] for s in run.steps()], list(range(2, 30)), run.explain())
        self.assertIn(b"trained 30 steps", run.stdout)
        self.assertNotIn("other_optimizers", result("slow_data").last_config())
        # Two optimizers over one model's parameters (Muon beside AdamW): no other model.
        one = result("gan_one_model")
        self.assertEqual(one.returncode, 0, one.explain())
        self.assertNotIn("other_optimizers", one.last_config())
        self.assertEqual([s[0] for s in one.steps()], list(range(2, 30)), one.explain())

    def test_the_gpu_checks_transformer_script(self):
        # scripts/gpu-probe-check.sh's script on the CPU: its optimizer steps are the steps,
        # its model is found, its batches come from its workers, its own log is its own.
        run = result("transformer")
        self.assertEqual(run.returncode, 0, run.explain())
        config = run.last_config()
        for key, value in {"model": "TinyGPT", "optimizer": "Adam", "steps_from": "optimizer",
                           "batch_size": "4", "workers": "2", "device": "cpu"}.items():
            self.assertEqual(config.get(key), value, key)
        self.assertEqual([s[0] for s in run.steps()], list(range(2, 10)), run.explain())
        self.assertRegex(run.stdout.decode(), r"throughput: [0-9.]+ samples/s over 20 samples after step 4")
        self.assertIn(b"trained 10 steps", run.stdout)

    def test_steps_are_the_measured_ones_with_twelve_values(self):
        run = result("slow_data")
        steps = run.steps()
        self.assertEqual([s[0] for s in steps], list(range(5, 20)), run.explain())
        for row in steps:
            self.assertEqual(len(row), 12)
            self.assertTrue(all(v >= 0 for v in row[1:6]), row)
            self.assertTrue(math.isfinite(row[6]) and 0 < row[6] < 10, row)  # cross-entropy, 10 classes
            self.assertEqual(row[7:11], [-1, -1, -1, -1])  # no memory figures on the CPU

    def test_the_loss_is_the_one_the_script_prints(self):
        # The sum of the step's backward calls' losses: here one; the script prints
        # loss.item() at steps 0 and 10 (4 decimals).
        run = result("slow_data")
        printed = {}
        for line in run.stdout.decode("utf-8", "replace").splitlines():
            words = line.split()
            if len(words) == 4 and words[0] == "step" and words[2] == "loss":
                printed[int(words[1])] = float(words[3])
        recorded = {row[0]: row[6] for row in run.steps()}
        self.assertIn(10, printed, run.explain())
        self.assertAlmostEqual(recorded[10], printed[10], delta=6e-5)

    def test_a_fast_loop_reads_its_loss_every_10_ms(self):
        # ~2 ms steps: reading the loss (item()) each one would cost the training thread
        # ~0.25 % on its own; one step in about five reads it.
        run = result("fast")
        self.assertEqual(run.returncode, 0, run.explain())
        steps = run.steps()
        self.assertEqual([s[0] for s in steps], list(range(2, 60)), run.explain())
        reads = harness.check_loss_reads(self, steps, 0, 10)  # cross-entropy, 10 classes
        self.assertGreater(reads, 0, run.explain())
        if statistics.median(row[11] for row in steps) < 5.0:  # (a machine this slow: no null)
            self.assertLess(reads, len(steps), run.explain())

    def test_a_scaled_loss_is_read_unscaled(self):
        # scaler.scale(loss).backward(): the loss the probe read was the scaled one, 65,536
        # times the script's.
        run = result("scaled_loss")
        self.assertEqual(run.returncode, 0, run.explain())
        printed = {}
        for line in run.stdout.decode().splitlines():
            _, step, _, loss = line.split()
            printed[int(step)] = float(loss)
        read = [(row[0], row[6]) for row in run.steps() if row[6] is not None]
        self.assertGreaterEqual(len(read), 3, run.explain())
        for step, loss in read:
            self.assertAlmostEqual(loss, printed[step], delta=1e-5, msg=step)

    def test_wall_time_holds_the_phases(self):
        # (checkpointed: the forward that activation checkpointing runs again inside the
        # backward was a second forward, open until the optimizer step)
        for name in ("slow_data", "accum", "infer", "checkpointed"):
            run = result(name)
            self.assertTrue(run.steps(), run.explain())
            for row in run.steps():
                # boundary to boundary: every phase of the step, and the loop's own code
                self.assertGreaterEqual(row[11], sum(row[1:6]) - 0.01, (name, row))
        slow = result("slow_data").steps()
        self.assertGreater(statistics.median(row[11] for row in slow), 16.0)  # 32 x 0.5 ms of sleep

    def test_progress_once_per_step_with_stages(self):
        run = result("slow_data")
        progress = run.of_type("progress")
        # One message a step: a progress line up to the first measured step, then each
        # measured step's own line stands for the next step's start.
        self.assertEqual([p["step"] for p in progress], list(range(6)))
        announced = [m["step"] if m["type"] == "progress" else m["step"][0] + 1
                     for m in run.messages if m["type"] in ("progress", "step")]
        self.assertEqual(announced[:20], list(range(20)))
        stages = {p["step"]: p["stage"] for p in progress}
        self.assertEqual(stages[0], "warm-up")
        self.assertEqual(stages[2], "warm-up")
        self.assertEqual(stages[3], "profiler window")
        self.assertEqual(stages[4], "profiler window")
        self.assertEqual(stages[5], "measured")
        self.assertTrue(all(p["steps"] == 0 and p["fraction"] == 0 for p in progress))
        bounded = result("steps_limit").of_type("progress")
        self.assertTrue(all(p["steps"] == 9 for p in bounded))
        self.assertAlmostEqual(bounded[3]["fraction"], 3 / 9.0, places=4)

    def test_no_samples_on_the_cpu(self):
        self.assertEqual(result("slow_data").of_type("sample"), [])


class Phases(unittest.TestCase):
    def test_slow_samples_make_the_data_wait_dominate(self):
        run = result("slow_data")
        data, h2d, forward, backward, optimizer = _phase_medians(run.steps())
        # 32 samples x 0.5 ms of sleep = at least 16 ms per batch on the training thread
        self.assertGreater(data, 14.0, run.explain())
        self.assertGreater(data, 3 * (forward + backward), run.explain())
        self.assertGreater(forward, 0)
        self.assertGreater(backward, 0)
        self.assertGreater(optimizer, 0)

    def test_on_the_cpu_a_batch_starts_the_forward(self):
        # A CPU model fed by a DataLoader gets no hook of its own (one would send each of
        # its calls down torch's slower path): its forward runs from the batch's arrival,
        # and h2d, with no device to copy to, is 0.
        run = result("slow_data")
        for row in run.steps():
            self.assertEqual(row[2], 0, row)
            self.assertGreater(row[3], 0, row)

    def test_each_epochs_iterator_is_the_one_that_feeds_the_model(self):
        run = result("epochs")
        self.assertEqual(run.returncode, 0, run.explain())
        steps = run.steps()
        self.assertEqual([s[0] for s in steps], list(range(2, 20)), run.explain())
        for row in steps:  # an epoch's first batch (steps 8, 16) too: 32 x 0.5 ms of sleep
            self.assertGreater(row[1], 14.0, row)
            self.assertGreater(row[3], 0, row)

    def test_an_epoch_s_last_batch_fetched_ahead_is_a_batch(self):
        # The epoch's last step (7, 15, 23) fed a batch fetched in the step before, after a
        # fetch that raised StopIteration: its forward read 0, and the model was hooked from
        # then on (h2d > 0 on the CPU, each call of the model on torch's slower path).
        run = result("fetch_ahead")
        self.assertEqual(run.returncode, 0, run.explain())
        steps = run.steps()
        self.assertEqual([s[0] for s in steps], list(range(2, 26)), run.explain())
        median_forward = statistics.median(row[3] for row in steps)
        for row in steps:
            self.assertGreater(row[3], 0.2 * median_forward, (row, run.explain()))
            self.assertEqual(row[2], 0, (row, run.explain()))  # the model stays unhooked

    def test_every_forward_of_a_batch_split_into_chunks_is_timed(self):
        # The chunks after the first follow no batch of their own: the model gets its hook
        # back (at step 1) and each chunk's forward is timed from the model's call.
        run = result("accum_split")
        self.assertEqual(run.returncode, 0, run.explain())
        steps = run.steps()
        self.assertEqual([s[0] for s in steps], list(range(2, 12)), run.explain())
        with open(SPLIT_TIMING) as f:
            own = json.load(f)  # seconds per optimizer step, as the script times its forwards
        probe_ms = statistics.median(row[3] for row in steps)
        script_ms = statistics.median(own[2:12]) * 1e3
        self.assertGreater(probe_ms, 0.8 * script_ms, (probe_ms, script_ms, run.explain()))
        harness.check_loss_reads(self, steps, 0, 5)  # the four chunks' losses summed: one loss

    def test_a_second_model_s_update_leaves_the_model_unhooked(self):
        # The generator's backward follows no batch: not a sign of a forward without a batch
        # of its own (which needs a hook on the model, its every call down torch's slower
        # path: +12 % on this loop), since its own optimizer steps next. The model stays
        # unhooked; the forwards, both models', run from the batch and before that backward.
        run = result("gan")
        self.assertEqual(run.returncode, 0, run.explain())
        with open(GAN_TIMING) as f:
            own = json.load(f)
        self.assertEqual(own["hooks"], {"discriminator": 0, "generator": 0}, run.explain())
        steps = run.steps()
        self.assertEqual([row[2] for row in steps], [0.0] * len(steps))  # h2d: on the CPU
        probe_ms = statistics.median(row[3] for row in steps)
        script_ms = statistics.median(own["forward_s"][2:30]) * 1e3
        self.assertGreater(probe_ms, 0.8 * script_ms, (probe_ms, script_ms, run.explain()))

    def test_batches_zipped_from_two_loaders_are_the_step_s_data(self):
        # Each step fetches a batch of real samples (1 ms to assemble) and one of noise:
        # only the one fed to the model last, the noise, was counted, and the rest of the
        # wait was in no phase (helper 47's GAN: 13 % of its steps "outside the phases").
        run = result("gan")
        self.assertEqual(run.returncode, 0, run.explain())
        with open(GAN_TIMING) as f:
            own = json.load(f)
        probe_ms = statistics.median(row[1] for row in run.steps())
        script_ms = statistics.median(own["fetch_s"][2:30]) * 1e3
        self.assertGreater(script_ms, 1.0, run.explain())
        self.assertGreater(probe_ms, 0.8 * script_ms, (probe_ms, script_ms, run.explain()))
        self.assertLess(probe_ms, 1.2 * script_ms, (probe_ms, script_ms, run.explain()))

    def test_a_closure_s_forward_and_backward_are_not_the_optimizer_s(self):
        # The closure runs inside optimizer.step: its time was counted twice, as forward
        # and backward and as the optimizer's (phases over the wall time in every step,
        # the optimizer 3x its own time), and LBFGS's four calls summed four losses.
        for name, timing_file, steps_total in (("closure", CLOSURE_TIMING, 40),
                                               ("closure_lbfgs", LBFGS_TIMING, 20)):
            run = result(name)
            self.assertEqual(run.returncode, 0, run.explain())
            steps = run.steps()
            self.assertEqual([s[0] for s in steps], list(range(2, steps_total)), run.explain())
            self.assertEqual(run.last_config().get("mode"), "train")
            with open(timing_file) as f:
                own = json.load(f)
            for row in steps:  # h2d + forward + backward + optimizer within the step
                self.assertLessEqual(sum(row[2:6]), row[11] + 0.01, (name, row))
                self.assertGreater(row[3], 0, row)
                self.assertGreater(row[4], 0, row)
                if row[6] is not None:  # the loss of the closure's first call
                    self.assertAlmostEqual(row[6], own[row[0]]["loss"], places=4)
            probe = statistics.median(row[5] for row in steps)
            script = statistics.median(step["optimizer"] for step in own[2:]) * 1e3
            compute = statistics.median(s["forward"] + s["backward"] for s in own[2:]) * 1e3
            # the optimizer's own time, never its closure's (the script's own figure holds
            # the hooks' calls too: the probe's is at most a little above it)
            self.assertLess(probe, script + 0.5 * compute, (name, probe, script, compute))
            self.assertGreater(harness.check_loss_reads(self, steps, 0, 10), 0, name)

    def test_four_fork_workers_hide_most_of_the_data_wait(self):
        serial = _phase_medians(result("slow_data").steps())[0]
        run = result("slow_data_fork4")
        self.assertEqual(run.returncode, 0, run.explain())
        # after the window: steps 10.. (the workers' queues filled during warm-up)
        parallel = statistics.median(s[1] for s in run.steps() if s[0] >= 10)
        self.assertLess(parallel, 0.35 * serial, run.explain())

    def test_gradient_accumulation_is_one_step_per_optimizer_step(self):
        run = result("accum")
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertEqual([s[0] for s in run.steps()], list(range(2, 10)), run.explain())
        self.assertEqual(run.last_config().get("optimizer"), "SGD")
        self.assertEqual(run.last_config().get("batch_size"), "8")
        # four batches a step: a step's samples are 32 (the lab's samples/s counts them)
        self.assertEqual(run.last_config().get("batches_per_step"), "4")
        self.assertNotIn("batches_per_step", result("accum_split").last_config())  # 1, in chunks
        # a step's first batch from a new epoch's iterator counts too
        epochs = result("accum_epochs")
        self.assertEqual(epochs.returncode, 0, epochs.explain())
        self.assertEqual(epochs.last_config().get("batches_per_step"), "2", epochs.explain())
        harness.check_loss_reads(self, run.steps(), 0, 5)  # the four quarter-losses: one loss

    def test_inference_steps_are_no_grad_forwards(self):
        run = result("infer")
        self.assertEqual(run.returncode, 0, run.explain())
        config = run.last_config()
        self.assertEqual(config.get("mode"), "inference")
        self.assertEqual(config.get("steps_from"), "forward")
        self.assertEqual(config.get("model"), "SmallCNN")
        self.assertEqual(config.get("batch_size"), "16")
        self.assertNotIn("optimizer", config)
        steps = run.steps()
        self.assertEqual([s[0] for s in steps], list(range(4, 12)), run.explain())
        for row in steps:
            self.assertGreater(row[3], 0)  # the forward's latency
            self.assertEqual(row[4:6], [0, 0])
            self.assertIsNone(row[6])  # no loss: null
        self.assertTrue(os.path.exists(os.path.join(run.out_dir, "trace.json")))

    def test_a_compiled_model_keeps_its_graph(self):
        # The probe's hooks run inside the compiled model's call (the global ones while it
        # finds the model): traced by Dynamo, they would break the graph, which fullgraph
        # makes an error. They are no-ops there, and the forward is still timed outside.
        run = result("fullgraph")
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertIn(b"trained", run.stdout)
        # Compiled as bare: the global hooks of the model's discovery end at the compile,
        # before the first compiled call (Dynamo guards on their count: gone later, they
        # recompiled the model), and torch does not warn of them on the script's stderr.
        self.assertEqual(run.stdout, result("fullgraph_bare").stdout)
        self.assertNotIn("global hooks", run.stderr)
        self.assertEqual(run.last_config().get("model"), "Sequential")  # not OptimizedModule
        # A frozen teacher compiled first, then the model trained: the optimizer's step finds
        # the model among the modules compiled, with no global hook back (graphs as bare).
        teacher = result("teacher")
        self.assertEqual(teacher.returncode, 0, teacher.explain())
        self.assertEqual(teacher.stdout, result("teacher_bare").stdout)
        self.assertNotIn("global hooks", teacher.stderr)
        self.assertEqual(teacher.last_config().get("model"), "Sequential", teacher.explain())
        self.assertTrue(teacher.steps(), teacher.explain())
        self.assertGreater(teacher.steps()[-1][3], 0, teacher.explain())  # its forward timed
        self.assertEqual([s[0] for s in run.steps()], list(range(2, 10)), run.explain())
        for row in run.steps():
            self.assertGreater(row[3], 0, row)  # the forward
            self.assertGreater(row[4], 0, row)  # the backward

    def test_record_function_marker(self):
        run = result("marker_label")
        self.assertEqual(run.returncode, 0, run.explain())
        config = run.last_config()
        self.assertEqual(config.get("steps_from"), "marker my_step")
        self.assertEqual(config.get("mode"), "train")  # a backward, no torch.optim
        self.assertEqual([s[0] for s in run.steps()], list(range(4, 12)), run.explain())
        for row in run.steps():
            self.assertGreater(row[3], 0)
            self.assertGreater(row[4], 0)

    def test_function_marker(self):
        run = result("marker_function")
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertEqual(run.last_config().get("steps_from"), "marker train_step")
        # The function is wrapped at the first forward, inside its first call (this
        # script has no DataLoader, whose __iter__ would come first): step 0 is the first
        # two calls, so 12 calls are 11 steps.
        self.assertEqual([s[0] for s in run.steps()], list(range(2, 11)), run.explain())
        for row in run.steps():
            self.assertGreater(row[3], 0)
            self.assertGreater(row[4], 0)


class ProfilerWindow(unittest.TestCase):
    def _trace(self, run):
        path = os.path.join(run.out_dir, "trace.json")
        self.assertTrue(os.path.exists(path), run.explain())
        self.assertEqual([n for n in os.listdir(run.out_dir) if ".tmp-" in n], [])
        with open(path) as f:
            return json.load(f)

    def test_a_script_profiling_its_whole_loop_keeps_its_profiler(self):
        # One profiler session a process: the probe's window inside the script's would end
        # the script's, whose own stop then raised and failed the run (exit 1).
        run = result("profile_whole_loop")
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertRegex(run.stdout.decode(), r"own profiler: \d+ events")
        self.assertIn("kinetoscope probe: profiler window skipped (the script's own profiler is on",
                      run.stderr)
        self.assertFalse(os.path.exists(os.path.join(run.out_dir, "trace.json")))
        self.assertEqual([s[0] for s in run.steps()], list(range(5, 30)), run.explain())  # after skip + active
        self.assertEqual(run.last_config().get("window"), "not opened: the script's own profiler was on (recording, or in its warm-up)")

    def test_a_profiler_the_script_opens_inside_the_window_gets_the_session(self):
        # The window's stop, at step 8, ended the script's session too; the script's own
        # stop then raised and failed the run (exit 1). The window now gives way as the
        # script's profiler starts, whichever entry it uses.
        for name in ("profile_inside", "profile_inside_autograd"):
            run = result(name)
            self.assertEqual(run.returncode, 0, name + "\n" + run.explain())
            match = re.search(r"own profiler: (\d+) events", run.stdout.decode())
            self.assertIsNotNone(match, run.explain())
            self.assertGreater(int(match.group(1)), 100, name)
            self.assertIn("kinetoscope probe: profiler window given up: the script started its own profiler",
                          run.stderr)
            self.assertFalse(os.path.exists(os.path.join(run.out_dir, "trace.json")), name)
            self.assertEqual([s[0] for s in run.steps()], list(range(8, 30)), run.explain())
            # and the session says why it has no trace
            self.assertEqual(run.last_config().get("window"),
                             "given up: the script started its own profiler inside it")

    def test_a_profiler_the_script_is_warming_up_keeps_the_session(self):
        # Prepared in its schedule's warm-up, the script's profiler was not 'recording', so
        # the window opened: its stop then raised ("Can't disable Kineto profiler when it's
        # not running") and the window was lost without a word in the session.
        run = result("profile_warming")
        self.assertEqual(run.returncode, 0, run.explain())
        match = re.search(r"own profiler: (\d+) events", run.stdout.decode())
        self.assertIsNotNone(match, run.explain())
        self.assertGreater(int(match.group(1)), 100)
        self.assertIn("kinetoscope probe: profiler window skipped", run.stderr)
        self.assertNotIn("disabled", run.stderr)
        self.assertEqual(run.last_config().get("window"),
                         "not opened: the script's own profiler was on (recording, or in its warm-up)")
        self.assertFalse(os.path.exists(os.path.join(run.out_dir, "trace.json")))
        self.assertEqual([s[0] for s in run.steps()], list(range(8, 30)), run.explain())

    def test_copies_of_the_model_are_made_as_without_the_probe(self):
        # The probe's hooks on the model went with it: torch.save(model) failed ("Can't
        # pickle local object 'ModelFinder.hook_forward.<locals>.pre'"), jit.script failed
        # on their try blocks, deepcopy (an EMA model) carried them. A model class with a
        # __getstate__ of its own (an LSTM inside) never reached nn.Module's: it failed so.
        for name, bare_name in (("copy_model", "copy_model_bare"),
                                ("copy_model_infer", "copy_model_bare"),
                                ("copy_model_own_state", "copy_model_own_state_bare")):
            bare = result(bare_name)
            self.assertEqual(bare.returncode, 0, bare.explain())
            run = result(name)
            self.assertEqual(run.returncode, 0, name + "\n" + run.explain())
            self.assertEqual(run.stdout, bare.stdout, name)
            self.assertNotIn("kinetoscope probe:", run.stderr)
            steps = run.steps()
            self.assertEqual([s[0] for s in steps], list(range(4, 16)), run.explain())
            for row in steps:
                if row[0] > 8:  # the hooks still on the model after the copies
                    self.assertGreater(row[3], 0, name)  # the forward

    def test_the_probes_threads_are_not_the_scripts(self):
        # They were threading.Threads: a script that joins every other thread waited on
        # the probe's forever.
        run = result("join_threads")
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertEqual(run.stdout.decode().strip(),
                         "other threads seen: trainer-1, trainer-2; after the joins: 1 active")
        self.assertIsNotNone(run.done(), run.explain())  # the probe's messages still all came

    def test_a_descriptor_the_script_closed_is_never_touched_again(self):
        # After os.closerange the script's next socket took the probe's number and received
        # the probe's JSON lines (2 KB of progress and steps among the script's own bytes).
        bare = result("close_fds_bare")
        run = result("close_fds")
        self.assertEqual(bare.returncode, 0, bare.explain())
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertEqual(run.stdout, bare.stdout)
        self.assertIn(b", 0 with bytes not the script's", run.stdout)
        lines = [l for l in run.stderr.splitlines() if l.startswith("kinetoscope probe:")]
        self.assertEqual(len(lines), 1, run.stderr)
        self.assertRegex(lines[0], r"^kinetoscope probe: disabled \(the script closed the "
                                   r"launcher's socket, descriptor \d+; the session ends at what "
                                   r"was sent before\)$")
        self.assertIsNone(run.done())  # nothing more was sent: the launcher sees it end early
        self.assertLessEqual(len(run.steps()), 6, run.explain())  # steps before the close only

    def test_a_child_forked_after_the_window_exits(self):
        # It hung at its exit in Kineto's config loader's destructor (the window's profiler
        # had started Kineto's thread in the parent; the child has its condition variable's
        # waiter but not the thread).
        bare = result("fork_child_bare")
        run = result("fork_child")
        self.assertEqual(bare.returncode, 0, bare.explain())
        self.assertIn(b"child status 7", bare.stdout)
        self.assertIn(b"child: atexit ran", bare.stdout)
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertEqual(run.stdout, bare.stdout)
        self.assertNotIn("kinetoscope probe:", run.stderr)
        self.assertTrue(os.path.exists(os.path.join(run.out_dir, "trace.json")), run.explain())
        self.assertIsNotNone(run.done(), run.explain())

    def test_the_window_opens_under_a_scripts_error_filter(self):
        # torch.profiler warned that a schedule's cycles do not keep events; under
        # warnings.simplefilter("error") that was an exception: 'profiler window disabled
        # (UserWarning: Warning: Profiler clears events ...)' and no trace.
        run = result("warnings_as_errors")
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertNotIn("kinetoscope probe:", run.stderr)
        self.assertTrue(os.path.exists(os.path.join(run.out_dir, "trace.json")), run.explain())
        self.assertEqual([s[0] for s in run.steps()], list(range(4, 12)), run.explain())

    def test_a_training_thread_that_ends_inside_the_window_writes_it(self):
        # The profiler's session is its thread's: the main thread's atexit could not stop
        # it ('profiler window disabled (RuntimeError: Can't disable Kineto profiler when
        # it's not running)', torch's lines about a leaked callback, no trace).
        bare = result("thread_ends_in_window_bare")
        run = result("thread_ends_in_window")
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertEqual(run.stdout, bare.stdout)
        self.assertNotIn("kinetoscope probe:", run.stderr)
        self.assertNotIn("Leaked callback", run.stderr)
        with open(os.path.join(run.out_dir, "trace.json")) as f:
            names = {event.get("name") for event in json.load(f)["traceEvents"]}
        self.assertTrue({"ProfilerStep#2", "ProfilerStep#3"} <= names,
                        sorted(n for n in names if n and n.startswith("ProfilerStep")))

    def test_a_warning_from_backward_names_the_scripts_line(self):
        # The probe's backward wrapper was one frame more between the script's
        # loss.backward() and torch: the warning named torch/_tensor.py instead.
        def warning_lines(run):
            return [l for l in run.stderr.splitlines() if "UserWarning: Full backward hook" in l]

        bare = result("backward_warning_bare")
        run = result("backward_warning")
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertEqual(run.stdout, bare.stdout)
        self.assertEqual(len(warning_lines(bare)), 1, bare.stderr)
        self.assertIn("backward_warning.py:", warning_lines(bare)[0])
        self.assertEqual(warning_lines(run), warning_lines(bare))

    def test_a_scripts_own_python_profiler_keeps_seeing_calls(self):
        # with_stack's tracer took the interpreter's profile function for the window and
        # emptied it at the stop: cProfile saw 3 of the 30 steps.
        bare = result("python_profiler_bare")
        run = result("python_profiler")
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertIn(b"train_step called 30 times", bare.stdout)
        self.assertEqual(run.stdout, bare.stdout)
        self.assertIn("sys.setprofile", run.last_config().get("window", ""))
        self.assertTrue(os.path.exists(os.path.join(run.out_dir, "trace.json")))

    def test_a_recursive_model_reaches_the_depth_it_reaches_alone(self):
        # Each hooked module call is a frame deeper (torch's slower path): a tree network
        # whose module calls itself per child failed with RecursionError at step 0 on trees
        # it trained on alone (242 deep here, where 247 is the most it takes).
        deepest = harness.run_script(["tree_network.py", "--deepest"], probe=False)
        self.assertEqual(deepest.returncode, 0, deepest.stderr)
        depth = str(int(deepest.stdout) - 5)
        run = harness.run_script(["tree_network.py", "--depth", depth, "--steps", "8",
                                  "--eval-depth", depth], {"skip": 2, "active": 2})
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertIn(b"final loss", run.stdout)
        self.assertIn(b"evaluated: ", run.stdout)  # (a no_grad pass: the same headroom)
        self.assertTrue(run.done()["ok"], run.explain())
        self.assertEqual(len(run.steps()), 4, run.explain())  # steps 4..7

    def test_a_loop_without_an_optimizer_does_not_keep_the_global_hooks(self):
        # Discovery waited for an optimizer step or a no_grad forward that never came: the
        # hooks on every module call (a forward ~50 % slower on a deep model) stayed for
        # the whole run.
        bare = result("manual_sgd_bare")
        self.assertTrue(bare.stdout.decode().endswith("global module hooks at the end: 0\n"))
        for name in ("manual_sgd", "manual_sgd_two"):
            run = result(name)
            self.assertEqual(run.returncode, 0, run.explain())
            self.assertTrue(run.stdout.decode().endswith("global module hooks at the end: 0\n"),
                            name + ": " + run.stdout.decode())
            self.assertNotIn("kinetoscope probe:", run.stderr)
        self.assertEqual(result("manual_sgd").stdout, bare.stdout)

    def test_a_process_forked_inside_the_window_is_not_profiled(self):
        # The forking thread's profiler session came with the child, which recorded every
        # op it ran for its whole life: a persistent worker grew ~200 MB a dozen steps.
        run = result("fork_in_window")
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertEqual(run.stdout.decode().strip(), "worker profiled: False; child profiled: False")
        self.assertTrue(os.path.exists(os.path.join(run.out_dir, "trace.json")), run.explain())

    def test_the_scripts_environment_is_as_it_was_given(self):
        # The launcher's variables (KINETOSCOPE_PROBE_FD, _OUT, _OPTIONS, and the _OWNER the
        # probe added) were in the script's os.environ, its logs and its children's, and
        # python/boot first on the PYTHONPATH every Python it started inherited.
        for name, path in (("environment", "None"), ("environment_own_path", CHDIR_TO)):
            run = result(name)
            self.assertEqual(run.returncode, 0, run.explain())
            self.assertEqual(run.stdout.decode().splitlines(),
                             ["variables: []", "PYTHONPATH: " + path, "child saw: [] False"],
                             name)
            self.assertIsNotNone(run.done(), run.explain())

    def test_a_compiled_step_does_not_compile_the_probe(self):
        # Tensor.backward runs eagerly at the graph break, but Dynamo watched the frames it
        # called: the probe's wrapper was compiled (warnings on the script's stderr about
        # _thread.get_ident and time.perf_counter, a graph break at the loss's .item()).
        bare = result("compiled_step_bare")
        self.assertEqual(bare.returncode, 0, bare.explain())
        for name in ("compiled_step", "compiled_step_direct"):
            run = result(name)
            self.assertEqual(run.returncode, 0, name + "\n" + run.explain())
            self.assertNotIn("Dynamo does not know how to trace", run.stderr, name)
            self.assertNotIn("kinetoscope/probe", run.stderr, name)  # a graph break in the probe
            self.assertNotIn("kinetoscope probe:", run.stderr, name)
            self.assertEqual(run.stdout.decode().splitlines()[0], bare.stdout.decode().splitlines()[0])
            self.assertEqual([s[0] for s in run.steps()], list(range(4, 12)), run.explain())
        # The same graph breaks as the bare run's, for the same reason.
        self.assertEqual(result("compiled_step").stdout, bare.stdout)

    def test_an_exception_of_the_scripts_signal_handler_reaches_the_script(self):
        # Raised inside the probe's code, it was taken for a fault of the probe's and
        # swallowed: the script's loop never saw that alarm ("alarms lost: 1").
        run = result("signal_timeout")
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertEqual(run.stdout.decode().strip(), "alarms lost: 0", run.explain())
        for line in run.stderr.splitlines():
            if line.startswith("kinetoscope probe:"):  # it turned off, and said why
                self.assertIn("raised by the script's signal handler inside the probe's code", line)

    def test_a_dispatch_mode_of_the_scripts_sees_only_its_own_ops(self):
        # The probe read the loss (item()) at each backward: the script's op log saw
        # aten._local_scalar_dense, one op more a step than without the probe.
        bare, run = result("dispatch_log_bare"), result("dispatch_log")
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertEqual(run.stdout, bare.stdout)
        self.assertEqual([s[0] for s in run.steps()], list(range(2, 10)), run.explain())

    def test_a_profiler_the_script_opens_after_the_window_still_records(self):
        # (on a GPU scripts/gpu-probe-check.sh runs this script and counts its kernels)
        run = result("profile_again")
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertTrue(self._trace(run)["traceEvents"])  # the probe's own window, first
        match = re.search(r"own profiler: (\d+) events", run.stdout.decode())
        self.assertIsNotNone(match, run.explain())
        self.assertGreater(int(match.group(1)), 100)
        # torch.profiler warns this once a process: the window's profiler, which hides its
        # own warnings, left it for the script's (it was used up by the window's before)
        self.assertIn("Profiler clears events at the end of each cycle", run.stderr)

    def test_trace_has_the_window_steps_and_the_loop_ops(self):
        trace = self._trace(result("slow_data"))
        names = {e.get("name", "") for e in trace["traceEvents"]}
        steps = sorted(n for n in names if n.startswith("ProfilerStep#"))
        self.assertEqual(steps, ["ProfilerStep#3", "ProfilerStep#4"])
        self.assertTrue(any(n.startswith("enumerate(DataLoader)") for n in names))
        self.assertIn("aten::linear", names)
        self.assertIn("Optimizer.step#Adam.step", names)

    def test_trace_lands_in_the_session_folder_after_chdir(self):
        run = result("steps_limit")
        self.assertEqual(run.returncode, 0, run.explain())
        self._trace(run)
        self.assertFalse(os.path.exists(os.path.join(CHDIR_TO, "trace.json")))

    def test_module_run(self):
        run = result("module")
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertEqual(run.last_config().get("optimizer"), "AdamW")
        self.assertEqual([s[0] for s in run.steps()], list(range(4, 12)), run.explain())
        trace = self._trace(run)
        self.assertIn("ProfilerStep#2", {e.get("name") for e in trace["traceEvents"]})


class Endings(unittest.TestCase):
    def test_uncaught_exception(self):
        run = result("raise")
        self.assertEqual(run.returncode, 1, run.explain())
        done = run.done()
        self.assertIsNotNone(done, run.explain())
        self.assertFalse(done["ok"])
        self.assertRegex(done["error"],
                         r"^RuntimeError: planted failure at step 7 \(train_mlp\.py, line \d+, in train\)$")
        self.assertEqual([s[0] for s in run.steps()], [4, 5, 6])
        self.assertIn("RuntimeError: planted failure at step 7", run.stderr)  # Python's own report

    def test_keyboard_interrupt(self):
        run = result("interrupted")
        self.assertEqual(run.returncode, -2, run.explain())  # Python ends itself with SIGINT
        self.assertEqual(run.done(), {"type": "done", "ok": False, "session": "", "by": "",
                                      "error": "KeyboardInterrupt (interrupted.py, line 2, in wait)"})

    def test_os_exit_sends_no_done(self):
        run = result("os_exit")
        self.assertEqual(run.returncode, 3, run.explain())
        self.assertIsNone(run.done())
        self.assertEqual([s[0] for s in run.steps()], list(range(2, 8)), run.explain())

    def test_exit_code_is_the_scripts(self):
        run = result("exit_code")
        self.assertEqual(run.returncode, 4, run.explain())  # sys.exit(4)
        self.assertEqual(run.done()["ok"], True)
        self.assertEqual(run.done()["by"], "")
        self.assertEqual(run.steps(), [])

    def test_a_script_that_ends_inside_the_window_still_gets_its_trace(self):
        run = result("exit_code")
        with open(os.path.join(run.out_dir, "trace.json")) as f:
            names = {e.get("name", "") for e in json.load(f)["traceEvents"]}
        self.assertEqual(sorted(n for n in names if n.startswith("ProfilerStep#")),
                         ["ProfilerStep#6", "ProfilerStep#7"])

    def test_steps_option_stops_the_script(self):
        run = result("steps_limit")
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertEqual([s[0] for s in run.steps()], [4, 5, 6, 7, 8])
        self.assertEqual(run.done(), {"type": "done", "ok": True, "error": "", "session": "",
                                      "by": "--steps 5"})
        self.assertNotIn(b"trained", run.stdout)
        self.assertNotIn("kinetoscope probe", run.stderr)

    def test_cancel_stops_at_the_next_step(self):
        run = result("cancel")
        self.assertEqual(run.returncode, 0, run.explain())
        done = run.done()
        self.assertEqual(done["by"], "the app's Cancel button", run.explain())
        self.assertTrue(done["ok"])
        self.assertLess(len(run.steps()), 20, run.explain())


class Faults(unittest.TestCase):
    def test_a_failing_part_says_one_line_and_the_run_goes_on(self):
        run = result("export_fails")
        self.assertEqual(run.returncode, 0, run.explain())
        lines = [l for l in run.stderr.splitlines() if l.startswith("kinetoscope probe:")]
        self.assertEqual(len(lines), 1, run.stderr)
        self.assertRegex(lines[0], r"^kinetoscope probe: profiler window disabled \(\w+(Error|Exception)")
        self.assertEqual([s[0] for s in run.steps()], list(range(4, 12)))
        self.assertTrue(run.done()["ok"])
        self.assertIn(b"trained 12 steps", run.stdout)

    def test_bad_options_disable_the_probe_not_the_script(self):
        run = result("bad_options")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout, b"False True None\n")
        self.assertEqual(run.stderr.strip(), "kinetoscope probe: disabled (ValueError: option skip is negative)")
        self.assertEqual(run.messages, [])

    def test_the_scripts_signal_exception_goes_on_and_only_while_it_is_on_its_way(self):
        # A real SIGALRM, in this process. The probe turning off after the script's handler
        # raised inside it (a step time-out) may fail in its clean-up: the handler's
        # exception still goes on (Loop.fault raises it in a finally). And one the script
        # has already handled is never raised again by a probe fault inside the script's
        # own `except` (a checkpoint on preemption: torch.save there, through the probe's
        # __reduce_ex__).
        import signal

        sys.path.insert(0, os.path.join(REPO, "python"))
        from kinetoscope.probe import faults, steps

        class Tick(Exception):
            pass

        def on_alarm(signum, frame):
            raise Tick()

        class TurningOffFails(object):
            live = True

            def turn_off(self, on_training_thread):
                raise ValueError("the probe's clean-up, failing meanwhile")

        def alarm():
            os.kill(os.getpid(), signal.SIGALRM)
            for _ in range(1000):  # (the handler runs between two bytecodes)
                pass

        previous = signal.signal(signal.SIGALRM, on_alarm)
        try:
            try:
                alarm()
            except Tick as tick:
                with self.assertRaises(Tick):
                    steps.Loop.fault(TurningOffFails(), tick)
            try:
                alarm()
            except Tick:  # the script's own handling, and a probe fault meanwhile
                try:
                    raise ValueError("a fault of the probe's")
                except ValueError as own:
                    self.assertIs(own.__context__.__class__, Tick)
                    faults.pass_on_scripts(own)  # raises nothing
        finally:
            signal.signal(signal.SIGALRM, previous)

    def test_the_launcher_hanging_up_turns_the_probe_off_silently(self):
        run = result("hung_up")
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertIn(b"trained 60 steps", run.stdout)
        self.assertNotIn("kinetoscope probe", run.stderr)


class Isolation(unittest.TestCase):
    def test_stdout_is_the_scripts(self):
        with_probe, bare = result("slow_data"), result("slow_data_bare")
        self.assertEqual(with_probe.stdout, bare.stdout)
        self.assertIn(b"trained 20 steps", bare.stdout)
        self.assertEqual(bare.returncode, 0)

    def test_stderr_is_the_scripts(self):
        # Kineto logged "ERROR ... DeviceProperties.cpp:48] gpuGetDeviceCount failed with code
        # 35" at the window's stop on a machine without a CUDA driver: a line of the window's
        # on the script's stderr, which read as a failure of the run.
        # Left: c10's "Memory block of unknown size was allocated before the profiling
        # started" (logged in the script's own frees, every 1000th of a tensor made before
        # the window, with profile_memory on), which a log level raised for the whole window
        # would take from the script's own C++ warnings too.
        with_probe, bare = result("slow_data"), result("slow_data_bare")
        self.assertTrue(os.path.exists(os.path.join(with_probe.out_dir, "trace.json")), with_probe.explain())
        added = [line for line in with_probe.stderr.splitlines()
                 if line not in bare.stderr.splitlines()
                 and "Memory block of unknown size was allocated before the profiling" not in line]
        self.assertEqual(added, [], with_probe.stderr)

    def test_probe_prints_nothing_of_its_own(self):
        for name in ("slow_data", "infer", "accum", "marker_label", "module", "steps_limit",
                     "exit_code", "spawn", "slow_data_fork4"):
            stderr = result(name).stderr
            self.assertNotIn("kinetoscope probe", stderr, name)
            self.assertNotIn(os.path.join("python", "kinetoscope"), stderr, name)  # no warning of ours

    @unittest.skipIf(sys.version_info < (3, 11), "a bare raise restores the caught traceback")
    def test_the_scripts_traceback_is_as_without_the_probe(self):
        # The probe's wrappers stood in the traceback of an error raised through them (the
        # DataLoader's __next__, torch.autograd.backward): a kinetoscope file, with its line,
        # in the user's own failure, where it read as a cause.
        # The window's guard on autograd's profile (its __exit__: a nested profiler's stop).
        for name in ("raise_data", "raise_backward", "raise_profiler"):
            with_probe, bare = result(name), result(name + "_bare")
            self.assertEqual(with_probe.returncode, 1, with_probe.explain())
            self.assertEqual(bare.returncode, 1, bare.explain())
            own = with_probe.stderr[with_probe.stderr.index("Traceback"):]
            self.assertEqual(own, bare.stderr[bare.stderr.index("Traceback"):], name)
            self.assertNotIn(os.path.join("kinetoscope", "probe"), own, name)
            if name != "raise_profiler":  # (its failing step 6 is before the window, 8)
                self.assertEqual(with_probe.steps()[-1][0], 5, with_probe.explain())  # measured

    def test_fork_workers_stay_silent(self):
        run = result("slow_data_fork4")
        hellos = run.of_type("hello")
        self.assertEqual(len(hellos), 1)
        self.assertEqual(hellos[0]["pid"], run.pid)
        self.assertEqual(len(run.of_type("done")), 1)
        self.assertNotIn({"type": "harness", "error": "the socket never reached EOF"}, run.messages)

    def test_spawn_workers_stay_dormant(self):
        run = result("spawn")
        self.assertEqual(run.returncode, 0, run.explain())
        hellos = run.of_type("hello")
        self.assertEqual([h["pid"] for h in hellos], [run.pid])
        self.assertEqual([s[0] for s in run.steps()], list(range(2, 12)), run.explain())
        self.assertEqual(run.last_config().get("workers"), "1")

    def test_owner_set_means_dormant(self):
        run = result("owner_set")
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertEqual(run.messages, [])
        self.assertEqual(run.stdout, b"False False None\n")

    def test_without_the_fd_nothing_happens(self):
        run = result("chain_bare")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout, b"False False ran\n")

    def test_no_torch_import_by_the_probe(self):
        run = result("chain")
        self.assertEqual(run.returncode, 0, run.explain())
        torch_imported, probe_imported, _ = run.stdout.decode().split()
        self.assertEqual((torch_imported, probe_imported), ("False", "True"))
        self.assertEqual([m["type"] for m in run.messages], ["hello", "done"])

    def test_other_sitecustomize_still_runs(self):
        run = result("chain")
        self.assertTrue(run.stdout.decode().endswith("ran\n"), run.stdout)

    def test_the_scripts_sitecustomize_and_sys_path_are_its_own(self):
        # `import sitecustomize` gave the probe's module, and python/boot (and the probe's
        # package folder) stayed on the script's sys.path.
        run = result("site_check")
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertEqual(run.stdout.decode(), "theirs []\n")
        self.assertEqual([m["type"] for m in run.messages], ["hello", "done"])

    def test_a_socket_that_is_not_the_launchers_leaves_the_probe_silent(self):
        # It said "kinetoscope probe: disabled (... Bad file descriptor)" on the stderr of
        # every Python the script started under python -I, and took another file for its
        # socket where the number was open.
        for name in ("socket_not_here", "socket_closed"):
            run = result(name)
            self.assertEqual(run.returncode, 0, run.explain())
            self.assertEqual(run.stdout, b"False True None\n", name)
            self.assertNotIn("kinetoscope probe", run.stderr, name)

    def test_other_sitecustomize_error_reads_as_without_the_probe(self):
        with_probe, without = result("chain_fails"), result("chain_fails_without_probe")
        self.assertIn("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n"
                      "ValueError: the other sitecustomize failed\n", with_probe.stderr)
        self.assertEqual(with_probe.stderr, without.stderr)
        self.assertEqual([m["type"] for m in with_probe.messages], ["hello", "done"])


class SnapshotSymbols(unittest.TestCase):
    """The snapshot's C++ frames are named without addr2line (a container without binutils:
    torch's default symbolisation fails there and the dump with it). Real torch: a traceback
    with C++ frames symbolised as _dump_snapshot symbolises its stacks, in a child whose PATH
    is an empty folder."""

    SYMBOLIZE = (
        "import sys\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "import torch\n"
        "from kinetoscope.probe.memory import SymbolizeWithoutAddr2line\n"
        "traceback = torch._C._profiler.gather_traceback(True, True, True)\n"
        "if sys.argv[2] == 'probe':\n"
        "    with SymbolizeWithoutAddr2line():\n"
        "        frames = torch._C._profiler.symbolize_tracebacks([traceback])[0]\n"
        "else:\n"
        "    frames = torch._C._profiler.symbolize_tracebacks([traceback])[0]\n"
        "print(any('CapturedTraceback' in f['name'] for f in frames))\n")

    def _symbolize(self, how):
        env = {"PATH": harness.temp_dir("kinetoscope-nobinutils-"), "HOME": os.environ.get("HOME", "/")}
        return subprocess.run([PYTHON, "-c", self.SYMBOLIZE, os.path.join(REPO, "python"), how],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=120)

    def test_without_addr2line_the_frames_are_named(self):
        named = self._symbolize("probe")
        self.assertEqual(named.returncode, 0, named.stderr.decode()[-2000:])
        self.assertEqual(named.stdout.decode().strip(), "True")
        bare = self._symbolize("bare")  # what torch does on its own there
        self.assertNotEqual(bare.returncode, 0)
        self.assertIn(b"stoi", bare.stderr)

    def test_the_scripts_own_setting_and_addr2line_are_left_alone(self):
        sys.path.insert(0, os.path.join(REPO, "python"))
        from kinetoscope.probe.memory import SymbolizeWithoutAddr2line
        environ = {}
        with SymbolizeWithoutAddr2line(environ, which=lambda name: None):
            self.assertEqual(environ, {"TORCH_SYMBOLIZE_MODE": "fast"})
        self.assertEqual(environ, {})
        with SymbolizeWithoutAddr2line(environ, which=lambda name: "/usr/bin/" + name):
            self.assertEqual(environ, {})
        environ = {"TORCH_ADDR2LINE_BINARY": "/opt/binutils/addr2line"}
        with SymbolizeWithoutAddr2line(environ, which=lambda name: None):
            self.assertEqual(environ, {"TORCH_ADDR2LINE_BINARY": "/opt/binutils/addr2line"})


class CudaEventTiming(unittest.TestCase):
    """clocks.CudaTiming's bookkeeping (no GPU here): a fake torch.cuda whose events
    complete when the test says so."""

    class Stream(object):
        def __init__(self):
            self.now = 0.0  # ms
            self.recorded = []

    class Event(object):
        def __init__(self, enable_timing=False):
            assert enable_timing
            self.at = None
            self.done = False

        def record(self, stream):
            self.at = stream.now
            self.done = False
            stream.recorded.append(self)

        def query(self):
            return self.done

        def synchronize(self):
            self.done = True

        def elapsed_time(self, end):
            assert self.done and end.done
            return end.at - self.at

    class Buffer(object):
        value = None

        def copy_(self, source, non_blocking=False):
            assert non_blocking
            self.value = source

        def item(self):
            return self.value

    def _timing(self):
        sys.path.insert(0, os.path.join(REPO, "python"))
        from kinetoscope.probe import clocks
        stream = self.Stream()
        test = self

        class FakeCuda(object):
            Event = test.Event

            @staticmethod
            def current_stream(device):
                return stream

            @staticmethod
            def is_current_stream_capturing():
                return False

        class FakeTorch(object):
            cuda = FakeCuda
            float32 = "float32"

            @staticmethod
            def empty(shape, dtype=None, pin_memory=False):
                assert pin_memory and shape == ()
                return test.Buffer()

        class Device(object):
            index = 0

        return clocks.CudaTiming(FakeTorch, Device()), stream

    def test_records_wait_for_their_events_and_come_out_in_order(self):
        timing, stream = self._timing()
        emitted = []

        def emit(*row):
            emitted.append(row)

        for step in (5, 6):
            marks = []
            for _ in range(5):
                marks.append(timing.mark())
                stream.now += 1.5
            pairs = [(0, marks[0], marks[1]), (1, marks[1], marks[2]), (2, marks[2], marks[3]),
                     (3, marks[3], marks[4])]
            timing.submit(step, 0.25, pairs, 0.0, timing.loss_copy(2.0 + step), (1, 2, 3, 4))
        timing.poll(emit)
        self.assertEqual(emitted, [])  # nothing completed: no wait, nothing read
        for event in stream.recorded[:6]:  # step 5's events and its loss copy's
            event.done = True
        timing.poll(emit)
        self.assertEqual(emitted, [(5, 0.25, [1.5, 1.5, 1.5, 1.5], 7.0, (1, 2, 3, 4))])
        self.assertEqual(timing.waiting, 1)
        timing.poll(emit, wait=True)  # at exit
        self.assertEqual([row[0] for row in emitted], [5, 6])
        self.assertEqual(emitted[1][3], 8.0)
        self.assertEqual(timing.waiting, 0)
        reused = timing.mark()
        self.assertIn(reused, stream.recorded[:12])  # events are pooled, not made per step

    def test_a_loss_that_is_not_finite_is_null(self):
        timing, stream = self._timing()
        emitted = []
        start, end = timing.mark(), timing.mark()
        timing.submit(9, 0.0, [(1, start, end)], 0.0, timing.loss_copy(float("nan")), (-1,) * 4)
        timing.poll(lambda *row: emitted.append(row), wait=True)
        self.assertIsNone(emitted[0][3])

    def test_a_cuda_record_becomes_a_step_row_with_its_wall_time(self):
        timing, stream = self._timing()
        from kinetoscope.probe import steps
        start = timing.mark()
        stream.now += 2.5
        end = timing.mark()
        # the step loop submits its host-clock figures (data ms, wall ms) as one value
        timing.submit(7, (1.25, 9.5), [(2, start, end)], 0.5, None, (10, 20, 30, 40))
        posted = []

        class Loop(object):
            post = staticmethod(posted.append)

        timing.poll(lambda *row: steps.Loop.emit(Loop(), *row), wait=True)
        formatter, arguments = posted[0]
        self.assertEqual(json.loads(formatter(*arguments)),
                         {"type": "step", "step": [7, 1.25, 0.0, 0.0, 2.5, 0.0, 0.5, 10, 20, 30, 40, 9.5]})


def load_tests(loader, tests, pattern):
    """This module's tests, then test_lab.py's."""
    tests.addTests(loader.loadTestsFromModule(test_lab))
    return tests


if __name__ == "__main__":
    unittest.main()
