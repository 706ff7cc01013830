"""Do the two ways into the script lab agree? `kinetoscope profile --lab` (the user's script
run once per arm under the probe) against `kinetoscope.lab(...)` (the same model, Dataset
and DataLoader in one process), on tests/probe/train_images.py's CNN and images, in
alternating pairs (which goes first alternates). Each side is a fresh process per lab.
Prints each arm's samples/s per run, the cross-way ratio per pair, and the run-to-run
spread of each way (max/min of its own runs) to judge the ratio against. Every child runs
with OMP_NUM_THREADS=1 (unless set): on a shared 2-core machine OpenMP's spinning threads
make a run 10x slower whenever another process takes a core. Not a unittest
(several minutes: each compile arm compiles for ~30 s on a 2-core CPU); by hand:

    <venv python> bench/lab_agreement.py [--pairs 3] [--steps 20] [--warmup 5]
        [--arms fp32,bf16,bf16+compile] [--binary build/bin/kinetoscope]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tests", "probe", "train_images.py")

# kinetoscope.lab on train_images.py's own objects (its defaults: 128 px images cropped to
# 96, batch 32, num_workers 0, Adam 1e-3), in a child of its own.
API_DRIVER = r'''
import json, sys
sys.path.insert(0, sys.argv[1])
import torch
import kinetoscope
import train_images
data, out, steps, warmup, arms = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
loader = torch.utils.data.DataLoader(train_images.ImageFolder(data, 96), batch_size=32,
                                     shuffle=True, drop_last=True, num_workers=0)
result = kinetoscope.lab(lambda: train_images.SmallCNN(96), loader, steps=steps, warmup=warmup,
                         arms=arms, out=out, device="cpu")
print(json.dumps({arm.name: arm.samples_per_second for arm in result.arms if arm.ran}))
'''


def child_env():
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def session_arms(folder):
    with open(os.path.join(folder, "session.kinetoscope.json")) as f:
        session = json.load(f)
    return {arm["name"]: arm["samples_per_second"] for arm in session.get("lab", []) if arm.get("ran")}


def run_profile(binary, python, data, out, steps, warmup, arms):
    command = [binary, "profile", "--out", out, "--arms", arms, "--steps", str(steps), "--skip",
               str(warmup), "--active", "0", "--", python, SCRIPT, "--data", data, "--epochs",
               "1000", "--log-every", "0"]
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env())
    if done.returncode != 0:
        raise SystemExit("profile --lab failed:\n" + done.stderr.decode()[-2000:])
    return session_arms(out)


def run_api(python, data, out, steps, warmup, arms):
    env = dict(child_env(), PYTHONPATH=os.path.join(ROOT, "python"))
    done = subprocess.run([python, "-c", API_DRIVER, os.path.dirname(SCRIPT), data, out,
                           str(steps), str(warmup), arms],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    if done.returncode != 0:
        raise SystemExit("kinetoscope.lab failed:\n" + done.stderr.decode()[-2000:])
    return json.loads(done.stdout.decode().strip().splitlines()[-1])


def spread(values):
    return max(values) / min(values) if values and min(values) > 0 else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--arms", default="fp32,bf16,bf16+compile")
    parser.add_argument("--binary", default=os.path.join(ROOT, "build", "bin", "kinetoscope"))
    args = parser.parse_args()
    python = sys.executable
    sys.path.insert(0, os.path.dirname(SCRIPT))
    import train_images  # noqa: E402  (the images, written once for every run)

    work = tempfile.mkdtemp(prefix="kinetoscope-agreement-")
    data = os.path.join(work, "images")
    os.mkdir(data)
    train_images.write_images(data, 512, 128)
    names = args.arms.split(",")
    runs = {"profile": [], "api": []}
    ratios = {name: [] for name in names}
    for pair in range(args.pairs):
        order = ("profile", "api") if pair % 2 == 0 else ("api", "profile")
        got = {}
        for way in order:
            out = os.path.join(work, "%s-%d" % (way, pair))
            if way == "profile":
                got[way] = run_profile(args.binary, python, data, out, args.steps, args.warmup,
                                       args.arms)
            else:
                got[way] = run_api(python, data, out, args.steps, args.warmup, args.arms)
            runs[way].append(got[way])
        line = []
        for name in names:
            a, b = got["profile"].get(name), got["api"].get(name)
            if a and b:
                ratios[name].append(a / b)
                line.append("%s %.1f vs %.1f (%.3f)" % (name, a, b, a / b))
            else:
                line.append("%s: not run on one side" % name)
        print("pair %d (%s first): samples/s profile --lab vs kinetoscope.lab: %s"
              % (pair, order[0], "; ".join(line)), flush=True)
    for name in names:
        own = {way: spread([r[name] for r in runs[way] if name in r]) for way in runs}
        if ratios[name]:
            print("%s: median ratio profile/api %.3f (range %.3f-%.3f); run-to-run spread "
                  "(max/min) profile --lab %.3f, kinetoscope.lab %.3f"
                  % (name, statistics.median(ratios[name]), min(ratios[name]), max(ratios[name]),
                     own["profile"], own["api"]))


if __name__ == "__main__":
    main()
