"""A script whose SIGALRM handler raises an exception of its own (a step time-out, as some
training frameworks do) and whose loop catches it: 300 one-shot alarms at random times,
each of which must reach the script's `except Tick`. Python runs the handler between any
two bytecodes of the main thread, the probe's hooks included: under `kinetoscope profile`
no alarm may be lost in the probe's code.

    python signal_timeout.py [--alarms 300]

Prints how many alarms never reached the script.
"""
import argparse
import random
import signal

import torch
from torch import nn


class Tick(Exception):
    pass


def on_alarm(signum, frame):
    raise Tick()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--alarms", type=int, default=300)
    args = parser.parse_args()
    torch.manual_seed(0)
    random.seed(0)
    inputs, targets = torch.randn(4, 2), torch.randn(4, 1)
    model = nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.001)
    signal.signal(signal.SIGALRM, on_alarm)
    lost = 0
    for _ in range(args.alarms):
        try:
            signal.setitimer(signal.ITIMER_REAL, random.uniform(0.0001, 0.002))
            for _ in range(200):
                optimizer.zero_grad()
                nn.functional.mse_loss(model(inputs), targets).backward()
                optimizer.step()
            lost += 1  # the alarm went off, and never reached this loop
            signal.setitimer(signal.ITIMER_REAL, 0)
        except Tick:
            torch.set_grad_enabled(True)  # (a Tick inside the optimizer's no-grad step)
    print("alarms lost:", lost, flush=True)


if __name__ == "__main__":
    main()
