"""The lab on the script's own model, run by the probe (python/kinetoscope/probe/arms.py,
overrides.py): the arms (fp32, bf16, bf16+compile), the seed, the DataLoader overrides;
and tests/probe/train_images.py, a data-bound script. Real torch, real scripts
(tests/probe/arm_check.py reports what it saw from inside), through the harness.

    <venv python> tests/probe/test_lab.py       (test_probe.py runs these too)
"""
import json
import os
import statistics
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import REPO, phase_medians as _phase_medians, result  # noqa: E402

REPORTS = harness.temp_dir("kinetoscope-reports-")  # arm_check.py's reports
INDUCTOR_CACHE = harness.temp_dir("kinetoscope-inductor-")  # compile runs: nothing cached
NO_TORCH = os.path.join(harness.temp_dir("kinetoscope-lab-notorch-"), "no_torch.py")
with open(NO_TORCH, "w") as _f:
    _f.write("print('ran')\n")


def arm_check(name, *args):
    return ["arm_check.py", "--report", os.path.join(REPORTS, name + ".json")] + list(args)


def compile_env(name, **extra):
    env = {"TORCHINDUCTOR_CACHE_DIR": os.path.join(INDUCTOR_CACHE, name)}
    env.update(extra)
    return {"env_extra": env}


ARM = {"skip": 2, "active": 0}
MLP_30 = ["train_mlp.py", "--steps-total", "30"]
harness.RUNS.update({
    "arm_fp32": (arm_check("arm_fp32"), dict(ARM, arm="fp32"), {}),
    "arm_bf16": (arm_check("arm_bf16"), dict(ARM, arm="bf16"), {}),
    "arm_bf16_infer": (arm_check("arm_bf16_infer", "--infer"), dict(ARM, arm="bf16"), {}),
    "arm_own_autocast": (arm_check("arm_own_autocast", "--autocast"), dict(ARM, arm="bf16"), {}),
    "arm_scaler": (arm_check("arm_scaler", "--grad-scaler"), dict(ARM, arm="bf16"), {}),
    "mlp_fp32": (["train_mlp.py", "--steps-total", "12"], dict(ARM, arm="fp32"), {}),
    "mlp_bf16": (["train_mlp.py", "--steps-total", "12"], dict(ARM, arm="bf16"), {}),
    "seed_a": (arm_check("seed_a"), dict(ARM, seed=7), {}),
    "seed_b": (arm_check("seed_b"), dict(ARM, seed=7), {}),
    "seed_c": (arm_check("seed_c"), dict(ARM, seed=8), {}),
    "reseed": (MLP_30, dict(ARM, seed=3), {}),  # train_mlp.py calls torch.manual_seed(0)
    "loader_up": (arm_check("loader_up", "--extra-loaders"),
                  dict(ARM, loader={"num_workers": 1, "pin_memory": True, "batch_size": 8}), {}),
    "loader_down": (arm_check("loader_down", "--workers", "2", "--persistent"),
                    dict(ARM, loader={"num_workers": 0}), {}),
    "images": (["train_images.py", "--steps-total", "30"], {"skip": 5, "active": 0}, {}),
    "images_workers": (["train_images.py", "--steps-total", "30"],
                       {"skip": 5, "active": 0, "loader": {"num_workers": 2}}, {}),
    "bad_loader_option": ([NO_TORCH], {"loader": {"num_workers": "4"}}, {}),
    "compile": (MLP_30, {"skip": 5, "active": 0, "arm": "bf16+compile"}, compile_env("compile")),
    # no C++ compiler: Inductor fails (a real compile failure)
    "compile_fails": (MLP_30, {"skip": 5, "active": 0, "arm": "bf16+compile"},
                      compile_env("compile_fails", CXX="/nonexistent/g++")),
    "compile_bad_mode": (MLP_30, {"skip": 5, "active": 0, "arm": "bf16+compile",
                                  "compile_mode": "no-such-mode"}, compile_env("compile_bad_mode")),
    "mlp_bare": (MLP_30, None, {"probe": False}),
    # a script that compiles its model itself (train_fullgraph.py: Dynamo's eager backend)
    "compile_own": (["train_fullgraph.py", "--steps-total", "10"],
                    {"skip": 2, "active": 0, "arm": "bf16+compile"}, compile_env("compile_own")),
    "compile_own_fp32": (["train_fullgraph.py", "--steps-total", "10"],
                         {"skip": 2, "active": 0, "arm": "fp32"}, compile_env("compile_own_fp32")),
    "compile_own_bf16": (["train_fullgraph.py", "--steps-total", "10"],
                         {"skip": 2, "active": 0, "arm": "bf16"}, compile_env("compile_own_bf16")),
})
harness.FIRST.extend(["compile", "compile_fails", "images", "images_workers"])


def _report(name):
    run = result(name)
    path = os.path.join(REPORTS, name + ".json")
    if not os.path.exists(path):
        raise AssertionError("no report from %s\n%s" % (name, run.explain()))
    with open(path) as f:
        return json.load(f)


class LabOptions(unittest.TestCase):
    """options.parse: the lab's options, accepted and refused (no torch)."""

    def parse(self, given):
        sys.path.insert(0, os.path.join(REPO, "python"))
        from kinetoscope.probe import options
        return options.parse(json.dumps(given))

    def refused(self, given, message):
        with self.assertRaises(ValueError) as caught:
            self.parse(given)
        self.assertEqual(str(caught.exception), message)

    def test_defaults_are_the_script_as_written(self):
        parsed = self.parse({})
        self.assertEqual((parsed.arm, parsed.compile_mode, parsed.seed, parsed.loader), ("", "", -1, {}))
        self.assertFalse(parsed.lab)

    def test_accepted(self):
        for arm in ("fp32", "bf16", "bf16+compile"):
            self.assertEqual(self.parse({"arm": arm}).arm, arm)
            self.assertTrue(self.parse({"arm": arm}).lab)
        self.assertEqual(self.parse({"compile_mode": " max-autotune "}).compile_mode, "max-autotune")
        self.assertEqual(self.parse({"seed": 0}).seed, 0)
        self.assertEqual(self.parse({"seed": 2 ** 64 - 1}).seed, 2 ** 64 - 1)
        self.assertEqual(self.parse({"seed": -1}).seed, -1)
        loader = {"num_workers": 4, "pin_memory": True, "persistent_workers": False, "batch_size": 64,
                  "prefetch_factor": 9}  # a newer launcher's key: ignored
        self.assertEqual(self.parse({"loader": loader}).loader,
                         {"num_workers": 4, "pin_memory": True, "persistent_workers": False,
                          "batch_size": 64})
        self.assertTrue(self.parse({"loader": {"num_workers": 0}}).lab)

    def test_refused(self):
        self.refused({"arm": "fp16"}, "option arm is not one of fp32, bf16, bf16+compile: 'fp16'")
        self.refused({"arm": 1}, "option arm is not a string")
        self.refused({"compile_mode": None}, "option compile_mode is not a string")
        self.refused({"seed": -2}, "option seed is not -1 or a seed from 0 to 2**64-1")
        self.refused({"seed": 2 ** 64}, "option seed is not -1 or a seed from 0 to 2**64-1")
        self.refused({"seed": "7"}, "option seed is not a whole number")
        self.refused({"seed": 1.5}, "option seed is not a whole number")
        self.refused({"loader": [1]}, "option loader is not a JSON object")
        self.refused({"loader": {"num_workers": -1}}, "option loader.num_workers is less than 0")
        self.refused({"loader": {"num_workers": True}}, "option loader.num_workers is not a whole number")
        self.refused({"loader": {"batch_size": 0}}, "option loader.batch_size is less than 1")
        self.refused({"loader": {"pin_memory": 1}}, "option loader.pin_memory is not true or false")
        self.refused({"loader": {"persistent_workers": "yes"}},
                     "option loader.persistent_workers is not true or false")

    def test_a_bad_value_disables_the_probe_not_the_script(self):
        run = result("bad_loader_option")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stderr.strip(), "kinetoscope probe: disabled "
                         "(ValueError: option loader.num_workers is not a whole number)")
        self.assertEqual(run.messages, [])


class Arms(unittest.TestCase):
    def test_fp32_wraps_nothing(self):
        run = result("arm_fp32")
        self.assertEqual(run.returncode, 0, run.explain())
        config = run.last_config()
        self.assertEqual(config.get("arm"), "fp32")
        for key in ("arm_note", "arm_error", "compile_seconds", "seed", "loader_overrides"):
            self.assertNotIn(key, config)
        report = _report("arm_fp32")
        self.assertEqual(set(report["out_dtypes"]), {"torch.float32"})
        self.assertEqual(set(report["autocast_in_loss"]), {False})

    def test_bf16_runs_the_forward_and_the_loss_under_autocast(self):
        run = result("arm_bf16")
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertEqual(run.last_config().get("arm"), "bf16")
        self.assertNotIn("arm_note", run.last_config())
        report = _report("arm_bf16")
        # step 0 runs as written (the model is known at its end), then bfloat16
        self.assertEqual(report["out_dtypes"][0], "torch.float32")
        self.assertEqual(set(report["out_dtypes"][1:]), {"torch.bfloat16"}, report)
        self.assertEqual(set(report["autocast_in_loss"][1:]), {True}, report)
        self.assertEqual(set(report["autocast_after_step"]), {False}, report)  # never across a boundary
        self.assertEqual(len(run.steps()), 8, run.explain())

    def test_bf16_in_inference_ends_at_the_forward(self):
        run = result("arm_bf16_infer")
        self.assertEqual(run.returncode, 0, run.explain())
        self.assertEqual(run.last_config().get("mode"), "inference")
        report = _report("arm_bf16_infer")
        self.assertEqual(report["out_dtypes"][0], "torch.float32")
        self.assertEqual(set(report["out_dtypes"][1:]), {"torch.bfloat16"}, report)
        self.assertEqual(set(report["autocast_after_step"]), {False}, report)

    def test_the_scripts_own_compile_is_not_doubled(self):
        # The compile arm compiled the script's compiled model again (helper 39: a
        # LightningModule compiled in __init__), and the lab read bf16 -> compile as measured.
        run = result("compile_own")
        self.assertEqual(run.returncode, 0, run.explain())
        config = run.last_config()
        self.assertEqual(config.get("arm"), "bf16+compile")
        self.assertEqual(config.get("arm_compile"), "script")
        self.assertEqual(config.get("arm_note"),
                         "the script compiles its model itself (torch.compile not applied twice)")
        self.assertNotIn("compile_seconds", config)  # nothing of ours compiled
        self.assertNotIn("arm_error", config)
        self.assertIn(b"trained; graphs", run.stdout)

    def test_the_other_arms_say_they_ran_the_scripts_compiled_model(self):
        # Helper 39: the fp32 and bf16 rows said nothing, though they ran compiled as well.
        for name, arm in (("compile_own_fp32", "fp32"), ("compile_own_bf16", "bf16")):
            run = result(name)
            self.assertEqual(run.returncode, 0, run.explain())
            config = run.last_config()
            self.assertEqual(config.get("arm"), arm)
            self.assertEqual(config.get("arm_note"),
                             "the script compiles its model itself (this arm ran compiled)")
            self.assertNotIn("arm_compile", config)  # the compile arm's word
            self.assertIn(b"trained; graphs", run.stdout)

    def test_the_scripts_own_autocast_is_not_doubled(self):
        run = result("arm_own_autocast")
        self.assertEqual(run.returncode, 0, run.explain())
        config = run.last_config()
        self.assertEqual(config.get("arm"), "bf16")
        self.assertEqual(config.get("arm_note"), "the script already uses autocast (bfloat16 not applied twice)")
        self.assertEqual(config.get("arm_precision"), "script")  # (no fp32 -> bf16 to read)
        self.assertNotIn("arm_error", config)
        report = _report("arm_own_autocast")
        self.assertEqual(set(report["out_dtypes"]), {"torch.bfloat16"})  # the script's own
        # entered inside the script's block and exited at backward, ours would leave
        # autocast on after the script's block ended
        self.assertEqual(set(report["autocast_after_step"]), {False}, report)
        self.assertEqual(set(report["autocast_in_loss"]), {False}, report)

    def test_a_grad_scaler_means_the_script_has_its_own_mixed_precision(self):
        run = result("arm_scaler")
        self.assertEqual(run.returncode, 0, run.explain())
        report = _report("arm_scaler")
        self.assertTrue(report["scaler_enabled"])
        self.assertEqual(run.last_config().get("arm_note"),
                         "the script uses a GradScaler (its own mixed precision): bfloat16 not applied")
        self.assertEqual(run.last_config().get("arm_precision"), "script")
        self.assertEqual(set(report["out_dtypes"]), {"torch.float32"})

    def test_arms_on_train_mlp(self):
        for name, arm in (("mlp_fp32", "fp32"), ("mlp_bf16", "bf16")):
            run = result(name)
            self.assertEqual(run.returncode, 0, run.explain())
            self.assertEqual(run.last_config().get("arm"), arm)
            self.assertEqual(len(run.steps()), 10, run.explain())
            harness.check_loss_reads(self, run.steps(), 0, 10)
            self.assertIn(b"trained 12 steps", run.stdout)


class Compile(unittest.TestCase):
    """bf16+compile on train_mlp.py: one run that compiles (20-40 s on a small CPU), one
    whose compilation fails (no C++ compiler), one with a mode torch refuses."""

    def test_compiles_in_place_and_reports_its_figures(self):
        run = result("compile")
        self.assertEqual(run.returncode, 0, run.explain())
        config = run.last_config()
        self.assertEqual(config.get("arm"), "bf16+compile")
        self.assertEqual(config.get("compile_mode"), "default")
        self.assertNotIn("arm_error", config, run.explain())
        self.assertGreater(float(config["compile_seconds"]), 0.5, config)
        self.assertEqual(int(config["graph_breaks"]), 0)  # train_mlp's Sequential: one graph
        self.assertEqual(int(config["recompiles"]), 0)  # drop_last: one shape
        self.assertEqual(config.get("compiled_in_measured"), "0")
        self.assertEqual([s[0] for s in run.steps()], list(range(5, 30)), run.explain())
        self.assertIn(b"trained 30 steps", run.stdout)
        # step 0 ran as written: its loss is the script's own
        self.assertEqual(run.stdout.splitlines()[0], result("mlp_bare").stdout.splitlines()[0])

    def test_a_failed_compilation_stops_the_script_cleanly(self):
        run = result("compile_fails")
        self.assertEqual(run.returncode, 0, run.explain())
        error = run.last_config().get("arm_error", "")
        self.assertRegex(error, r"^torch\.compile failed: InductorError: .*C\+\+ compiler", run.explain())
        self.assertEqual(run.done(), {"type": "done", "ok": True, "error": "", "session": "", "by": error})
        # compiled from step 1, which fell back to the eager forward and ended the run
        self.assertEqual(run.stdout, result("mlp_bare").stdout.splitlines(True)[0], run.explain())
        self.assertNotIn("Traceback", run.stderr)

    def test_a_mode_torch_refuses_is_a_failed_compilation(self):
        run = result("compile_bad_mode")
        self.assertEqual(run.returncode, 0, run.explain())
        config = run.last_config()
        self.assertEqual(config.get("compile_mode"), "no-such-mode")
        self.assertTrue(config.get("arm_error", "").startswith(
            "torch.compile failed: RuntimeError: Unrecognized mode=no-such-mode"), config)
        self.assertEqual(run.done()["by"], config["arm_error"])


class CompileFallback(unittest.TestCase):
    """arms.Lab.compiled_call when the compiled forward raises (fakes, no torch)."""

    class Module(object):
        def forward(self, x):
            return ("eager", x)

    def _lab(self, eager):
        sys.path.insert(0, os.path.join(REPO, "python"))
        from kinetoscope.probe import arms, options

        class Probe(object):
            pass

        probe = Probe()
        probe.options = options.parse('{"arm": "bf16+compile"}')
        lab = arms.Lab(probe, torch=object())
        module = self.Module()
        lab.model, lab.eager = module, eager
        lab.compiled = self.raise_error
        module.forward = lambda *a, **k: lab.compiled_call(a, k)
        module.forward.__kinetoscope_compiled__ = True
        return lab, module

    @staticmethod
    def raise_error(*args, **kwargs):
        raise RuntimeError("compiler blew up\nsecond line")

    def test_eager_succeeds_so_compile_failed(self):
        module_eager = self.Module().forward
        lab, module = self._lab(module_eager)
        self.assertEqual(module.forward(3), ("eager", 3))
        self.assertEqual(lab.values["arm_error"], "torch.compile failed: RuntimeError: compiler blew up")
        self.assertEqual(lab.stop_by, lab.values["arm_error"])
        self.assertNotIn("forward", module.__dict__)  # the class's forward again
        self.assertEqual(module.forward(4), ("eager", 4))

    def test_eager_raises_too_so_the_error_is_the_scripts(self):
        def eager(x):
            raise ValueError("the script's own bug")

        lab, module = self._lab(eager)
        with self.assertRaisesRegex(ValueError, "the script's own bug"):
            module.forward(3)
        self.assertNotIn("arm_error", lab.values)
        self.assertEqual(lab.stop_by, "")


class SeedAndLoader(unittest.TestCase):
    def test_a_seed_makes_runs_repeat(self):
        a, b, c, unseeded = (_report(n) for n in ("seed_a", "seed_b", "seed_c", "arm_fp32"))
        self.assertEqual(a["losses"][0], b["losses"][0])
        self.assertEqual(a["random"], b["random"])  # Python's random too
        self.assertNotEqual(a["losses"][0], c["losses"][0])
        self.assertNotEqual(a["random"], c["random"])
        self.assertNotEqual(a["random"], unseeded["random"])
        config = result("seed_a").last_config()
        self.assertEqual(config.get("seed"), "7")
        self.assertNotIn("script_reseeds", config)
        self.assertNotIn("arm", config)

    def test_a_script_that_seeds_itself_is_reported_and_unchanged(self):
        run = result("reseed")
        self.assertEqual(run.returncode, 0, run.explain())
        config = run.last_config()
        self.assertEqual(config.get("seed"), "3")
        self.assertEqual(config.get("script_reseeds"), "true")
        self.assertEqual(run.stdout, result("mlp_bare").stdout)  # its own seed decided

    def test_loader_overrides_apply_and_are_reported(self):
        run = result("loader_up")
        self.assertEqual(run.returncode, 0, run.explain())
        report = _report("loader_up")
        # DataLoader(dataset, 16, True, num_workers=0): the batch size given positionally
        self.assertEqual(report["loader"], {"num_workers": 1, "batch_size": 8, "pin_memory": True,
                                            "persistent_workers": False, "prefetch_factor": 2})
        self.assertIsNone(report["batch_sampler_loader"]["batch_size"])  # its batch_sampler kept
        config = run.last_config()
        self.assertEqual(config.get("loader_overrides"),
                         "num_workers=1 (script: 0), pin_memory=true (script: false), "
                         "batch_size=8 (script: 16)")
        self.assertEqual((config.get("workers"), config.get("batch_size")), ("1", "8"))
        self.assertEqual(len(run.steps()), 8, run.explain())

    def test_no_workers_drops_what_needs_them(self):
        run = result("loader_down")
        self.assertEqual(run.returncode, 0, run.explain())  # torch would refuse persistent_workers
        self.assertEqual(_report("loader_down")["loader"],
                         {"num_workers": 0, "batch_size": 16, "pin_memory": False,
                          "persistent_workers": False, "prefetch_factor": None})
        self.assertEqual(run.last_config().get("loader_overrides"),
                         "num_workers=0 (script: 2), persistent_workers=false (script: true)")

    def test_workers_on_a_data_bound_script(self):
        serial, parallel = result("images"), result("images_workers")
        for run in (serial, parallel):
            self.assertEqual(run.returncode, 0, run.explain())
            self.assertEqual(run.last_config().get("model"), "SmallCNN")
            self.assertEqual(len(run.steps()), 25, run.explain())
            for row in run.steps():
                self.assertGreaterEqual(row[11], sum(row[1:6]) - 0.01, row)  # wall holds the phases
        self.assertEqual(parallel.last_config().get("loader_overrides"), "num_workers=2 (script: 0)")
        self.assertEqual(parallel.last_config().get("workers"), "2")
        serial_data = statistics.median(s[1] for s in serial.steps())
        compute = sum(_phase_medians(serial.steps())[2:])
        self.assertGreater(serial_data, compute, serial.explain())  # data-bound without workers
        # How much the two workers shorten the wait is the machine's: beside the harness's
        # other runs and CTest's other tests on two cores they did not (10.1 ms against
        # 8.3 ms serial in a CI run). test_profile's DataLoader test and bench/ measure it.


class Isolation(unittest.TestCase):
    def test_probe_prints_nothing_of_its_own(self):
        for name in ("arm_bf16", "arm_own_autocast", "mlp_bf16", "seed_a", "reseed", "loader_down",
                     "images_workers", "compile", "compile_fails"):
            stderr = result(name).stderr
            self.assertNotIn("kinetoscope probe", stderr, name)
            self.assertNotIn(os.path.join("python", "kinetoscope"), stderr, name)


if __name__ == "__main__":
    unittest.main()
