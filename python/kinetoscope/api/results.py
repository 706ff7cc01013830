"""What kinetoscope.lab() hands back: each arm's figures (LabArm), the whole run
(LabResult) and the table it prints. Milliseconds and bytes throughout."""
import collections
import os

from .session import finite

COMPILE_ARM = "bf16+compile"

StepTiming = collections.namedtuple(
    "StepTiming", "step data_ms h2d_ms forward_ms backward_ms optimizer_ms loss wall_ms")


class LabArm(object):
    """One arm's figures. Milliseconds and bytes; -1 bytes where not measured (the CPU
    has no caching allocator). compile_seconds, recompiles and graph_breaks are the
    compile arm's (None for the others)."""

    def __init__(self, name):
        self.name = name
        self.ran = False
        self.skipped_reason = ""
        self.samples_per_second = 0.0
        self.mean_step_ms = 0.0
        self.median_step_ms = 0.0
        self.batch_size = 0
        self.phases = {}  # phase name -> PhaseStats
        self.steps = []  # StepTiming of the measured steps
        self.peak_allocated_bytes = -1
        self.peak_reserved_bytes = -1
        self.compile_seconds = None
        self.recompiles = None
        self.graph_breaks = None
        self.note = ""

    def to_json(self):
        """The arm as the session's "lab" entry."""
        entry = {
            "name": self.name,
            "ran": self.ran,
            "skipped_reason": self.skipped_reason,
            "samples_per_second": finite(self.samples_per_second),
            "mean_step_ms": finite(self.mean_step_ms),
            "peak_allocated_bytes": int(self.peak_allocated_bytes),
            "peak_reserved_bytes": int(self.peak_reserved_bytes),
            "note": self.note,
        }
        if self.name == COMPILE_ARM:
            entry["compile_seconds"] = finite(self.compile_seconds or 0.0)
            entry["recompiles"] = int(self.recompiles or 0)
            entry["graph_breaks"] = int(self.graph_breaks or 0)
        return entry

    def __repr__(self):
        if not self.ran:
            return "LabArm(%s: skipped: %s)" % (self.name, self.skipped_reason)
        extra = ""
        if self.compile_seconds is not None:
            extra = ", compile %.1f s" % self.compile_seconds
        return "LabArm(%s: %.1f samples/s, %.2f ms/step%s)" % (
            self.name, self.samples_per_second, self.mean_step_ms, extra)


class LabResult(object):
    """What kinetoscope.lab() measured: .arms (LabArm, in the order run), .session_path,
    .out_dir, .config, .environment, .app (the desktop app's Popen with open=True)."""

    def __init__(self, arms, session_path, config, environment):
        self.arms = list(arms)
        self.session_path = session_path
        self.out_dir = os.path.dirname(session_path) if session_path else None
        self.config = dict(config)
        self.environment = dict(environment)
        self.app = None

    def __getitem__(self, name):
        for arm in self.arms:
            if arm.name == name:
                return arm
        raise KeyError(name)

    def __iter__(self):
        return iter(self.arms)

    def table(self):
        """The arms as the lab prints them: samples/s, the median step (ms), the speed-up
        over the previous arm that ran (of samples/s), compile seconds."""
        return format_table(self.arms)

    def __repr__(self):
        return "LabResult(%s)\n%s" % (self.session_path, self.table())


def format_table(arms):
    lines = ["%-14s %11s %10s %9s %10s" % ("arm", "samples/s", "median ms", "speed-up",
                                          "compile s")]
    previous = None
    for arm in arms:
        if not arm.ran:
            lines.append("%-14s skipped: %s" % (arm.name, arm.skipped_reason))
            continue
        speedup = "-"
        if previous is not None and previous.samples_per_second > 0:
            speedup = "%.2fx" % (arm.samples_per_second / previous.samples_per_second)
        compile_s = "-" if arm.compile_seconds is None else "%.1f" % arm.compile_seconds
        lines.append("%-14s %11.1f %10.2f %9s %10s" % (
            arm.name, arm.samples_per_second, arm.median_step_ms, speedup, compile_s))
        previous = arm
    return "\n".join(lines)
