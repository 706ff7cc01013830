"""A rank of a distributed job (torchrun, srun): who it is, and its part of the job folder.

Job mode: the launcher sets KINETOSCOPE_PROBE_JOB (an absolute folder, on a filesystem
every rank sees) instead of KINETOSCOPE_PROBE_FD, and every process with a rank
(python/boot/sitecustomize.py decides which) writes its own stream:

    JOB/rank-K/probe.jsonl   the protocol's lines, as on the socket (filechannel.py)
    JOB/rank-K/trace.json    the rank's profiler window (and memory_snapshot.pickle)
    JOB/cancel               written by the launcher: every rank stops (below)
    JOB/cancel-step          written by the first rank that hears the cancel

K is the rank, unpadded. probe.jsonl is created with O_EXCL: a rank that finds it there
(a restarted rank, a second run into the same folder) disables its probe and never
overwrites it.

Stopping together: in DDP the ranks go step by step together (a backward waits for every
rank's gradients), so one rank stopping alone at its next step boundary would leave the
others waiting for it in their next backward. The first rank whose poller sees
JOB/cancel creates JOB/cancel-step (O_EXCL) holding `{"step":S,"rank":K}`: S is its step
count plus about CANCEL_MARGIN_S of its steps (at least 2); every rank reads the same S
and stops at the boundary where its count of steps reaches S (at once if it is past S
already).
"""
import json
import math
import os
import socket
import time

CANCEL_MARGIN_S = 1.0  # seconds of steps between the first rank hearing a cancel and the stop
MAX_MARGIN_STEPS = 100000
STEP_READ_S = 2.0  # seconds a rank waits for JOB/cancel-step's content
_STEP_RETRY_S = 0.01


class Rank(object):
    """This process's place in the job, from the environment: `rank` (int), `source` (the
    variable it came from), and as strings or None: `world_size`, `local_rank`, `host`."""

    def __init__(self, environ):
        for name in ("RANK", "SLURM_PROCID"):
            text = (environ.get(name) or "").strip()
            if text:
                break
        else:
            raise ValueError("neither RANK nor SLURM_PROCID is set")
        if not text.isdigit():
            raise ValueError("%s is not a rank: %r" % (name, text))
        self.rank = int(text)
        self.source = name
        self.world_size = _whole(environ, "WORLD_SIZE", "SLURM_NTASKS")
        self.local_rank = _whole(environ, "LOCAL_RANK", "SLURM_LOCALID")
        try:
            self.host = socket.gethostname()
        except Exception:
            self.host = None

    def config(self):
        """The `started` config keys (strings); one that is not known is absent."""
        config = {"rank": str(self.rank), "rank_source": self.source}
        for key in ("world_size", "local_rank", "host"):
            value = getattr(self, key)
            if value is not None:
                config[key] = value
        return config


def _whole(environ, *names):
    """The first of `names` set to a whole number, as a string; None if none is."""
    for name in names:
        text = (environ.get(name) or "").strip()
        if text.isdigit():
            return str(int(text))
    return None


class Job(object):
    """The job folder, for one rank."""

    def __init__(self, folder, rank):
        if not os.path.isabs(folder):
            raise ValueError("KINETOSCOPE_PROBE_JOB is not an absolute path: %r" % folder)
        self.folder = folder
        self.rank = rank
        self.rank_dir = os.path.join(folder, "rank-%d" % rank)
        self.stream_path = os.path.join(self.rank_dir, "probe.jsonl")
        self.cancel_path = os.path.join(folder, "cancel")
        self.cancel_step_path = os.path.join(folder, "cancel-step")

    def open_stream(self):
        """The stream file's descriptor (append only, not inherited), created here and
        now. Raises FileExistsError when this rank's stream is already there."""
        os.makedirs(self.rank_dir, exist_ok=True)
        try:
            return os.open(self.stream_path, os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_WRONLY
                           | getattr(os, "O_CLOEXEC", 0), 0o644)
        except FileExistsError:
            raise FileExistsError("rank-%d already holds a run (%s is never overwritten)"
                                  % (self.rank, self.stream_path))

    def stop_step(self, propose):
        """The step count at which every rank stops after a cancel: the one in
        JOB/cancel-step, created with `propose()` if no rank did yet. 0 (stop at the next
        boundary) when the file cannot be made or read within STEP_READ_S."""
        try:
            fd = os.open(self.cancel_step_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return self._read_stop_step()
        except OSError:
            return 0
        try:
            step = int(propose())
            os.write(fd, ('{"step":%d,"rank":%d}\n' % (step, self.rank)).encode("ascii"))
            return step
        except Exception:
            return 0
        finally:
            os.close(fd)

    def _read_stop_step(self):
        deadline = time.monotonic() + STEP_READ_S
        while True:
            try:
                with open(self.cancel_step_path, "rb") as f:
                    step = json.loads(f.read().decode("ascii"))["step"]
                if isinstance(step, int) and not isinstance(step, bool) and step >= 0:
                    return step
                return 0
            except (OSError, ValueError, KeyError, TypeError):
                pass  # not written yet (the proposer is between its open and its write)
            if time.monotonic() >= deadline:
                return 0
            time.sleep(_STEP_RETRY_S)


def stop_proposal(step, wall_ms):
    """The stop step a rank proposes at step count `step`, its last step having taken
    `wall_ms` (0: none ended yet): about CANCEL_MARGIN_S of steps later, at least 2."""
    margin = 2
    if wall_ms > 0:
        margin += min(MAX_MARGIN_STEPS, int(math.ceil(CANCEL_MARGIN_S * 1e3 / wall_ms)))
    return step + margin
