"""A script that waits for "every other thread" before it exits, a common idiom: it trains
in two threads of its own, then joins each thread threading.enumerate() lists. Under
`kinetoscope profile` it must see only its own threads (the probe's would never end: the
join would wait forever) and print what it prints without the probe.

    python join_threads.py

Prints the threads it saw and the count after the joins.
"""
import threading

import torch
from torch import nn


RELEASE = threading.Event()  # the trainers end once the script has listed the threads


def train(seed):
    generator = torch.Generator().manual_seed(seed)
    model = nn.Linear(16, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    inputs = torch.randn(64, 16, generator=generator)
    targets = torch.randn(64, 1, generator=generator)
    for _ in range(12):
        optimizer.zero_grad()
        nn.functional.mse_loss(model(inputs), targets).backward()
        optimizer.step()
    RELEASE.wait()


def main():
    workers = [threading.Thread(target=train, args=(seed,), name="trainer-%d" % seed)
               for seed in (1, 2)]
    for worker in workers:
        worker.start()
    seen = sorted(t.name for t in threading.enumerate() if t is not threading.current_thread())
    RELEASE.set()
    for thread in threading.enumerate():
        if thread is not threading.current_thread():
            thread.join()
    print("other threads seen: %s; after the joins: %d active"
          % (", ".join(seen),
             threading.active_count()), flush=True)


if __name__ == "__main__":
    main()
