"""A training script that stops gracefully on SIGTERM or SIGUSR1, as a scheduler's
preemption asks (Slurm's --signal, Lightning's requeue: SIGUSR1): its handler saves a
checkpoint (0.3 s here) and ends the loop; it says how many times the handler ran. It prints what SIGHUP's disposition was at its start (nohup's SIG_IGN, if so).

    python graceful_stop.py          (prints "training" once its loop runs)
"""
import signal
import sys
import time

from linear_task import LinearTask

calls = []


def save_and_stop(signum, frame):
    calls.append(signum)
    time.sleep(0.3)  # writing the checkpoint


def main():
    ignored = signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
    print("SIGHUP at start: %s" % ("ignored" if ignored else "not ignored"), flush=True)
    signal.signal(signal.SIGTERM, save_and_stop)
    signal.signal(signal.SIGUSR1, save_and_stop)
    task = LinearTask(features=8, batch=32, lr=0.05)
    deadline = time.monotonic() + 60
    step = 0
    while not calls and time.monotonic() < deadline:
        task.step()
        step += 1
        if step == 20:
            print("training", flush=True)
        time.sleep(0.005)
    time.sleep(0.5)  # (a second delivery, if any, lands by now)
    print("handler calls: %d" % len(calls), flush=True)
    sys.exit(0 if calls else 3)


if __name__ == "__main__":
    main()
