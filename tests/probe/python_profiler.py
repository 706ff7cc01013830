"""A script that profiles its own training loop with cProfile (Python's profiler, which
holds the interpreter's profile function, sys.setprofile) and prints what it saw.

    python python_profiler.py --steps 30
"""
import argparse
import cProfile
import pstats

from linear_task import LinearTask


def train_step(task):
    return task.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args()
    task = LinearTask(features=16, batch=32, lr=0.05)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(args.steps):
        loss = train_step(task)
    profiler.disable()
    calls = sum(counts[1] for where, counts in pstats.Stats(profiler).stats.items()
                if where[2] == "train_step")
    print("cProfile saw train_step called %d times" % calls)
    print("final loss %.6f" % loss.item())


if __name__ == "__main__":
    main()
