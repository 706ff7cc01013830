"""A script that forks a child mid-training (os.fork): the child trains a few steps of its
own, registers an atexit handler, and ends with sys.exit(7); the parent waits for it and
goes on. The child must end as it does without the probe: its atexit handler run, its
status 7, within seconds.

    python fork_child.py [--steps 12] [--fork-at 8]

Prints the child's lines and its status (or that it did not end within 20 s).
"""
import argparse
import atexit
import os
import sys
import time

from linear_task import LinearTask

CHILD_DEADLINE_S = 20.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--fork-at", type=int, default=8)
    args = parser.parse_args()

    task = LinearTask(features=8, batch=32, lr=0.05)

    def step():
        return task.step().item()

    for index in range(args.steps):
        loss = step()
        if index != args.fork_at:
            continue
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            for _ in range(3):
                loss = step()
            atexit.register(print, "child: atexit ran", flush=True)
            print("child: loss %.4f" % loss, flush=True)
            sys.exit(7)
        deadline = time.monotonic() + CHILD_DEADLINE_S
        while True:
            ended, status = os.waitpid(pid, os.WNOHANG)
            if ended:
                print("child status", os.waitstatus_to_exitcode(status), flush=True)
                break
            if time.monotonic() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                print("child did not end within %.0f s" % CHILD_DEADLINE_S, flush=True)
                break
            time.sleep(0.05)
    print("parent: loss %.4f" % loss)


if __name__ == "__main__":
    main()
