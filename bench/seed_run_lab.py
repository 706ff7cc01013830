"""The seed's Python run_lab loop (shared/seeds/), fp32 arm, on a TorchScript model,
for comparing samples/s with the same model trained by Kinetoscope's engine:

    python bench/seed_run_lab.py MODEL.pt --input-shape 3x32x32 --batch-size 64 \
        --steps 50 --warmup 5 --device cuda
    kinetoscope run --model MODEL.pt --input-shape 3x32x32 --batch-size 64 \
        --steps 50 --warmup 5 --device cuda --out DIR

Both draw a fresh random batch each step on the CPU (synthetic data, no loader workers),
use Adam (lr 1e-4) after clipping the gradient norm to 1.0 and set gradients to None
after the step, and time the measured steps with a synchronised wall clock. By default
the loop does what the engine does on top of the seed: Adam's fused kernel and the loss
read back every step (the engine checks each loss for NaN/inf). --as-seed runs the
seed's loop to the letter instead: torch.optim.Adam's default kernels, no read-back.
"""
import argparse
import time

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--input-shape", default="256")
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--as-seed", action="store_true",
                        help="the seed's loop exactly: default Adam, no loss read-back")
    args = parser.parse_args()
    shape = [int(d) for d in args.input_shape.split("x")]
    device = torch.device(args.device)
    cuda = device.type == "cuda"

    torch.manual_seed(0)
    model = torch.jit.load(args.model).to(device).train()
    if args.as_seed:
        opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=1e-4, fused=True)
    loss_fn = torch.nn.CrossEntropyLoss()
    generator = torch.Generator().manual_seed(0)
    t0, n = None, 0
    for step in range(args.warmup + args.steps):
        xb = torch.randn([args.batch_size] + shape, generator=generator)
        yb = torch.randint(0, args.classes, (args.batch_size,), generator=generator)
        xb = xb.to(device, non_blocking=True)
        yb = yb.to(device, non_blocking=True)
        loss = loss_fn(model(xb), yb)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        if not args.as_seed:
            loss.item()  # as Kinetoscope, which checks every loss for NaN/inf
        if step == args.warmup - 1:
            if cuda:
                torch.cuda.synchronize()
            t0 = time.perf_counter()
            n = 0
        elif step >= args.warmup:
            n += xb.size(0)
    if cuda:
        torch.cuda.synchronize()
    elapsed = time.perf_counter() - t0
    variant = "as seed" if args.as_seed else "fused Adam, loss read back"
    print(f"seed run_lab fp32 ({variant}): {n / elapsed:.1f} samples/s")


if __name__ == "__main__":
    main()
