"""The probe's test harness: real training scripts run with real torch, the probe in.

Each run is what `kinetoscope profile` does, without the launcher: a socketpair, one end
passed to the script's interpreter (pass_fds) as KINETOSCOPE_PROBE_FD, python/boot first
on PYTHONPATH, KINETOSCOPE_PROBE_OUT a fresh folder, KINETOSCOPE_PROBE_OPTIONS as given.
The harness reads the messages until the socket's EOF (every holder of the child's end
gone: the script and any worker it forked); the tests assert on them.

The test modules register their runs (RUNS, ALONE, FIRST); the first result() starts them
all, a few at a time, so a suite takes about as long as its slowest runs; each test
waits for the runs it reads. What the runs leave is removed at exit.
"""
import atexit
import concurrent.futures
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BOOT = os.path.join(REPO, "python", "boot")
PYTHON = os.environ.get("KINETOSCOPE_PROBE_PYTHON") or sys.executable
# A run past this is killed and fails: a hang detector. The compile run (20-40 s alone) went
# past 150 s beside two other runs and test_api's torch.compile on a loaded two-core machine.
RUN_TIMEOUT_S = 400
PARALLEL_RUNS = 3


class Run(object):
    """One script run, with or without the probe."""

    def __init__(self, returncode, messages, stdout, stderr, out_dir, pid):
        self.returncode = returncode
        self.messages = messages
        self.stdout = stdout
        self.stderr = stderr
        self.out_dir = out_dir
        self.pid = pid

    def of_type(self, kind):
        return [m for m in self.messages if m.get("type") == kind]

    def steps(self):
        return [m["step"] for m in self.of_type("step")]

    def done(self):
        done = self.of_type("done")
        return done[0] if done else None

    def last_config(self):
        config = {}
        for message in self.of_type("started"):
            config.update(message["config"])
        return config

    def explain(self):
        return "rc=%s\nmessages=%s\nstderr=%s" % (
            self.returncode, "\n".join(json.dumps(m) for m in self.messages[-30:]),
            self.stderr[-3000:])


def run_script(args, options=None, probe=True, cwd=None, env_extra=None, env_drop=(),
               cancel_after_steps=None, hang_up_after_steps=None, python_path_extra=None,
               out_dir=None):
    """Runs `python ARGS` and returns a Run. probe=False: the same environment without
    the probe's variables (python/boot still on the path: the probe must then be inert)."""
    out_dir = out_dir or tempfile.mkdtemp(prefix="kinetoscope-probe-test-")
    env = dict(os.environ)
    for name in list(env):
        if name.startswith("KINETOSCOPE_PROBE_"):
            del env[name]
    env["OMP_NUM_THREADS"] = "1"  # steadier timings on a small shared machine
    env["PYTHONPATH"] = os.pathsep.join([BOOT] + (python_path_extra or []))
    env.update(env_extra or {})
    for name in env_drop:
        env.pop(name, None)
    parent = child = None
    pass_fds = ()
    if probe:
        parent, child = socket.socketpair()
        env["KINETOSCOPE_PROBE_FD"] = str(child.fileno())
        env["KINETOSCOPE_PROBE_OUT"] = out_dir
        env["KINETOSCOPE_PROBE_OPTIONS"] = json.dumps(options or {})
        pass_fds = (child.fileno(),)
    process = subprocess.Popen([PYTHON] + list(args), cwd=cwd or HERE, env=env,
                               pass_fds=pass_fds, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    messages = []
    reader = None
    if probe:
        child.close()

        def read():
            pending = b""
            cancelled = False
            steps = 0  # (counted as they come: a long run's reader must keep up with it)
            while True:
                chunk = parent.recv(65536)
                if not chunk:
                    return
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    messages.append(json.loads(line.decode("utf-8")))
                    steps += messages[-1]["type"] == "step"
                    if hang_up_after_steps is not None and steps >= hang_up_after_steps:
                        parent.shutdown(socket.SHUT_RDWR)  # the launcher is gone
                        return
                    if (cancel_after_steps is not None and not cancelled
                            and steps >= cancel_after_steps):
                        cancelled = True
                        parent.sendall(b'{"type":"cancel","by":"the app\'s Cancel button"}\n')

        reader = threading.Thread(target=read)
        reader.daemon = True
        reader.start()
    try:
        stdout, stderr = process.communicate(timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
    if reader is not None:
        reader.join(30)
        if reader.is_alive():
            messages.append({"type": "harness", "error": "the socket never reached EOF"})
        parent.close()
    return Run(process.returncode, messages, stdout, stderr.decode("utf-8", "replace"),
               out_dir, process.pid)



# -- the runs, started together -------------------------------------------------------------
RUNS = {}  # name -> (script arguments, options (None: no probe), run_script's other arguments)
ALONE = []  # started first, beside each other only; the first of them is waited for
FIRST = []  # started next, in this order (the longest first); then the rest as registered
TEMP_DIRS = []  # removed at exit

_pool = concurrent.futures.ThreadPoolExecutor(max_workers=PARALLEL_RUNS)
_futures = {}


def temp_dir(prefix):
    folder = tempfile.mkdtemp(prefix=prefix)
    TEMP_DIRS.append(folder)
    return folder


def _submit(name):
    args, options, extra = RUNS[name]
    probe = extra.get("probe", True)
    kwargs = {k: v for k, v in extra.items() if k != "probe"}
    _futures[name] = _pool.submit(run_script, args, options, probe, **kwargs)


def _start_all():
    for name in ALONE:
        _submit(name)
    if ALONE:
        _futures[ALONE[0]].result()
    for name in FIRST + [n for n in RUNS if n not in FIRST and n not in ALONE]:
        if name in RUNS and name not in _futures:
            _submit(name)


def result(name):
    if not _futures:
        _start_all()
    return _futures[name].result()


def phase_medians(steps):
    """Median data, h2d, forward, backward, optimizer ms of step rows."""
    return [statistics.median(row[i] for row in steps) for i in range(1, 6)]


LOSS_EVERY_MS = 10.0  # the probe's steps.LOSS_EVERY_S


def check_loss_reads(test, rows, low, high):
    """Each step row's loss (row[6]) against the probe's rule: a step reads its loss when the
    time since the end of the last step that read one, plus the step before it (its wall
    time, row[11]), reaches 10 ms; a step that does not has null. Rows before the first
    read are checked only for their length (what came before them is unknown: a read is due
    within 10 ms and two steps); within 0.05 ms of the threshold either is right (the times
    are rounded). The losses read lie in (low, high). (Every step here has a loss to read:
    a null is a step that did not read it.) Returns how many were read."""
    longest = max(row[11] for row in rows)
    since = None  # ms from the end of the last step that read its loss to the row before
    before_first = 0.0  # ms of the rows before the first read
    for previous, row in zip(rows, rows[1:]):
        test.assertEqual(row[0], previous[0] + 1, (previous, row))
        if since is None:
            if previous[6] is None:
                before_first += previous[11]
                test.assertLess(before_first, LOSS_EVERY_MS + 2 * longest + 0.1, rows)
                continue
            since = 0.0
        guess = since + previous[11]
        read = row[6] is not None
        if abs(guess - LOSS_EVERY_MS) > 0.05:
            test.assertEqual(read, guess >= LOSS_EVERY_MS, (previous, row, since))
        since = 0.0 if read else since + row[11]
    read = [row[6] for row in rows if row[6] is not None]
    for loss in read:
        test.assertTrue(low < loss < high, (loss, rows))
    return len(read)


@atexit.register
def _clean_up():
    for future in _futures.values():
        try:
            shutil.rmtree(future.result().out_dir, ignore_errors=True)
        except Exception:
            pass
    for folder in TEMP_DIRS:
        shutil.rmtree(folder, ignore_errors=True)
    _pool.shutdown()
