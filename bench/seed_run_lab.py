"""The seed's Python run_lab loop (shared/seeds/), fp32 arm, on a TorchScript model,
for comparing samples/s with the same model trained by Kinetoscope's engine:

    python bench/seed_run_lab.py MODEL.pt --input-shape 3x32x32 --batch-size 64 \
        --steps 50 --warmup 5 --workers 4 --pin-memory --device cuda
    kinetoscope run --model MODEL.pt --input-shape 3x32x32 --batch-size 64 \
        --steps 50 --warmup 5 --workers 4 --pin-memory --non-blocking --device cuda --out DIR

Both read synthetic samples (random tensors of the input shape, one generator seeded per
sample) through a loader with the same knobs — here torch.utils.data.DataLoader with
worker processes, as in the seed; in the engine its loader threads — use Adam (lr 1e-4)
after clipping the gradient norm to 1.0, set gradients to None after the step, copy
batches with non_blocking=True, and time the measured steps with a synchronised wall
clock. By default the loop also does what the engine does on top of the seed: Adam's
fused kernel and the loss read back every step (the engine checks each loss for
NaN/inf). --as-seed runs the seed's loop to the letter: torch.optim.Adam's default
kernels, no read-back.

--arm bf16 runs forward and loss under torch.autocast(bfloat16), the engine's bf16 arm;
--arm compile also wraps the model in torch.compile(mode="reduce-overhead") (inductor's
kernels replayed as CUDA graphs), the Python counterpart of the engine's whole-step CUDA
graph arm. torch.compile needs a Python module: with --eager WIDTHxBLOCKS the loop trains
make_scripted_model.py's ResNet-style cnn, built as that script builds it (seed 0, the
same initial weights as its TorchScript file), instead of loading MODEL.

--script TRAIN.py trains a user script's own model on its own data instead (MODEL is then
not given; the script's arguments follow `--`): the script's parse_args, make_dataset,
make_loader, make_model and make_criterion (tests/probe/train_images.py and
train_transformer.py have them) give the model, the DataLoader as the script builds it,
and the loss; the loop is the seed's to the letter (as --as-seed), epoch after epoch
until warmup + steps, and --compile-mode default compiles as `kinetoscope profile --lab`
does. What `kinetoscope profile --lab` measures on the same script is compared with it
(scripts/gpu-probe-check.sh).

    python bench/seed_run_lab.py --script tests/probe/train_transformer.py --arm bf16 \
        --compile-mode default --steps 20 --warmup 8 -- --device cuda
"""
import argparse
import contextlib
import importlib.util
import itertools
import pathlib
import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset


class SyntheticSamples(Dataset):
    """Sample i: a standard-normal tensor of `shape` and a class label, drawn from a
    generator seeded by i, so every epoch and worker sees the same data."""

    def __init__(self, count, shape, classes):
        self.count, self.shape, self.classes = count, shape, classes

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        generator = torch.Generator().manual_seed(index)
        x = torch.randn(self.shape, generator=generator)
        y = torch.randint(0, self.classes, (), generator=generator)
        return x, y


def load_script(path, argv):
    """The training script at `path` as a module (its folder first on sys.path, for its
    own imports), and its arguments parsed by its own parse_args."""
    path = pathlib.Path(path).resolve()
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    script = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = script  # DataLoader workers unpickle its classes by name
    spec.loader.exec_module(script)
    return script, script.parse_args(argv)


def batches(loader):
    """The loader's batches, epoch after epoch."""
    return itertools.chain.from_iterable(itertools.repeat(loader))


def main():
    argv, script_argv = sys.argv[1:], []
    if "--" in argv:
        cut = argv.index("--")
        argv, script_argv = argv[:cut], argv[cut + 1:]
    parser = argparse.ArgumentParser()
    parser.add_argument("model", nargs="?")
    parser.add_argument("--input-shape", default="256")
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--prefetch", type=int, default=4)
    parser.add_argument("--pin-memory", action="store_true")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--as-seed", action="store_true",
                        help="the seed's loop exactly: default Adam, no loss read-back")
    parser.add_argument("--arm", choices=["fp32", "bf16", "compile"], default="fp32")
    parser.add_argument("--eager", metavar="WIDTHxBLOCKS",
                        help="train make_scripted_model.py's cnn as a Python module")
    parser.add_argument("--script", metavar="TRAIN.py",
                        help="train this script's own model on its own data (its arguments after --)")
    parser.add_argument("--compile-mode", default="reduce-overhead",
                        help="torch.compile's mode for --arm compile ('default': none given)")
    args = parser.parse_args(argv)
    if args.script:
        return run_script_lab(args, script_argv)
    if args.model is None:
        parser.error("MODEL (a TorchScript file) or --script TRAIN.py is needed")
    if args.arm == "compile" and not args.eager:
        parser.error("--arm compile needs --eager WIDTHxBLOCKS (torch.compile needs a Python module)")
    shape = [int(d) for d in args.input_shape.split("x")]
    device = torch.device(args.device)
    cuda = device.type == "cuda"
    total_steps = args.warmup + args.steps

    torch.manual_seed(0)
    dataset = SyntheticSamples(total_steps * args.batch_size, shape, args.classes)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, drop_last=True,
                        num_workers=args.workers, pin_memory=args.pin_memory and cuda,
                        prefetch_factor=args.prefetch if args.workers > 0 else None,
                        persistent_workers=args.workers > 0)
    if args.eager:
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
        from make_scripted_model import ResNetish
        width, blocks = (int(v) for v in args.eager.split("x"))
        torch.manual_seed(0)
        model = ResNetish(width, blocks, args.classes)
    else:
        model = torch.jit.load(args.model)
    model = model.to(device).train()
    forward = compiled(model, args.compile_mode) if args.arm == "compile" else model
    autocast = (torch.autocast(device.type, dtype=torch.bfloat16) if args.arm != "fp32"
                else contextlib.nullcontext())
    if args.as_seed:
        opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=1e-4, fused=True)
    loss_fn = torch.nn.CrossEntropyLoss()
    rate = timed_loop(model, forward, loader, loss_fn, opt, autocast, device, args.warmup, args.steps,
                      read_loss=not args.as_seed)
    variant = "as seed" if args.as_seed else "fused Adam, loss read back"
    source = "eager" if args.eager else "TorchScript"
    print(f"seed run_lab {args.arm} ({source}, {variant}): {rate:.1f} samples/s")


def timed_loop(model, forward, loader, loss_fn, opt, autocast, device, warmup, steps, read_loss):
    """The seed's run_lab loop over the loader's batches (epoch after epoch): samples/s of
    the `steps` after `warmup`, on a wall clock synchronised at both ends. `forward` is the
    model or its compiled wrapper; `read_loss` reads each loss back (as the engine does)."""
    cuda = device.type == "cuda"
    t0, n = None, 0
    for step, (xb, yb) in enumerate(batches(loader)):
        if step >= warmup + steps:
            break
        xb = xb.to(device, non_blocking=True)
        yb = yb.to(device, non_blocking=True)
        with autocast:
            loss = loss_fn(forward(xb), yb)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        if read_loss:
            loss.item()  # as Kinetoscope, which checks every loss for NaN/inf
        if step == warmup - 1:
            if cuda:
                torch.cuda.synchronize()
            t0 = time.perf_counter()
            n = 0
        elif step >= warmup:
            n += xb.size(0)
    if cuda:
        torch.cuda.synchronize()
    return n / (time.perf_counter() - t0)


def compiled(model, mode):
    return torch.compile(model) if mode == "default" else torch.compile(model, mode=mode)


def run_script_lab(args, script_argv):
    """The seed's run_lab, to the letter, on the script's model, loader and loss."""
    script, script_args = load_script(args.script, script_argv)
    device = torch.device(script_args.device)
    cuda = device.type == "cuda"
    torch.manual_seed(0)  # as the lab seeds the script (its --seed, 0 by default)
    loader = script.make_loader(script.make_dataset(script_args), script_args)
    model = script.make_model(script_args).to(device).train()
    if args.arm == "compile":
        model = compiled(model, args.compile_mode)
    autocast = (torch.autocast(device.type, dtype=torch.bfloat16) if args.arm != "fp32"
                else contextlib.nullcontext())
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    loss_fn = script.make_criterion(script_args)
    if cuda:
        torch.cuda.reset_peak_memory_stats(device)
    rate = timed_loop(model, model, loader, loss_fn, opt, autocast, device, args.warmup, args.steps,
                      read_loss=False)
    peak_gb = torch.cuda.max_memory_allocated(device) / 1e9 if cuda else 0.0
    name = pathlib.Path(args.script).name
    print(f"seed run_lab {args.arm} (script {name}, as seed): {rate:.1f} samples/s, "
          f"peak {peak_gb:.2f} GB")


if __name__ == "__main__":
    main()
