"""A launcher as `accelerate launch` or a team's `run.py` is one: it runs the training
command it is given in a child Python and returns that child's exit code.

    python run_in_child.py [--import-torch] SCRIPT [ARGS...]
"""
import subprocess
import sys


def main():
    args = sys.argv[1:]
    if args and args[0] == "--import-torch":  # as accelerate's launcher does
        import torch  # noqa: F401

        args = args[1:]
    sys.exit(subprocess.call([sys.executable] + args))


if __name__ == "__main__":
    main()
