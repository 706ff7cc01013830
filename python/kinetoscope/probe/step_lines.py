"""The step loop's messages as the launcher reads them (one JSON line each), formatted on
the channel's writer thread from the figures the training thread posted.
"""
import math

from .memory import UNKNOWN


def step_line(step, data_ms, h2d_ms, forward_ms, backward_ms, optimizer_ms, loss, memory,
              wall_ms):
    """Times in ms written as whole tenths of a microsecond with an exponent ("12345e-4" is
    1.2345 ms, a JSON number): an integer formats several times faster than "%.4f", on the
    writer thread whose GIL the training thread waits for."""
    if loss is None or not math.isfinite(loss):
        loss_text = "null"  # JSON has no NaN: the launcher reads null as NaN
    else:
        loss_text = repr(float(loss))
    return ('{"type":"step","step":[%d,%de-4,%de-4,%de-4,%de-4,%de-4,%s,%d,%d,%d,%d,%de-4]}'
            % (step, data_ms * 1e4, h2d_ms * 1e4, forward_ms * 1e4, backward_ms * 1e4,
               optimizer_ms * 1e4, loss_text, memory[0], memory[1], memory[2], memory[3],
               wall_ms * 1e4))


def host_step_line(step, data_s, h2d_s, forward_s, backward_s, optimizer_s, loss, wall_s):
    """step_line from the host clock's seconds (converted here, on the writer thread)."""
    return step_line(step, data_s * 1e3, h2d_s * 1e3, forward_s * 1e3, backward_s * 1e3,
                      optimizer_s * 1e3, loss, UNKNOWN, wall_s * 1e3)


def progress_line(step, skip, measured_from, total):
    if step < skip:
        stage = "warm-up"
    elif step < measured_from:
        stage = "profiler window"
    else:
        stage = "measured"
    fraction = min(1.0, float(step) / total) if total else 0.0
    return ('{"type":"progress","stage":"%s","fraction":%.6g,"step":%d,"steps":%d}'
            % (stage, fraction, step, total))
