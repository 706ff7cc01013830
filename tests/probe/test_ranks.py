"""The probe in every rank of a distributed job (job mode: python/kinetoscope/probe/ranks.py,
filechannel.py): tests/probe/train_ddp.py under torchrun (2 ranks, gloo, CPU) with
KINETOSCOPE_PROBE_JOB set and no socket, as `kinetoscope profile` runs a job; a rank as
srun starts one (SLURM_PROCID); and the file channel and the boot's decisions alone.

    <venv python> -m unittest tests/probe/test_ranks.py      (from the repository root)

The torchrun runs start together (two at a time) at the first test that reads one.
"""
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import BOOT, HERE, PYTHON, REPO  # noqa: E402

TORCHRUN = [PYTHON, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2"]
# torchrun's console script, beside the interpreter (a venv's bin/): the other way to start it
TORCHRUN_SCRIPT = os.path.join(os.path.dirname(PYTHON), "torchrun")
# srun's variables of one task of one: torchrun's agent has them under srun, and stays dormant
SRUN_TASK = {"SLURM_PROCID": "0", "SLURM_NTASKS": "1", "SLURM_LOCALID": "0"}
CANCEL_BY = "the app's Cancel button"
CANCEL_AFTER_STEPS = 3  # in each rank's stream


class JobRun(object):
    """One torchrun job: its exit status, output, and the job folder."""

    def __init__(self, returncode, stdout, stderr, job, pid):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.job = job
        self.pid = pid  # the launcher's (torchrun's agent)

    def path(self, rank, name="probe.jsonl"):
        return os.path.join(self.job, "rank-%d" % rank, name)

    def messages(self, rank):
        """The rank's stream, line by line (every line whole)."""
        with open(self.path(rank), "rb") as f:
            data = f.read()
        return [json.loads(line) for line in data.decode("ascii").splitlines()]

    def of_type(self, rank, kind):
        return [m for m in self.messages(rank) if m.get("type") == kind]

    def steps(self, rank):
        return [m["step"] for m in self.of_type(rank, "step")]

    def config(self, rank):
        config = {}
        for message in self.of_type(rank, "started"):
            config.update(message["config"])
        return config

    def done(self, rank):
        done = self.of_type(rank, "done")
        return done[0] if done else None

    def explain(self):
        streams = []
        for name in sorted(os.listdir(self.job)):
            path = os.path.join(self.job, name, "probe.jsonl")
            if os.path.exists(path):
                with open(path, "rb") as f:
                    lines = f.read().decode("ascii", "replace").splitlines()
                streams.append("%s:\n%s" % (name, "\n".join(lines[:3] + ["..."] + lines[-4:])))
        return "rc=%s\njob=%s\n%s\nstderr=%s" % (self.returncode, sorted(os.listdir(self.job)),
                                                 "\n".join(streams), self.stderr[-3000:])


def _job_env(job, options, env_extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("KINETOSCOPE_PROBE_", "SLURM_"))
           and k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    env["OMP_NUM_THREADS"] = "1"  # two ranks on a small shared machine
    if options is not None:
        env["PYTHONPATH"] = BOOT
        env["KINETOSCOPE_PROBE_JOB"] = job
        env["KINETOSCOPE_PROBE_OPTIONS"] = json.dumps(options)
    env.update(env_extra or {})
    return env


def _count_steps(path):
    try:
        with open(path, "rb") as f:
            return f.read().count(b'"type":"step"')
    except OSError:
        return 0


def _cancel_when_stepping(job, process, after_steps):
    """Writes JOB/cancel (atomically, as a launcher does) once both ranks' streams hold
    `after_steps` step lines."""
    streams = [os.path.join(job, "rank-%d" % rank, "probe.jsonl") for rank in (0, 1)]
    while process.poll() is None:
        if all(_count_steps(path) >= after_steps for path in streams):
            temporary = os.path.join(job, ".cancel.tmp")
            with open(temporary, "w") as f:
                f.write(json.dumps({"type": "cancel", "by": CANCEL_BY}) + "\n")
            os.rename(temporary, os.path.join(job, "cancel"))
            return
        time.sleep(0.05)


def run_job(args, options, job=None, launcher=None, env_extra=None, cancel_after_steps=None):
    """torchrun (2 ranks) of train_ddp.py ARGS; options None: no kinetoscope at all."""
    job = job or harness.temp_dir("kinetoscope-job-")
    process = subprocess.Popen((launcher or TORCHRUN) + ["train_ddp.py"] + list(args), cwd=HERE,
                               env=_job_env(job, options, env_extra),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    canceller = None
    if cancel_after_steps is not None:
        canceller = threading.Thread(target=_cancel_when_stepping,
                                     args=(job, process, cancel_after_steps))
        canceller.daemon = True
        canceller.start()
    try:
        stdout, stderr = process.communicate(timeout=harness.RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
    if canceller is not None:
        canceller.join(5)
    return JobRun(process.returncode, stdout.decode("utf-8", "replace"),
                  stderr.decode("utf-8", "replace"), job, process.pid)


def _files(folder):
    """{relative path: bytes} of everything under `folder`."""
    contents = {}
    for root, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                contents[os.path.relpath(path, folder)] = f.read()
    return contents


def _run_again():
    """A second job into the first one's folder (after it ended): (its run, the folder's
    files before, after)."""
    first = result("plain")
    before = _files(first.job)
    again = run_job(PLAIN_ARGS, PLAIN_OPTIONS, job=first.job)
    return again, before, _files(first.job)


PLAIN_ARGS = ["--steps", "400", "--workers", "1"]  # a forked worker per rank: silent
PLAIN_OPTIONS = {"skip": 3, "active": 2, "steps": 6}
RUNS = {
    "plain": lambda: run_job(PLAIN_ARGS, PLAIN_OPTIONS),
    "plain_bare": lambda: run_job(["--steps", "12", "--workers", "1"], None),
    # rank 1's dataset sleeps 1 ms per item: 16 ms of data per step; torchrun's console
    # script under srun's variables (its agent has SLURM_PROCID and must stay dormant)
    "slow": lambda: run_job(["--steps", "400", "--slow-rank", "1", "--slow-ms", "1"],
                            {"skip": 2, "active": 0, "steps": 8},
                            launcher=[TORCHRUN_SCRIPT] + TORCHRUN[3:], env_extra=SRUN_TASK),
    "crash": lambda: run_job(["--steps", "400", "--crash-rank", "1", "--crash-step", "7"],
                             {"skip": 2, "active": 0}),
    "crash_bare": lambda: run_job(["--steps", "400", "--crash-rank", "1", "--crash-step", "7"], None),
    # `python -m torch.distributed.run` under srun's variables
    "cancel": lambda: run_job(["--steps", "100000"], {"skip": 2, "active": 0},
                              env_extra=SRUN_TASK, cancel_after_steps=CANCEL_AFTER_STEPS),
    "again": _run_again,
}
_pool = concurrent.futures.ThreadPoolExecutor(max_workers=2)
_futures = {}


def result(name):
    if not _futures:
        for key in ("cancel", "plain", "slow", "crash", "crash_bare", "plain_bare"):
            _futures[key] = _pool.submit(RUNS[key])
    if name not in _futures:
        _futures[name] = _pool.submit(RUNS[name])
    return _futures[name].result()


class EveryRank(unittest.TestCase):
    def test_each_rank_streams_the_protocol(self):
        run = result("plain")
        self.assertEqual(run.returncode, 0, run.explain())
        for rank in (0, 1):
            messages = run.messages(rank)
            types = [m["type"] for m in messages]
            self.assertEqual(types[0], "hello", run.explain())
            self.assertEqual(messages[0]["protocol"], 4)
            self.assertEqual(messages[0]["rank"], rank)
            self.assertEqual(types[1], "started")
            self.assertEqual(types[-1], "done")
            self.assertEqual(types.count("hello"), 1)  # the forked worker said nothing
            self.assertEqual(types.count("done"), 1)
            self.assertEqual(run.done(rank), {"type": "done", "ok": True, "error": "", "session": "",
                                              "by": "--steps 6"})
            for message in run.of_type(rank, "started"):
                self.assertEqual(message["config"]["rank"], str(rank))
                for value in message["config"].values():
                    self.assertIsInstance(value, str)

    def test_started_says_which_rank(self):
        run = result("plain")
        for rank in (0, 1):
            config = run.config(rank)
            for key, value in {"rank": str(rank), "world_size": "2", "local_rank": str(rank),
                               "rank_source": "RANK", "mode": "train", "optimizer": "SGD",
                               "model": "DistributedDataParallel", "workers": "1",
                               "batch_size": "16", "steps_from": "optimizer"}.items():
                self.assertEqual(config.get(key), value, (rank, key, run.explain()))
            self.assertTrue(config.get("host"))

    def test_measured_steps_and_the_window(self):
        run = result("plain")
        for rank in (0, 1):
            steps = run.steps(rank)
            self.assertEqual([s[0] for s in steps], list(range(5, 11)), run.explain())
            for row in steps:
                self.assertEqual(len(row), 12)
                self.assertTrue(all(v >= 0 for v in row[1:6]), row)
                self.assertGreater(row[4], 0)  # backward (the gradients' all-reduce in it)
            with open(run.path(rank, "trace.json")) as f:
                names = {e.get("name", "") for e in json.load(f)["traceEvents"]}
            self.assertEqual(sorted(n for n in names if n.startswith("ProfilerStep#")),
                             ["ProfilerStep#3", "ProfilerStep#4"])

    def test_torchrun_agent_writes_nothing(self):
        for name in ("plain", "slow", "cancel"):
            run = result(name)
            self.assertEqual(sorted(os.listdir(run.job)),
                             ["cancel", "cancel-step", "rank-0", "rank-1"] if name == "cancel"
                             else ["rank-0", "rank-1"], run.explain())
            for rank in (0, 1):
                self.assertNotEqual(run.messages(rank)[0]["pid"], run.pid)
                self.assertEqual(sorted(os.listdir(os.path.join(run.job, "rank-%d" % rank))),
                                 ["probe.jsonl", "trace.json"] if name == "plain" else ["probe.jsonl"])

    def test_under_srun_the_rank_is_torchruns(self):
        for name in ("slow", "cancel"):
            run = result(name)
            for rank in (0, 1):
                config = run.config(rank)
                self.assertEqual([config.get(k) for k in ("rank", "rank_source", "world_size")],
                                 [str(rank), "RANK", "2"], run.explain())

    def test_the_script_is_untouched(self):
        run, bare = result("plain"), result("plain_bare")
        self.assertEqual((run.returncode, bare.returncode), (0, 0), bare.explain())
        self.assertIn("rank 0 trained 12 steps", bare.stdout)
        self.assertNotIn("kinetoscope probe", run.stderr)
        self.assertNotIn(os.path.join("python", "kinetoscope"), run.stderr)  # no warning of ours
        # --steps 6 after 3 + 2: SystemExit(0) at step 11's boundary, before the script's print
        self.assertNotIn("trained", run.stdout)


class Endings(unittest.TestCase):
    def test_a_data_starved_rank_shows_it(self):
        run = result("slow")
        self.assertEqual(run.returncode, 0, run.explain())
        data = [statistics.median(row[1] for row in run.steps(rank)) for rank in (0, 1)]
        self.assertEqual(len(run.steps(1)), 8, run.explain())
        self.assertGreater(data[1], 12.0, (data, run.explain()))  # 16 items x 1 ms of sleep
        self.assertGreater(data[1], 4 * data[0], (data, run.explain()))
        # rank 0 waits for rank 1's gradients in its backward instead
        backward = [statistics.median(row[4] for row in run.steps(rank)) for rank in (0, 1)]
        self.assertGreater(backward[0], backward[1], (backward, run.explain()))

    def test_a_failing_rank_says_why_and_the_job_fails_as_without_the_probe(self):
        run, bare = result("crash"), result("crash_bare")
        self.assertNotEqual(bare.returncode, 0)
        self.assertEqual(run.returncode, bare.returncode, run.explain())
        done = run.done(1)
        self.assertIsNotNone(done, run.explain())
        self.assertFalse(done["ok"])
        self.assertRegex(done["error"], r"^RuntimeError: planted failure in rank 1 at step 7 "
                                        r"\(train_ddp\.py, line \d+, in train\)$")
        self.assertEqual([s[0] for s in run.steps(1)], [2, 3, 4, 5, 6])
        # rank 0 waited for rank 1 in its step 7: torchrun ended it (SIGTERM: no done) or
        # gloo failed its all-reduce (done, not ok); its stream is there, every line whole
        others = run.messages(0)
        self.assertEqual(others[0]["type"], "hello")
        self.assertNotIn(True, [m["ok"] for m in others if m["type"] == "done"])

    def test_the_cancel_file_stops_every_rank_cleanly_at_the_same_step(self):
        run = result("cancel")
        self.assertEqual(run.returncode, 0, run.explain())
        with open(os.path.join(run.job, "cancel-step")) as f:
            agreed = json.loads(f.read())
        last = []
        for rank in (0, 1):
            self.assertEqual(run.done(rank), {"type": "done", "ok": True, "error": "",
                                              "session": "", "by": CANCEL_BY}, run.explain())
            last.append(run.steps(rank)[-1][0])
        # both stopped at the boundary where their count of steps reached the agreed one
        self.assertEqual(last, [agreed["step"] - 1] * 2, (agreed, run.explain()))
        self.assertIn(agreed["rank"], (0, 1))
        self.assertGreater(agreed["step"], CANCEL_AFTER_STEPS + 2)
        self.assertNotIn("trained", run.stdout)

    def test_a_second_run_into_the_folder_disables_itself(self):
        again, before, after = result("again")
        self.assertEqual(again.returncode, 0, again.explain())
        self.assertEqual(before, after)  # not a byte overwritten, nothing added
        lines = sorted(l for l in again.stderr.splitlines() if "kinetoscope probe" in l)
        self.assertEqual(len(lines), 2, again.stderr)
        for rank, line in enumerate(lines):
            self.assertEqual(line, "kinetoscope probe: disabled (FileExistsError: rank-%d already holds "
                                   "a run (%s is never overwritten))" % (rank, again.path(rank)))
        self.assertIn("rank 0 trained 400 steps", again.stdout)  # the script as written


class Srun(unittest.TestCase):
    """A task started by srun itself (no torchrun): its rank is SLURM_PROCID."""

    def test_a_slurm_task_is_a_rank(self):
        job = harness.temp_dir("kinetoscope-srun-")
        env = {"KINETOSCOPE_PROBE_JOB": job,
               "KINETOSCOPE_PROBE_OPTIONS": json.dumps({"skip": 2, "active": 0}),
               "SLURM_PROCID": "3", "SLURM_NTASKS": "4", "SLURM_LOCALID": "1"}
        run = harness.run_script(["train_mlp.py", "--steps-total", "9"], None, probe=False,
                                 env_extra=env)
        harness.TEMP_DIRS.append(run.out_dir)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(os.listdir(job), ["rank-3"])
        messages = JobRun(0, "", "", job, 0).messages(3)
        self.assertEqual(messages[0], {"type": "hello", "protocol": 4, "pid": run.pid, "rank": 3})
        config = {}
        for message in messages:
            if message["type"] == "started":
                config.update(message["config"])
        self.assertEqual({k: config.get(k) for k in ("rank", "rank_source", "world_size", "local_rank")},
                         {"rank": "3", "rank_source": "SLURM_PROCID", "world_size": "4",
                          "local_rank": "1"})
        self.assertEqual([m["step"][0] for m in messages if m["type"] == "step"], list(range(2, 9)))
        self.assertEqual(messages[-1]["type"], "done")
        self.assertIn(b"trained 9 steps", run.stdout)


class Boot(unittest.TestCase):
    """python/boot/sitecustomize.py's decision, in a fresh interpreter each."""

    def _active(self, env, args=("-c", "import os; print(os.environ.get('KINETOSCOPE_PROBE_OWNER'))")):
        """(the job folder's listing after, the KINETOSCOPE_PROBE_OWNER the script saw)."""
        job = tempfile.mkdtemp(prefix="kinetoscope-boot-")
        harness.TEMP_DIRS.append(job)
        base = _job_env(job, {}, None)
        base.update(env)
        out = subprocess.run([PYTHON] + list(args), env=base, cwd=HERE, capture_output=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertNotIn(b"kinetoscope probe", out.stderr)
        return sorted(os.listdir(job)), out.stdout.decode().strip()

    def test_who_is_a_rank(self):
        self.assertEqual(self._active({}), ([], "None"))  # no rank: torchrun's agent
        self.assertEqual(self._active({"RANK": "1"})[0], ["rank-1"])
        self.assertEqual(self._active({"SLURM_PROCID": "2"})[0], ["rank-2"])
        self.assertEqual(self._active({"RANK": "0", "SLURM_PROCID": "5"})[0], ["rank-0"])
        listing, owner = self._active({"RANK": "1", "LOCAL_RANK": "1"})
        self.assertTrue(owner.isdigit(), owner)  # the rank's workers stay dormant
        self.assertEqual(self._active({"RANK": "1", "KINETOSCOPE_PROBE_OWNER": "1"}), ([], "1"))
        # a script run with -m under srun is a rank (only torchrun's own modules are not)
        self.assertEqual(self._active(SRUN_TASK, ["-m", "platform"])[0], ["rank-0"])

    def test_torchrun_under_srun_stays_dormant(self):
        # the agent's command lines, with --help: it prints its help and exits; had the
        # probe started, rank-0/ would be there
        for args in (["-m", "torch.distributed.run", "--help"],
                     ["-W", "ignore", "-um", "torch.distributed.launch", "--help"],
                     [TORCHRUN_SCRIPT, "--help"]):
            self.assertEqual(self._active(SRUN_TASK, args)[0], [], args)

    def test_a_bad_rank_disables_the_probe(self):
        job = tempfile.mkdtemp(prefix="kinetoscope-boot-")
        harness.TEMP_DIRS.append(job)
        env = _job_env(job, {}, {"RANK": "first"})
        out = subprocess.run([PYTHON, "-c", "print('ran')"], env=env, capture_output=True, timeout=60)
        self.assertEqual(out.stdout, b"ran\n")
        self.assertEqual(out.stderr,
                         b"kinetoscope probe: disabled (ValueError: RANK is not a rank: 'first')\n")
        self.assertEqual(os.listdir(job), [])


class FileChannelAlone(unittest.TestCase):
    """filechannel.FileChannel and ranks.Job without a script."""

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, os.path.join(REPO, "python"))
        from kinetoscope.probe import filechannel, ranks
        cls.filechannel, cls.ranks = filechannel, ranks

    def _folder(self):
        folder = tempfile.mkdtemp(prefix="kinetoscope-filechannel-")
        harness.TEMP_DIRS.append(folder)
        return folder

    def _wait(self, predicate, seconds=3.0):
        deadline = time.monotonic() + seconds
        while not predicate() and time.monotonic() < deadline:
            time.sleep(0.01)
        return predicate()

    def test_lines_as_on_the_socket(self):
        folder = self._folder()
        job = self.ranks.Job(folder, 4)
        channel = self.filechannel.FileChannel(job.open_stream(), job.cancel_path, None, None)
        channel.send({"type": "hello", "protocol": 4, "pid": 1})
        channel.post('{"type":"progress"}')
        channel.post((lambda a, b: '{"type":"step","step":[%d,%d]}' % (a, b), (5, 6)))
        channel.send({"type": "done", "ok": True, "error": "ü\n", "session": "", "by": ""})
        channel.close(timeout=1.0)
        with open(job.stream_path, "rb") as f:
            data = f.read()
        self.assertEqual(data, b'{"type":"hello","protocol":4,"pid":1}\n{"type":"progress"}\n'
                               b'{"type":"step","step":[5,6]}\n'
                               b'{"type":"done","ok":true,"error":"\\u00fc\\n","session":"","by":""}\n')
        with self.assertRaisesRegex(FileExistsError,
                                    r"^rank-4 already holds a run \(.*rank-4/probe\.jsonl"):
            job.open_stream()

    def test_a_full_disk_turns_the_probe_off_once(self):
        lost = []
        channel = self.filechannel.FileChannel(os.open("/dev/full", os.O_WRONLY), "/nonexistent/cancel",
                                               None, lambda: lost.append(1))
        channel.post('{"type":"progress"}')
        self.assertTrue(self._wait(lambda: lost))
        channel.send({"type": "done"})
        channel.post('{"type":"progress"}')
        time.sleep(0.2)
        self.assertEqual(lost, [1])
        self.assertFalse(channel.open)

    def test_the_cancel_file_is_heard_once(self):
        folder = self._folder()
        heard = []
        channel = self.filechannel.FileChannel(os.open(os.devnull, os.O_WRONLY),
                                               os.path.join(folder, "cancel"), heard.append, None)
        time.sleep(0.3)
        self.assertEqual(heard, [])
        with open(os.path.join(folder, "cancel"), "w") as f:
            f.write('{"type":"cancel","by":"Ctrl-C"}\n')
        self.assertTrue(self._wait(lambda: heard))
        time.sleep(0.5)
        self.assertEqual(heard, ["Ctrl-C"])
        channel.close(timeout=1.0)

    def test_an_unreadable_cancel_file_is_the_launchers(self):
        folder = self._folder()
        heard = []
        with open(os.path.join(folder, "cancel"), "w") as f:
            f.write("{")
        self.filechannel.FileChannel(os.open(os.devnull, os.O_WRONLY), os.path.join(folder, "cancel"),
                                     heard.append, None)
        self.assertTrue(self._wait(lambda: heard))
        self.assertEqual(heard, ["the launcher"])

    def test_ranks_agree_on_the_stop_step(self):
        folder = self._folder()
        first, second = self.ranks.Job(folder, 1), self.ranks.Job(folder, 0)
        self.assertEqual(first.stop_step(lambda: 57), 57)
        self.assertEqual(second.stop_step(lambda: 3), 57)  # the first one's
        with open(os.path.join(folder, "cancel-step")) as f:
            self.assertEqual(f.read(), '{"step":57,"rank":1}\n')
        self.assertEqual(self.ranks.stop_proposal(10, 0.0), 12)  # no step timed yet
        self.assertEqual(self.ranks.stop_proposal(10, 100.0), 22)  # about a second of steps
        self.assertEqual(self.ranks.stop_proposal(10, 2000.0), 13)

    def test_a_rank_is_read_from_the_environment(self):
        rank = self.ranks.Rank({"SLURM_PROCID": "7", "SLURM_NTASKS": "8", "LOCAL_RANK": " 3 "})
        config = rank.config()
        config.pop("host")
        self.assertEqual(config, {"rank": "7", "rank_source": "SLURM_PROCID", "world_size": "8",
                                  "local_rank": "3"})
        with self.assertRaisesRegex(ValueError, "absolute"):
            self.ranks.Job("relative/job", 0)
        with self.assertRaisesRegex(ValueError, "^neither RANK nor SLURM_PROCID is set$"):
            self.ranks.Rank({})


if __name__ == "__main__":
    unittest.main()
