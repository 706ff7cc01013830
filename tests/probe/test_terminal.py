"""Ctrl-C at a terminal on `kinetoscope profile -- python train_mlp.py` (issue 51), and
signals from outside (a process group's, the launcher's alone, one ignored at launch;
one to a lab's launcher).

The launcher runs in a pseudo-terminal of its own, as a shell would run it: the session
leader with the terminal as its controlling one. ^C written to the terminal makes the
kernel's line discipline send SIGINT to the whole foreground group (the launcher and the
script), which no test that signals one process can stand for: the launcher must leave
the script's KeyboardInterrupt to the script, report how it ended, keep what was measured
and end as the script ended, by SIGINT (a shell loop around it stops there, as it would
around the script alone).

    <venv python> tests/probe/test_terminal.py   (KINETOSCOPE_CLI: the kinetoscope binary)
"""
import json
import os
import pty
import select
import signal
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CLI = os.environ.get("KINETOSCOPE_CLI", "")
PYTHON = sys.executable
TIMEOUT_S = 150


def run_in_terminal(argv, interrupt_after_lines, marker=b"loss"):
    """Runs argv as a session leader on a new pseudo-terminal; writes ^C to the terminal
    once `marker` was printed `interrupt_after_lines` times. (exit code, everything the
    terminal showed)."""
    pid, terminal = pty.fork()
    if pid == 0:  # the child: its own session, the terminal its controlling one
        os.environ["OMP_NUM_THREADS"] = "1"
        try:
            os.execv(argv[0], argv)
        finally:
            os._exit(127)
    shown = b""
    interrupted = False
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        ready, _, _ = select.select([terminal], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(terminal, 65536)
            except OSError:  # EIO: every process on the terminal has gone
                break
            if not chunk:
                break
            shown += chunk
        if not interrupted and shown.count(marker) >= interrupt_after_lines:
            os.write(terminal, b"\x03")  # the terminal's interrupt character
            interrupted = True
    else:
        os.kill(pid, 9)
    _, status = os.waitpid(pid, 0)
    os.close(terminal)
    return os.waitstatus_to_exitcode(status), shown.decode("utf-8", "replace"), interrupted


@unittest.skipUnless(CLI and os.access(CLI, os.X_OK), "KINETOSCOPE_CLI names no kinetoscope binary")
class CtrlCAtTheTerminal(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="kinetoscope-terminal-")
        cls.out = os.path.join(cls.folder, "run")
        # 3 warm-up and 2 profiled steps, then measured ones; a line every 20 steps: ^C after
        # step 40, well inside the measured steps of a run that would go on for long.
        cls.code, cls.shown, cls.interrupted = run_in_terminal(
            [CLI, "profile", "--out", cls.out, "--skip", "3", "--active", "2", "--",
             PYTHON, os.path.join(HERE, "train_mlp.py"), "--steps-total", "1000000",
             "--log-every", "20"], interrupt_after_lines=3)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.folder, ignore_errors=True)

    def explain(self):
        return "exit %d, the terminal showed:\n%s" % (self.code, self.shown[-4000:])

    def test_ends_by_sigint_as_the_script_did(self):
        self.assertTrue(self.interrupted, self.explain())
        self.assertEqual(self.code, -signal.SIGINT, self.explain())  # (a shell shows 130)

    def test_the_script_heard_its_own_ctrl_c(self):
        # The script's KeyboardInterrupt traceback reached the terminal unchanged.
        self.assertIn("KeyboardInterrupt", self.shown.split("kinetoscope profile:")[0], self.explain())

    def test_says_interrupted_not_failed(self):
        line = [l for l in self.shown.splitlines() if l.startswith("kinetoscope profile: the script")]
        self.assertEqual(len(line), 1, self.explain())
        self.assertIn("the script was interrupted at step", line[0], self.explain())
        self.assertIn("(measured): KeyboardInterrupt", line[0], self.explain())
        self.assertNotIn("failed", line[0], self.explain())

    def test_what_was_measured_is_kept_and_opens(self):
        session_path = os.path.join(self.out, "session.kinetoscope.json")
        with open(session_path) as f:
            session = json.load(f)
        steps = session.get("steps") or []
        self.assertGreaterEqual(len(steps), 30, self.explain())  # ^C came after step 40
        self.assertIn("kept: %d steps in %s" % (len(steps), session_path), self.shown, self.explain())
        self.assertTrue(os.path.isfile(os.path.join(self.out, "trace.json")), self.explain())
        summary = subprocess.run([CLI, "summary", session_path], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, timeout=120)
        self.assertEqual(summary.returncode, 0, summary.stderr.decode())
        self.assertIn("interrupted", summary.stdout.decode(), summary.stdout.decode())


def start_launched(out, preexec=None):
    """`kinetoscope profile -- python graceful_stop.py` in a process group of its own (as a
    shell's job, timeout's or a scheduler's step), once the script's loop runs."""
    process = subprocess.Popen(
        [CLI, "profile", "--no-samples", "--out", out, "--skip", "3", "--active", "2", "--",
         PYTHON, os.path.join(HERE, "graceful_stop.py")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
        preexec_fn=preexec, env=dict(os.environ, OMP_NUM_THREADS="1"))
    shown = b""
    deadline = time.monotonic() + TIMEOUT_S
    while b"training" not in shown and time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        shown += line
    return process, shown


def finish(process, shown):
    rest, _ = process.communicate(timeout=TIMEOUT_S)
    return process.returncode, (shown + rest).decode("utf-8", "replace")


@unittest.skipUnless(CLI and os.access(CLI, os.X_OK), "KINETOSCOPE_CLI names no kinetoscope binary")
class SignalsFromOutside(unittest.TestCase):
    """A signal reaches the script once, whoever sends it, and one the launcher was started
    with ignored stays ignored."""

    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="kinetoscope-signals-")

    def tearDown(self):
        shutil.rmtree(self.folder, ignore_errors=True)

    def assert_handled_once(self, name, send):
        """SIGTERM sent by `send(launcher's pid)`: the script's handler ran once, and it
        ended as it chose (status 0)."""
        process, shown = start_launched(os.path.join(self.folder, name))
        send(process.pid)
        code, shown = finish(process, shown)
        self.assertIn("handler calls: 1\n", shown, shown)
        self.assertEqual(code, 0, shown)

    def test_a_signal_to_the_whole_group_reaches_the_script_once(self):
        # timeout, kill -- -PGID, a scheduler's kill of every process of a job: the script
        # has it already; the launcher passed it on again and the handler ran twice.
        self.assert_handled_once("group", lambda pid: os.killpg(pid, signal.SIGTERM))

    def test_a_signal_to_the_launcher_alone_is_passed_on(self):
        self.assert_handled_once("alone", lambda pid: os.kill(pid, signal.SIGTERM))

    def test_a_signal_ignored_at_launch_stays_ignored(self):
        # nohup: the launcher's own handler made the script's SIGHUP a default (deadly) one.
        process, shown = start_launched(os.path.join(self.folder, "nohup"),
                                        preexec=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
        self.assertIn("SIGHUP at start: ignored", shown.decode(), shown)
        os.kill(process.pid, signal.SIGTERM)
        finish(process, shown)

    def test_a_signal_the_launcher_has_no_use_for_is_passed_on(self):
        # SIGUSR1 (Slurm's --signal, Lightning's requeue): the launcher died by it (exit 138)
        # and the script ran on without it, its status lost (helper 47).
        self.assert_handled_once("usr1", lambda pid: os.kill(pid, signal.SIGUSR1))

    def test_a_signal_ignored_at_launch_reaches_a_script_that_handles_it(self):
        # `&` in a non-interactive shell starts the launcher with SIGINT and SIGQUIT ignored,
        # `trap '' TERM` SIGTERM: the script inherits the ignore, and a handler it installs
        # itself runs when the signal comes (it was lost in the launcher).
        process, shown = start_launched(
            os.path.join(self.folder, "ignored"),
            preexec=lambda: signal.signal(signal.SIGTERM, signal.SIG_IGN))
        os.kill(process.pid, signal.SIGTERM)
        code, shown = finish(process, shown)
        self.assertIn("handler calls: 1\n", shown, shown)
        self.assertEqual(code, 0, shown)

    def test_the_launcher_ends_by_the_signal_that_ended_the_script(self):
        process, shown = start_launched(os.path.join(self.folder, "killed"))
        with open("/proc/%d/task/%d/children" % (process.pid, process.pid)) as f:
            script = int(f.read().split()[0])
        os.kill(script, signal.SIGKILL)
        code, shown = finish(process, shown)
        self.assertEqual(code, -signal.SIGKILL, shown)  # as the script's caller would have seen
        self.assertIn("the script was killed by SIGKILL", shown, shown)


def alive(pid):
    """Whether pid is a process that has not ended (a zombie has ended)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@unittest.skipUnless(CLI and os.access(CLI, os.X_OK), "KINETOSCOPE_CLI names no kinetoscope binary")
class SignalsToALab(unittest.TestCase):
    """`kinetoscope profile --lab`: each run's script has a process group of its own, so a
    signal sent to the launcher alone (SIGTERM from a scheduler, SIGHUP from a closed
    terminal) reaches no script. It cancels the lab as Ctrl-C does (the launcher died by it
    and left the run's script running on, its --steps bound gone with the probe's launcher),
    and the launcher then ends by it (it exited 128 + N, and a shell loop went on)."""

    def cancel_by(self, signal_number):
        folder = tempfile.mkdtemp(prefix="kinetoscope-lab-signal-")
        self.addCleanup(shutil.rmtree, folder, True)
        out = os.path.join(folder, "lab")
        shown_path = os.path.join(folder, "shown.txt")  # a file: nothing blocks on a full pipe
        with open(shown_path, "wb") as shown_file:
            process = subprocess.Popen(
                [CLI, "profile", "--lab", "--arms", "fp32", "--no-samples", "--steps", "1000000",
                 "--skip", "3", "--out", out, "--", PYTHON, os.path.join(HERE, "train_mlp.py"),
                 "--steps-total", "1000000", "--log-every", "20"],
                stdout=shown_file, stderr=subprocess.STDOUT, start_new_session=True,
                env=dict(os.environ, OMP_NUM_THREADS="1"))
        log = os.path.join(out, "runs", "fp32", "output.log")
        script = None
        try:
            deadline = time.monotonic() + TIMEOUT_S
            while script is None and time.monotonic() < deadline and process.poll() is None:
                time.sleep(0.2)
                if os.path.exists(log):
                    with open(log) as f:
                        if f.read().count("loss") < 3:  # step 40 and on
                            continue
                    with open("/proc/%d/task/%d/children" % (process.pid, process.pid)) as f:
                        script = int(f.read().split()[0])
            if script is not None:
                os.kill(process.pid, signal_number)
                process.wait(timeout=TIMEOUT_S)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            if script is not None and alive(script):  # an orphan left by the launcher
                os.kill(script, signal.SIGKILL)
        with open(shown_path, encoding="utf-8", errors="replace") as f:
            shown = f.read()
        self.assertIsNotNone(script, shown)
        return process.returncode, shown, script, out

    def assert_cancelled(self, signal_number, name):
        code, shown, script, out = self.cancel_by(signal_number)
        # Its report out, the launcher ends by the signal, as a program that cleans up after
        # Ctrl-C does: a shell shows 128 + N, and a shell loop around it stops.
        self.assertEqual(code, -signal_number, shown)
        self.assertFalse(alive(script), "the run's script outlived its launcher\n" + shown)
        self.assertIn("kinetoscope profile: cancelled by %s in the fp32 run" % name, shown, shown)
        with open(os.path.join(out, "session.kinetoscope.json")) as f:
            session = json.load(f)
        self.assertIn("cancelled by %s" % name, session.get("interrupted", ""), shown)
        self.assertGreaterEqual(len(session.get("steps") or []), 30, shown)  # step 40 and on

    def test_sigterm_to_the_launcher_cancels_the_lab(self):
        self.assert_cancelled(signal.SIGTERM, "SIGTERM")

    def test_sighup_to_the_launcher_cancels_the_lab(self):
        self.assert_cancelled(signal.SIGHUP, "SIGHUP")


if __name__ == "__main__":
    unittest.main(verbosity=2)
