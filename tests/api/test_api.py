"""kinetoscope.lab() and kinetoscope.open() (python/kinetoscope/api) with real torch and the
real `kinetoscope` binary: the lab on a tiny model and DataLoader writes a session the
binary reads, the compile arm's compile time stays out of its steady figures, an arm that
cannot run is skipped with its reason, and open() hands back the binary's findings and
tables.

    <venv python> tests/api/test_api.py           (from anywhere; about 1-2 minutes)

The package is the checkout's python/ unless KINETOSCOPE_API_INSTALLED=1 (then the one
installed in this interpreter: scripts/test-wheel.sh). The binary is $KINETOSCOPE_BIN,
else the checkout's build/bin/kinetoscope.
"""
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
INSTALLED = os.environ.get("KINETOSCOPE_API_INSTALLED") == "1"
if not INSTALLED:
    sys.path.insert(0, os.path.join(REPO, "python"))
os.environ.setdefault("KINETOSCOPE_BIN", os.path.join(REPO, "build", "bin", "kinetoscope"))
BINARY = os.environ["KINETOSCOPE_BIN"]
SAMPLE = os.path.join(REPO, "resources", "sample.pt.trace.json.gz")
SNAPSHOT = os.path.join(REPO, "tests", "data", "h200_runs", "snapshot", "memory_snapshot.pickle.gz")
JOB = os.path.join(REPO, "tests", "data", "ddp_gloo_4ranks")
NOT_YET_READ = "is not fp32, bf16 or bf16+cuda-graph"  # a binary built before bf16+compile

import torch  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

import kinetoscope  # noqa: E402
from kinetoscope.api import KinetoscopeError, KinetoscopeFileNotFoundError, LabError  # noqa: E402

try:
    import pandas
except ImportError:
    pandas = None

torch.set_num_threads(1)  # steadier steps beside a parallel ctest


def wait_for_binary(seconds=120):
    """The binary, waited for while a rebuild replaces it."""
    deadline = time.time() + seconds
    while not (os.path.isfile(BINARY) and os.access(BINARY, os.X_OK)):
        if time.time() > deadline:
            raise unittest.SkipTest("no kinetoscope binary at %s (build it first)" % BINARY)
        time.sleep(2)
    return BINARY


def kinetoscope_cli(*arguments):
    done = subprocess.run([wait_for_binary()] + list(arguments), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)
    return done.returncode, done.stdout, done.stderr


def tiny_mlp():
    return torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))


def loader(samples=256, batch_size=32):
    generator = torch.Generator().manual_seed(1)
    data = TensorDataset(torch.randn(samples, 32, generator=generator),
                         torch.randint(0, 8, (samples,), generator=generator))
    return DataLoader(data, batch_size=batch_size, shuffle=True)


def run_lab(**kwargs):
    """kinetoscope.lab with its printout captured: (result, stdout)."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        result = kinetoscope.lab(**kwargs)
    return result, printed.getvalue()


def read(path):
    with io.open(path, encoding="utf-8") as f:
        return json.load(f)


class TempDirCase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kinetoscope-api-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)


class ImportTest(unittest.TestCase):
    def test_import_is_light(self):
        """`import kinetoscope` (the probe imports it inside users' runs) loads nothing
        but the package: no torch, no threading, no api."""
        code = ("import sys; before = set(sys.modules); import kinetoscope; "
                "print(sorted(set(sys.modules) - before)); print(kinetoscope.__file__)")
        env = dict(os.environ)
        if not INSTALLED:
            env["PYTHONPATH"] = os.path.join(REPO, "python")
        out = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                             universal_newlines=True, env=env, cwd=tempfile.gettempdir(),
                             check=True).stdout.splitlines()
        self.assertEqual(out[0], "['kinetoscope']")
        self.assertTrue(callable(kinetoscope.lab) and callable(kinetoscope.open))

    def test_package_comes_from_where_it_should(self):
        here = os.path.realpath(kinetoscope.__file__)
        if INSTALLED:  # the wheel's copy in this interpreter's environment
            self.assertTrue(here.startswith(os.path.realpath(sys.prefix) + os.sep), here)
            self.assertFalse(here.startswith(os.path.realpath(REPO) + os.sep), here)
        else:
            self.assertEqual(here, os.path.realpath(os.path.join(REPO, "python", "kinetoscope",
                                                                 "__init__.py")))


class LabTest(TempDirCase):
    """fp32 and bf16 on a tiny MLP: the figures, the printout and the session."""

    STEPS, WARMUP = 12, 2

    @classmethod
    def setUpClass(cls):
        super(LabTest, cls).setUpClass()
        cls.out = os.path.join(cls.tmp, "lab")
        cls.result, cls.printed = run_lab(model_fn=tiny_mlp, loader=loader(), steps=cls.STEPS,
                                          warmup=cls.WARMUP, arms=("fp32", "bf16"), out=cls.out,
                                          device="cpu")
        cls.session = read(cls.result.session_path)

    def test_both_arms_measured(self):
        self.assertEqual([a.name for a in self.result.arms], ["fp32", "bf16"])
        for arm in self.result.arms:
            self.assertTrue(arm.ran, arm.skipped_reason)
            self.assertEqual(len(arm.steps), self.STEPS)
            self.assertEqual([s.step for s in arm.steps],
                             list(range(self.WARMUP, self.WARMUP + self.STEPS)))
            self.assertGreater(arm.samples_per_second, 0)
            self.assertGreater(arm.mean_step_ms, 0)
            self.assertEqual(arm.batch_size, 32)
            # samples/s: batch size x 1000 / the median step (nearest rank, a step seen)
            self.assertAlmostEqual(arm.samples_per_second, 32 * 1000.0 / arm.median_step_ms,
                                   delta=arm.samples_per_second * 1e-9)
            self.assertIn(arm.median_step_ms, [s.wall_ms for s in arm.steps])
            self.assertAlmostEqual(arm.mean_step_ms,
                                   sum(s.wall_ms for s in arm.steps) / self.STEPS)
            self.assertEqual(sorted(arm.phases),
                             ["backward", "data", "forward", "h2d", "optimizer"])
            self.assertGreater(arm.phases["forward"].mean_ms, 0)
            for s in arm.steps:  # the phases lie within the step's wall time
                self.assertLessEqual(s.data_ms + s.h2d_ms + s.forward_ms + s.backward_ms
                                     + s.optimizer_ms, s.wall_ms + 1e-6)
            self.assertEqual((arm.peak_allocated_bytes, arm.peak_reserved_bytes), (-1, -1))
            self.assertIsNone(arm.compile_seconds)

    def test_same_seed_same_losses_order(self):
        """Same seed, same data order: fp32 and bf16 start from the same weights and batches,
        so their first losses are close (bf16 rounds)."""
        fp32, bf16 = self.result["fp32"].steps, self.result["bf16"].steps
        self.assertAlmostEqual(fp32[0].loss, bf16[0].loss, delta=0.1)

    def test_table_printed(self):
        lines = self.printed.splitlines()
        self.assertEqual(lines[0].split(), ["arm", "samples/s", "median", "ms", "speed-up",
                                            "compile", "s"])
        self.assertTrue(lines[1].startswith("fp32"))
        self.assertTrue(lines[2].startswith("bf16"))
        self.assertRegex(lines[2], r"\d+\.\d\dx")  # speed-up over fp32
        self.assertIn("session: " + self.result.session_path, self.printed)
        self.assertEqual(self.result.table(), "\n".join(lines[:3]))

    def test_session_file(self):
        self.assertEqual(self.result.session_path,
                         os.path.join(self.out, "session.kinetoscope.json"))
        s = self.session
        self.assertEqual(s["kinetoscope_session"], 1)
        self.assertEqual(s["config"]["kind"], "python")
        self.assertEqual(s["config"]["model"], "Sequential")
        self.assertEqual(s["config"]["batch_size"], "32")
        self.assertEqual(s["config"]["mode"], "train")
        self.assertEqual(s["config"]["optimizer"], "Adam lr 1e-3")
        self.assertEqual(s["environment"]["device"], "CPU")
        self.assertEqual(s["environment"]["torch"], torch.__version__)
        for value in list(s["config"].values()) + list(s["environment"].values()):
            self.assertIsInstance(value, str)
        self.assertEqual([a["name"] for a in s["lab"]], ["fp32", "bf16"])
        bf16 = s["lab"][1]
        self.assertTrue(bf16["ran"])
        self.assertEqual(bf16["samples_per_second"], self.result["bf16"].samples_per_second)
        self.assertNotIn("compile_seconds", bf16)
        self.assertEqual([p["phase"] for p in s["phases"]],
                         ["data", "h2d", "forward", "backward", "optimizer"])
        self.assertEqual(set(s["phases"][0]),
                         {"phase", "mean_ms", "std_ms", "median_ms", "p95_ms", "p99_ms"})
        self.assertEqual(len(s["steps"]), self.STEPS)
        self.assertTrue(all(len(row) == 7 for row in s["steps"]))
        self.assertEqual(s["steps"][0][0], self.WARMUP)
        fp32 = self.result["fp32"]
        self.assertAlmostEqual(s["split"]["dataloader_ms"], fp32.phases["data"].mean_ms)
        self.assertAlmostEqual(s["split"]["compute_ms"],
                               sum(fp32.phases[p].mean_ms
                                   for p in ("forward", "backward", "optimizer")))
        self.assertNotIn("interrupted", s)
        self.assertEqual(os.listdir(self.out), ["session.kinetoscope.json"])  # no temporary left

    def test_binary_reads_the_session(self):
        rc, out, err = kinetoscope_cli("diagnose", self.result.session_path, "--json")
        self.assertEqual(rc, 0, err)
        diagnosis = json.loads(out)
        self.assertFalse(diagnosis["trace"])
        rc, out, err = kinetoscope_cli("summary", self.result.session_path, "--json")
        self.assertEqual(rc, 0, err)
        lab = json.loads(out)["session"]["lab"]
        self.assertEqual([a["name"] for a in lab], ["fp32", "bf16"])
        self.assertAlmostEqual(lab[1]["mean_step_ms"], self.result["bf16"].mean_step_ms)

    def test_open_the_session(self):
        report = kinetoscope.open(self.result.session_path)
        self.assertEqual(report.kind, "session")
        self.assertEqual(report.session["lab"][0]["name"], "fp32")
        lab = report.tables["lab"]
        timings = report.tables["step_timings"]
        if pandas is not None:
            self.assertEqual(list(lab["name"]), ["fp32", "bf16"])
            self.assertEqual(len(timings), self.STEPS)
        else:
            self.assertEqual([row["name"] for row in lab], ["fp32", "bf16"])
            self.assertEqual(len(timings), self.STEPS)
            self.assertEqual(timings[0]["step"], self.WARMUP)
        for finding in report.findings:  # what the binary read from the lab, if anything
            self.assertTrue(finding.id and finding.severity and finding.title)


class DefaultFolderTest(TempDirCase):
    def test_default_out_folder_and_no_arm_ran(self):
        cwd = os.getcwd()
        os.chdir(self.tmp)
        try:
            result, _ = run_lab(model_fn=tiny_mlp, loader=loader(), steps=2, warmup=0,
                                arms="fp32", device="cpu")
            self.assertRegex(
                os.path.relpath(result.session_path, self.tmp),
                r"^kinetoscope-labs/lab-\d{8}-\d{6}(-\d+)?/session\.kinetoscope\.json$")
            again, _ = run_lab(model_fn=tiny_mlp, loader=loader(), steps=2, warmup=0,
                               arms="fp32", device="cpu")
            self.assertNotEqual(os.path.dirname(again.session_path),
                                os.path.dirname(result.session_path))
            # A model_fn that returns no module: no arm runs, nothing is written.
            before = sorted(os.listdir(os.path.join(self.tmp, "kinetoscope-labs")))
            with self.assertRaises(LabError) as raised:
                run_lab(model_fn=lambda: "not a model", loader=loader(), steps=2,
                        arms=("fp32", "bf16"), device="cpu")
            self.assertIn("fp32: TypeError: model_fn() returned str", str(raised.exception))
            self.assertIn("bf16: TypeError", str(raised.exception))
            self.assertEqual(sorted(os.listdir(os.path.join(self.tmp, "kinetoscope-labs"))), before)
        finally:
            os.chdir(cwd)

    def test_bad_arguments(self):
        with self.assertRaisesRegex(ValueError, "unknown lab arm 'fp16'"):
            kinetoscope.lab(tiny_mlp, loader(), arms=("fp32", "fp16"))
        with self.assertRaisesRegex(ValueError, "steps must be at least 1"):
            kinetoscope.lab(tiny_mlp, loader(), steps=0)


class CompileTest(TempDirCase):
    """fp32 then bf16 + the real torch.compile (inductor on the CPU: 20-40 s here). 100
    samples in batches of 32: the fourth batch (4 samples) is a new shape, which compiles
    again inside the measured steps."""

    STEPS, WARMUP = 8, 2

    @classmethod
    def setUpClass(cls):
        super(CompileTest, cls).setUpClass()
        cls.result, cls.printed = run_lab(model_fn=tiny_mlp, loader=loader(samples=100),
                                          steps=cls.STEPS, warmup=cls.WARMUP,
                                          arms=("fp32", "bf16+compile"),
                                          out=os.path.join(cls.tmp, "compiled"), device="cpu")
        cls.arm = cls.result["bf16+compile"]

    def test_compile_kept_out_of_the_steady_figures(self):
        arm = self.arm
        self.assertTrue(arm.ran, arm.skipped_reason)
        self.assertGreater(arm.compile_seconds, 0)
        self.assertEqual(len(arm.steps), self.STEPS)
        compile_ms = arm.compile_seconds * 1000.0
        # A step that compiled took at least the compile's time: none of them is measured.
        self.assertLess(max(s.wall_ms for s in arm.steps), compile_ms / 2)
        self.assertLess(arm.mean_step_ms * self.STEPS, compile_ms)
        self.assertTrue(all(s.step >= self.WARMUP for s in arm.steps))
        # The 4-sample batch at step 3 compiled again: counted, left out, replaced.
        self.assertGreaterEqual(arm.recompiles, 1)
        self.assertNotIn(3, [s.step for s in arm.steps])
        self.assertIn("compiled again", arm.note)
        self.assertEqual(arm.graph_breaks, 0)
        self.assertRegex(self.printed, r"(?m)^bf16\+compile +[\d.]+ +[\d.]+ +[\d.]+x +[\d.]+$")

    def test_session_carries_the_compile_figures(self):
        s = read(self.result.session_path)
        fp32, compiled = s["lab"]
        self.assertNotIn("compile_seconds", fp32)
        self.assertEqual(compiled["name"], "bf16+compile")
        self.assertAlmostEqual(compiled["compile_seconds"], self.arm.compile_seconds)
        self.assertEqual(compiled["recompiles"], self.arm.recompiles)
        self.assertEqual(compiled["graph_breaks"], 0)
        self.assertEqual(compiled["note"], self.arm.note)
        self.assertAlmostEqual(compiled["mean_step_ms"], self.arm.mean_step_ms)

    def test_binary_reads_the_compile_arm(self):
        rc, out, err = kinetoscope_cli("diagnose", self.result.session_path, "--json")
        self.assertNotIn(NOT_YET_READ, err, "this kinetoscope binary predates the bf16+compile "
                         "arm (core/session): rebuild it")
        self.assertEqual(rc, 0, err)
        rc, out, err = kinetoscope_cli("summary", self.result.session_path, "--json")
        self.assertEqual(rc, 0, err)
        lab = json.loads(out)["session"]["lab"]
        self.assertEqual(lab[1]["name"], "bf16+compile")
        self.assertAlmostEqual(lab[1]["compile_seconds"], self.arm.compile_seconds)
        self.assertEqual(lab[1]["recompiles"], self.arm.recompiles)
        rc, out, err = kinetoscope_cli("summary", self.result.session_path)
        self.assertEqual(rc, 0, err)
        self.assertIn("Compiling took", out)  # the lab's reading of the compile arm


class SkippedArmTest(TempDirCase):
    def test_an_arm_that_cannot_run_is_skipped(self):
        """torch.compile refuses the mode: that arm is skipped with torch's line, fp32 is
        kept, and the session says both."""
        result, printed = run_lab(model_fn=tiny_mlp, loader=loader(), steps=3, warmup=1,
                                  arms=("fp32", "bf16+compile"), compile_mode="no-such-mode",
                                  out=os.path.join(self.tmp, "skipped"), device="cpu")
        fp32, compiled = result.arms
        self.assertTrue(fp32.ran)
        self.assertFalse(compiled.ran)
        self.assertIn("no-such-mode", compiled.skipped_reason)
        self.assertNotIn("\n", compiled.skipped_reason)
        self.assertIn("bf16+compile   skipped: RuntimeError: Unrecognized mode=no-such-mode",
                      printed)
        lab = read(result.session_path)["lab"]
        self.assertEqual([(a["name"], a["ran"]) for a in lab],
                         [("fp32", True), ("bf16+compile", False)])
        self.assertEqual(lab[1]["skipped_reason"], compiled.skipped_reason)
        self.assertEqual(lab[1]["samples_per_second"], 0.0)

    def test_a_failing_bf16_forward_is_skipped(self):
        """A model whose forward fails under autocast only (it checks the dtype): bf16 is
        skipped with the model's own message, fp32 measured."""
        class Fp32Only(torch.nn.Module):
            def __init__(self):
                super(Fp32Only, self).__init__()
                self.linear = torch.nn.Linear(32, 8)

            def forward(self, x):
                y = self.linear(x)
                if y.dtype != torch.float32:
                    raise ValueError("this model wants float32, got %s" % y.dtype)
                return y

        result, _ = run_lab(model_fn=Fp32Only, loader=loader(), steps=3, warmup=1,
                            arms=("fp32", "bf16"), out=os.path.join(self.tmp, "fp32only"),
                            device="cpu")
        self.assertTrue(result["fp32"].ran)
        self.assertEqual(result["bf16"].skipped_reason,
                         "ValueError: this model wants float32, got torch.bfloat16")
        rc, _, err = kinetoscope_cli("diagnose", result.session_path)
        self.assertEqual(rc, 0, err)


class SavedWhileRunningTest(TempDirCase):
    def test_session_saved_after_each_arm(self):
        """After each arm the session is saved (atomically) with what ran so far: a lab
        killed midway leaves a session the app opens, saying it was still running."""
        out = os.path.join(self.tmp, "running")
        path = os.path.join(out, "session.kinetoscope.json")
        seen = []

        def model_fn():
            if os.path.exists(path):
                seen.append(read(path))
            return tiny_mlp()

        result, _ = run_lab(model_fn=model_fn, loader=loader(), steps=2, warmup=0,
                            arms=("fp32", "bf16"), out=out, device="cpu")
        self.assertEqual(len(seen), 1)  # saved once before bf16 started
        self.assertEqual(seen[0]["interrupted"], "the lab was still running: 1 arm(s) to go")
        self.assertEqual([(a["name"], a["ran"], a["skipped_reason"]) for a in seen[0]["lab"]],
                         [("fp32", True, ""),
                          ("bf16", False, "not run: the lab had not reached it")])
        self.assertNotIn("interrupted", read(result.session_path))


class OpenTest(unittest.TestCase):
    def rows(self, table):
        if pandas is not None:
            self.assertIsInstance(table, pandas.DataFrame)
            return table.to_dict("records")
        self.assertIsInstance(table, list)
        return table

    def test_open_a_trace(self):
        wait_for_binary()
        report = kinetoscope.open(SAMPLE)
        self.assertEqual(report.kind, "trace")
        self.assertIn("steps", report.summary)
        self.assertTrue(report.diagnosis["diagnosable"])
        self.assertGreater(len(report.findings), 0)
        first = report.findings[0]
        self.assertEqual(first.id, "dataloader-bound")
        self.assertIn(first.severity, ("high", "medium", "low"))
        self.assertTrue(first.title and first.fix)
        self.assertIn("figures", first.evidence)
        self.assertEqual(first.id, report.diagnosis["findings"][0]["id"])
        self.assertEqual(list(report.tables), ["ops", "kernels", "steps", "memory_by_op"])
        ops = self.rows(report.tables["ops"])
        self.assertGreater(len(ops), 10)
        self.assertIsInstance(ops[0]["Calls (count)"], int)
        self.assertEqual(len(self.rows(report.tables["steps"])), len(report.summary["steps"]))
        self.assertIs(report.tables["ops"], report.tables["ops"])  # read once, then kept

    def test_tables_as_lists(self):
        wait_for_binary()
        report = kinetoscope.open(SAMPLE, threads=1, as_pandas=False)
        kernels = report.tables["kernels"]
        self.assertIsInstance(kernels, list)
        self.assertIn("Name", kernels[0])

    def test_open_a_job_and_a_snapshot(self):
        wait_for_binary()
        job = kinetoscope.open(JOB)
        self.assertEqual(job.kind, "job")
        self.assertEqual(len(self.rows(job.tables["ranks"])), 4)
        self.assertIn("straggler-rank", [f.id for f in job.findings])
        memory = kinetoscope.open(SNAPSHOT)
        self.assertEqual(memory.kind, "memory")
        self.assertIn("peak_allocated_bytes", memory.summary)
        self.assertIn("per_device", memory.tables)

    def test_open_a_missing_path(self):
        wait_for_binary()
        missing = os.path.join(tempfile.gettempdir(), "no-such-kinetoscope-trace.json")
        with self.assertRaises(KinetoscopeFileNotFoundError) as raised:
            kinetoscope.open(missing)
        self.assertIsInstance(raised.exception, FileNotFoundError)
        self.assertIsInstance(raised.exception, KinetoscopeError)
        message = str(raised.exception)
        self.assertIn("no such file", message)
        self.assertIn(missing, message)
        self.assertNotIn("\n", message)

    def test_open_what_is_not_a_trace(self):
        wait_for_binary()
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write("hello")
        try:
            with self.assertRaises(KinetoscopeError) as raised:
                kinetoscope.open(f.name)
            self.assertNotIsInstance(raised.exception, FileNotFoundError)
            self.assertIn("not a JSON trace", str(raised.exception))
            self.assertEqual(raised.exception.returncode, 2)
        finally:
            os.unlink(f.name)


class AppTest(TempDirCase):
    def test_open_true_starts_the_app_detached(self):
        """open=True runs `$KINETOSCOPE_BIN SESSION` in a session of its own (here a stand-in
        that writes its arguments, so no window opens)."""
        marker = os.path.join(self.tmp, "argv.txt")
        stand_in = os.path.join(self.tmp, "kinetoscope-stand-in")
        with io.open(stand_in, "w") as f:
            f.write("#!/bin/sh\nprintf '%%s\\n' \"$@\" > '%s'\n" % marker)
        os.chmod(stand_in, 0o755)
        saved = dict(os.environ)
        os.environ["KINETOSCOPE_BIN"] = stand_in
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # counts as a display
        try:
            result, _ = run_lab(model_fn=tiny_mlp, loader=loader(), steps=2, warmup=0,
                                arms="fp32", out=os.path.join(self.tmp, "app"), open=True,
                                device="cpu")
        finally:
            os.environ.clear()
            os.environ.update(saved)
        self.assertIsNotNone(result.app)
        self.assertEqual(result.app.wait(timeout=30), 0)
        with io.open(marker) as f:
            self.assertEqual(f.read().splitlines(), [result.session_path])

    def test_no_binary_is_a_clear_error(self):
        saved = dict(os.environ)
        os.environ["KINETOSCOPE_BIN"] = os.path.join(self.tmp, "nowhere", "kinetoscope")
        try:
            with self.assertRaisesRegex(KinetoscopeError, r"\$KINETOSCOPE_BIN names .*nowhere"):
                kinetoscope.open(SAMPLE)
        finally:
            os.environ.clear()
            os.environ.update(saved)


if __name__ == "__main__":
    unittest.main(verbosity=2)
