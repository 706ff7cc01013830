"""A script that closes every descriptor it inherited above stderr (as daemonising code and
some job wrappers do: os.closerange(3, ...)), then opens connections of its own (socket
pairs) and goes on training. Each new socket may get a number the probe held; whatever
arrives on them must be the script's own bytes only.

    python close_fds.py [--steps 20] [--close-at 6] [--pairs 6] [--signal-each-step]

With --signal-each-step it also handles a signal of its own every step (a Python handler
for SIGUSR1, as a script's timer or a library's SIGCHLD): the interpreter's signal wakeup
fd, if one is set, is written at each. Prints what it checked, or each socket that
received bytes it did not write.
"""
import argparse
import os
import signal
import socket
import time

from linear_task import LinearTask

HELLO = b"hello\n"


def drain(sock):
    """Everything waiting on `sock` now."""
    sock.setblocking(False)
    received = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return received
            received += chunk
    except BlockingIOError:
        return received


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--close-at", type=int, default=6, help="the step before which it closes")
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("--signal-each-step", action="store_true")
    args = parser.parse_args()
    handled = []
    if args.signal_each_step:
        signal.signal(signal.SIGUSR1, lambda signum, frame: handled.append(signum))

    task = LinearTask(features=8, batch=32, lr=0.05)
    pairs = []
    for step in range(args.steps):
        if step == args.close_at:
            os.closerange(3, 4096)
            pairs = [socket.socketpair() for _ in range(args.pairs)]
            for mine, _ in pairs:
                mine.sendall(HELLO)
        loss = task.step()
        if args.signal_each_step:
            os.kill(os.getpid(), signal.SIGUSR1)
        time.sleep(0.01)  # (steps long enough for the probe's writer to wake between them)
    time.sleep(0.2)
    unexpected = 0
    for mine, theirs in pairs:
        for sock, expected in ((theirs, HELLO), (mine, b"")):
            received = drain(sock)
            if received != expected:
                unexpected += 1
                print("socket %d received %d bytes it was not sent: %r"
                      % (sock.fileno(), len(received), received[:80]))
    print("checked %d sockets, %d with bytes not the script's; loss %.4f"
          % (2 * len(pairs), unexpected, loss.item()), flush=True)
    if args.signal_each_step:
        print("signals handled: %d" % len(handled), flush=True)


if __name__ == "__main__":
    main()
