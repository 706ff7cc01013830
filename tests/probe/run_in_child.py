"""A launcher as `accelerate launch` or a team's `run.py` is one: it runs the training
command it is given in a child Python (its options passed in the child's environment, as
accelerate passes them, in a folder of its own) and returns that child's exit code; or it
replaces itself with that command (os.execv).

    python run_in_child.py [--import-torch] [--env NAME=VALUE]... [--cwd DIR] [--exec]
                           SCRIPT [ARGS...]
"""
import os
import subprocess
import sys


def main():
    args = sys.argv[1:]
    environment = dict(os.environ)
    folder = None
    replace = False
    while args and args[0] in ("--import-torch", "--env", "--cwd", "--exec"):
        option = args.pop(0)
        if option == "--import-torch":  # as accelerate's launcher does
            import torch  # noqa: F401
        elif option == "--env":
            name, _, value = args.pop(0).partition("=")
            environment[name] = value
        elif option == "--cwd":
            folder = args.pop(0)
        else:
            replace = True
    command = [sys.executable] + args
    if replace:
        if folder:
            os.chdir(folder)
        os.execve(sys.executable, command, environment)
    sys.exit(subprocess.call(command, env=environment, cwd=folder))


if __name__ == "__main__":
    main()
