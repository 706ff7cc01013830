#!/usr/bin/env python3
"""The probe's cost outside the profiler window (issue 51: at most 2 % of step time).

Runs the same real training script (tests/probe/train_mlp.py, CPU, no data delay: the
shortest steps, where a fixed cost per step weighs most) alone and under
`kinetoscope profile --no-trace`, in pairs whose order alternates, and compares the
median step time each run's own clock measured (the script writes its step times with
--timing-out, so both sides are timed the same way, by the script). Prints each pair and
the median of the pairs' ratios.

    bench/probe_overhead.py [--pairs 7] [--steps 400] [--hidden 256] [--kinetoscope build/bin/kinetoscope]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tests", "probe", "train_mlp.py")
SKIPPED = 20  # first steps left out of each run's median: allocation and thread warm-up


def median_step_ms(times_file):
    with open(times_file) as f:
        times = json.load(f)[SKIPPED:]
    return 1000.0 * statistics.median(times)


def run_alone(python, args, folder, index):
    times = os.path.join(folder, "alone-%d.json" % index)
    subprocess.run([python, SCRIPT, "--timing-out", times] + args, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return median_step_ms(times)


def run_probed(kinetoscope, python, args, folder, index):
    times = os.path.join(folder, "probed-%d.json" % index)
    out = os.path.join(folder, "session-%d" % index)
    subprocess.run([kinetoscope, "profile", "--no-trace", "--skip", "5", "--out", out, "--",
                    python, SCRIPT, "--timing-out", times] + args, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return median_step_ms(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--python", default=os.path.expanduser(
        "~/.local/share/kinetoscope/venv/bin/python"))
    parser.add_argument("--kinetoscope", default=os.path.join(ROOT, "build", "bin", "kinetoscope"))
    options = parser.parse_args()
    args = ["--steps-total", str(options.steps), "--hidden", str(options.hidden),
            "--log-every", "0"]
    ratios = []
    with tempfile.TemporaryDirectory() as folder:
        for pair in range(options.pairs):
            # Alternate which side runs first: a machine that warms up or slows down over
            # the run favours neither.
            if pair % 2 == 0:
                alone = run_alone(options.python, args, folder, pair)
                probed = run_probed(options.kinetoscope, options.python, args, folder, pair)
            else:
                probed = run_probed(options.kinetoscope, options.python, args, folder, pair)
                alone = run_alone(options.python, args, folder, pair)
            ratios.append(probed / alone)
            print("pair %d: alone %.3f ms/step, probed %.3f ms/step, ratio %.4f"
                  % (pair + 1, alone, probed, probed / alone), flush=True)
    overhead = 100.0 * (statistics.median(ratios) - 1.0)
    print("median ratio %.4f: the probe costs %+.2f %% of step time (%d pairs, %d steps, hidden %d)"
          % (statistics.median(ratios), overhead, options.pairs, options.steps, options.hidden))
    return 0


if __name__ == "__main__":
    sys.exit(main())
