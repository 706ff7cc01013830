"""The probe's overhead outside the profiler window, on train_mlp.py's model and data (no
sample delay, no workers, active=0: no window). Not a unittest (a minute or two); by hand:

    <venv python> bench/probe_overhead.py [--pairs 9] [--steps 300] [--blocks 40]

Two measurements:
1. paired runs, alternating which goes first: train_mlp.py without and with the probe,
   each run's median step time after warm-up, the median of the per-pair ratios;
2. interleaved, in one process (robust to a shared machine's drift, which on a 2-core
   box running builds is ten times the 2 % to resolve): steps go in pairs, one with the
   probe fully in (its wrappers and hooks), one with it fully out (torch's own functions
   put back, the hooks taken off), which goes first alternating; the median per-pair
   difference, and the process's CPU time a step of each kind (every thread's, the
   probe's writer included), which time spent waiting for a core does not inflate.
   --hidden widens the model: the probe's cost a step stays, the step grows; --parts puts
   only some of the probe's parts in and out (the loader's wrappers, backward's, the
   optimizer's hooks with the step's bookkeeping, the model's hook, which a CPU model fed
   by a DataLoader does not have: docs/profile.md): each one's cost.
3. --instructions: the instructions a step with the probe in and out, counted by
   callgrind (valgrind) over segments of --block-steps steps in one process: the one
   figure here that the machine's drift does not move (a few minutes); --cache adds the
   misses of a simulated cache, which is where most of the probe's time goes.
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile

# The probe's test harness and scripts live in tests/probe/ (this file in bench/).
HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "probe")
sys.path.insert(0, HERE)
import test_probe  # noqa: E402  (the harness)


def median_step_ms(args, probe, warmup):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        timing = f.name
    try:
        run = test_probe.run_script(["train_mlp.py", "--timing-out", timing, "--log-every", "0"] + args,
                                    {"skip": 5, "active": 0}, probe=probe)
        if run.returncode != 0:
            raise SystemExit("the run failed:\n" + run.explain())
        with open(timing) as f:
            times = json.load(f)
        return statistics.median(times[warmup:]) * 1e3
    finally:
        os.unlink(timing)


def paired(pairs, steps, warmup, hidden):
    ratios = []
    for pair in range(pairs):
        medians = {}
        for probe in ((False, True) if pair % 2 == 0 else (True, False)):
            medians[probe] = median_step_ms(["--steps-total", str(steps), "--hidden", str(hidden)],
                                            probe, warmup)
        ratios.append(medians[True] / medians[False])
        print("pair %d: bare %.4f ms, probe %.4f ms, ratio %.4f"
              % (pair, medians[False], medians[True], ratios[-1]), flush=True)
    print("paired runs: median ratio (probe / bare) over %d pairs: %.4f (range %.3f-%.3f)"
          % (len(ratios), statistics.median(ratios), min(ratios), max(ratios)))


# -- 2. interleaved, in a child process started with the probe's environment ----------------
INTERLEAVED = r'''
import json, os, statistics, sys, time
sys.path.insert(0, sys.argv[1])
blocks, block_steps, hidden = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
import torch
import torch.nn.modules.module as module_api
import train_mlp
import importlib
dataloader = importlib.import_module("torch.utils.data.dataloader")
optimizer_api = importlib.import_module("torch.optim.optimizer")
from kinetoscope.probe import runtime
probe = runtime.current
loop = probe.loop

args = train_mlp.parse_args(["--dataset-size", str(32 * (blocks + 2) * block_steps), "--hidden", hidden])
torch.manual_seed(0)
dataset = train_mlp.SyntheticDataset(args.dataset_size, args.features, args.classes, 0.0)
loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch_size, shuffle=True, drop_last=True)
model = train_mlp.make_model(args.features, args.hidden, args.classes)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
criterion = torch.nn.CrossEntropyLoss()

base, loader_type = dataloader._BaseDataLoaderIter, dataloader.DataLoader
ours = {"next": base.__next__, "iter": loader_type.__iter__, "backward": torch.autograd.backward}
originals = {"next": ours["next"].__wrapped__, "iter": ours["iter"].__wrapped__,
             "backward": ours["backward"].__wrapped__}
saved = {}

parts = os.environ.get("KINETOSCOPE_BENCH_PARTS", "loader,backward,optimizer,model").split(",")

def probe_in(on):
    """Puts the probe's parts in (on) or takes them out: `parts` says which (the others
    stay in on both sides of a pair)."""
    fns = ours if on else originals
    if "loader" in parts:
        base.__next__, loader_type.__iter__ = fns["next"], fns["iter"]
    if "backward" in parts:
        torch.autograd.backward = fns["backward"]
    tables = []
    if "optimizer" in parts:
        tables += [optimizer_api._global_optimizer_pre_hooks,
                   optimizer_api._global_optimizer_post_hooks]
    if "model" in parts:
        tables += [model._forward_pre_hooks, model._forward_hooks]
    for i, table in enumerate(tables):
        if on:
            table.update(saved.pop(i, {}))
        else:
            saved[i] = dict(table)
            table.clear()

if len(sys.argv) > 5 and sys.argv[5] == "segments":
    # Under callgrind (--instructions): steps in three segments, probe out, in, out, each
    # dumped apart (callgrind_control acts a few basic blocks later: a segment of many steps
    # makes that nothing), so that instructions a step in and out can be compared.
    import subprocess
    def callgrind(*words):
        subprocess.run(["callgrind_control"] + list(words) + [str(os.getpid())],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    iterator = iter(loader)
    def one_step():
        inputs, targets = next(iterator)
        optimizer.zero_grad(set_to_none=True)
        criterion(model(inputs), targets).backward()
        optimizer.step()
    for _ in range(2 * block_steps):  # warm-up and the model's discovery
        one_step()
    callgrind("-i", "on")
    for state in (False, True, False):
        probe_in(state)
        for _ in range(10):
            one_step()
        callgrind("-z")
        for _ in range(block_steps):
            one_step()
        callgrind("-d", "probe-%s" % ("in" if state else "out"))
    for _ in range(10):  # the last dump is taken while these run
        one_step()
    print(json.dumps({"steps": block_steps}))
    sys.exit(0)

# Steps go in pairs, one with the probe in and one with it out, in turn first (in, out,
# out, in, in, out, ...: a step's place in its pair costs it ~10 us on its own): the
# per-pair difference cancels the machine's drift, which on a shared 2-core box is far
# larger than the 2 % to resolve. Only the step's own body is timed (the switch is not).
diffs, times = [], {True: [], False: []}
cpu = {True: 0.0, False: 0.0}  # process CPU seconds (every thread: the writer's too)
step, state, previous = 0, True, None
warmup = 2 * block_steps  # warm-up and the model's discovery
iterator = iter(loader)
while step < (blocks + 2) * block_steps:
    cpu_start = time.process_time()
    started = time.perf_counter()
    inputs, targets = next(iterator)
    optimizer.zero_grad(set_to_none=True)
    loss = criterion(model(inputs), targets)
    loss.backward()
    optimizer.step()
    elapsed = time.perf_counter() - started
    cpu_used = time.process_time() - cpu_start
    if step >= warmup:
        times[state].append(elapsed)
        cpu[state] += cpu_used
        if previous is not None and previous[0] != state:
            diffs.append(elapsed - previous[1] if state else previous[1] - elapsed)
            previous = None
        else:
            previous = (state, elapsed)
    step += 1
    if (((step + 1) // 2) % 2 == 0) != state:  # in, out, out, in, in, out, ...
        state = not state
        probe_in(state)
count = len(times[True])
print(json.dumps({"in": statistics.median(times[True]), "out": statistics.median(times[False]),
                  "diff": statistics.median(diffs), "pairs": len(diffs),
                  "cpu_in": cpu[True] / count, "cpu_out": cpu[False] / len(times[False]),
                  "blocks": blocks, "steps_sent": loop.step}))
'''


PARTS = ("loader", "backward", "optimizer", "model")


def interleaved(blocks, block_steps, hidden, under=(), mode="interleaved", parts=PARTS):
    parent, child = socket.socketpair()
    env = dict(os.environ, OMP_NUM_THREADS="1", KINETOSCOPE_PROBE_FD=str(child.fileno()),
               KINETOSCOPE_BENCH_PARTS=",".join(parts),
               KINETOSCOPE_PROBE_OUT=tempfile.mkdtemp(prefix="kinetoscope-overhead-"),
               KINETOSCOPE_PROBE_OPTIONS=json.dumps({"skip": 5, "active": 0}),
               PYTHONPATH=test_probe.BOOT)
    env.pop("KINETOSCOPE_PROBE_OWNER", None)
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(INTERLEAVED)
        script = f.name
    try:
        process = subprocess.Popen(list(under) + [test_probe.PYTHON, script, HERE, str(blocks),
                                                  str(block_steps), str(hidden), mode],
                                   env=env, pass_fds=(child.fileno(),), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
        child.close()
        received = 0
        while True:  # the launcher's side: read everything
            chunk = parent.recv(65536)
            if not chunk:
                break
            received += chunk.count(b'"type":"step"')
        stdout, stderr = process.communicate()
    finally:
        os.unlink(script)
    if process.returncode != 0:
        raise SystemExit(stderr.decode())
    result = json.loads(stdout.decode().strip().splitlines()[-1])
    if mode != "interleaved":
        return result
    if tuple(parts) != PARTS:
        print("only %s put in and taken out:" % ", ".join(parts))
    print("alternating steps (%d pairs): wall: probe in %.4f ms, out %.4f ms (medians), "
          "median paired difference %+.1f us a step (%+.2f %%); process CPU a step: in %.4f ms, "
          "out %.4f ms (%+.1f us); %d step messages received"
          % (result["pairs"], result["in"] * 1e3, result["out"] * 1e3, result["diff"] * 1e6,
             100.0 * result["diff"] / result["out"], result["cpu_in"] * 1e3,
             result["cpu_out"] * 1e3, (result["cpu_in"] - result["cpu_out"]) * 1e6, received))


def instructions(steps, hidden, cache):
    """Instructions a step with the probe in and out, counted by callgrind: a figure this
    shared machine's drift does not move (its wall times swing by half between runs). The
    training thread's count is the probe's cost on the loop; another thread's (the writer's)
    is inflated here, as valgrind runs the loop ~50 times slower and the writer wakes on a
    wall clock. With `cache`, callgrind also simulates a 32 KiB L1 and a 2 MiB last level
    (this machine's L2 a core) and counts their misses: between the script's tensor
    operations the probe's code and data are out of the caches, and each miss costs far
    more than an instruction (on this machine most of the probe's wall time)."""
    folder = tempfile.mkdtemp(prefix="kinetoscope-callgrind-")
    out_file = os.path.join(folder, "callgrind.out")
    options = ["--cache-sim=yes", "--LL=2097152,16,64"] if cache else []
    interleaved(4, steps, hidden, mode="segments",  # 4 blocks: data for 6 x steps
                under=["valgrind", "--tool=callgrind", "--separate-threads=yes",
                       "--instr-atstart=no", "--callgrind-out-file=" + out_file] + options)
    counts = {}  # (dump, thread) -> {event: count}
    for name in os.listdir(folder):
        parts = name.split(".")  # callgrind.out.<dump>-<thread>
        if len(parts) != 3 or "-" not in parts[2]:
            continue
        dump, thread = (int(x) for x in parts[2].split("-"))
        events = []
        with open(os.path.join(folder, name)) as f:
            for line in f:
                if line.startswith("events:"):
                    events = line.split()[1:]
                elif line.startswith("summary:") or line.startswith("totals:"):
                    counts[dump, thread] = dict(zip(events, (int(x) for x in line.split()[1:])))
                    break
    shutil.rmtree(folder, ignore_errors=True)
    if not all((dump, 1) in counts for dump in (1, 2, 3)):
        raise SystemExit("callgrind's dumps are missing (is valgrind installed?)")
    figures = [("instructions", ("Ir",))]
    if cache:
        figures += [("L1 misses", ("I1mr", "D1mr", "D1mw")),
                    ("last-level misses", ("ILmr", "DLmr", "DLmw"))]
    def per_step(dump, threads, events):
        return sum(counts.get((dump, t), {}).get(e, 0) for t in threads for e in events) / float(steps)
    for label, threads in (("training thread", [1]), ("every thread", range(1, 64))):
        for figure, events in figures:
            out = (per_step(1, threads, events) + per_step(3, threads, events)) / 2
            probe = per_step(2, threads, events)
            print("%s a step (%s): probe out %.0f, in %.0f: %+.0f (%+.2f %%)"
                  % (figure, label, out, probe, probe - out, 100.0 * (probe - out) / out))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=9)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--blocks", type=int, default=40)
    parser.add_argument("--block-steps", type=int, default=100)
    parser.add_argument("--hidden", type=int, default=256,
                        help="train_mlp.py's width: 256 (its own) steps in ~1.5 ms on one core, "
                             "1024 in ~10 ms: the probe's cost a step is fixed")
    parser.add_argument("--only", choices=["paired", "interleaved"], default=None)
    parser.add_argument("--parts", default=",".join(PARTS),
                        help="interleaved: which of the probe's parts go in and out (%s): "
                             "their costs one by one" % ", ".join(PARTS))
    parser.add_argument("--instructions", action="store_true",
                        help="instead: instructions a step, probe in and out, counted by "
                             "callgrind (valgrind; --block-steps steps a segment; minutes)")
    parser.add_argument("--cache", action="store_true",
                        help="with --instructions: also the simulated caches' misses a step")
    args = parser.parse_args()
    if args.instructions:
        instructions(args.block_steps, args.hidden, args.cache)
        return
    parts = tuple(p for p in args.parts.split(",") if p)
    if not parts or any(p not in PARTS for p in parts):
        parser.error("--parts takes some of: " + ",".join(PARTS))
    if args.only != "paired":
        interleaved(args.blocks, args.block_steps, args.hidden, parts=parts)
    if args.only != "interleaved":
        paired(args.pairs, args.steps, args.warmup, args.hidden)


if __name__ == "__main__":
    main()
