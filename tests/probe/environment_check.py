"""A script that trains a few steps, then looks at its own environment and starts a Python
of its own, as scripts that log their environment or shell out do. Under `kinetoscope
profile` it must find its environment as it was given (no variable of the launcher's, the
probe's folder not on its PYTHONPATH) and its child must run without the probe.

    python environment_check.py [--steps 12]

Prints the variables named KINETOSCOPE_PROBE*, PYTHONPATH, and what the child saw.
"""
import argparse
import os
import subprocess
import sys

from linear_task import LinearTask

CHILD = ("import os, sys; print(sorted(k for k in os.environ if k.startswith('KINETOSCOPE_PROBE')),"
         " 'kinetoscope' in sys.modules)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=12)
    args = parser.parse_args()
    task = LinearTask(features=4, batch=16, lr=0.1)
    for _ in range(args.steps):
        task.step()
    mine = sorted(name for name in os.environ if name.startswith("KINETOSCOPE_PROBE"))
    print("variables:", mine)
    print("PYTHONPATH:", os.environ.get("PYTHONPATH"))
    child = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True)
    said = [text.strip() for text in (child.stdout, child.stderr) if text.strip()]
    print("child saw:", " ".join(said), flush=True)


if __name__ == "__main__":
    main()
