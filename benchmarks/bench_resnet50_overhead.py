"""Harness overhead, ResNet-50 training: rocmate's resnet50-train images/s against a minimal
hand-written PyTorch loop with the same settings, alternating in one run.

    python benchmarks/bench_resnet50_overhead.py --python python3 --out OUT_DIR

The hand loop is what a user would write: synthetic data on the device, SGD with momentum,
autocast (+ GradScaler for fp16), cudnn.benchmark on; warm-up, then N steps timed between two
synchronisations. rocmate runs in its worker subprocess, steps timed one by one.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from pathlib import Path

import torch
import torch.nn.functional as F
import torchvision
from bench_common import dump, headline, run_rocmate

from core.bench.worker.options import BenchOptions


def hand_loop(device: str, precision: str, channels_last: bool, bs: int, steps: int,
              warmup: int, tiny: bool) -> float:
    torch.backends.cudnn.benchmark = True
    res = 32 if tiny else 224
    model = torchvision.models.resnet50().to(device)
    x = torch.randn(bs, 3, res, res, device=device)
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (bs,), device=device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    scaler = torch.amp.GradScaler(device.split(":")[0], enabled=precision == "amp-fp16")
    dtype = torch.bfloat16 if precision == "amp-bf16" else torch.float16
    dev_type = device.split(":")[0]

    def step() -> None:
        opt.zero_grad(set_to_none=True)
        with torch.autocast(dev_type, dtype=dtype, enabled=precision != "fp32"):
            loss = F.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()

    def sync() -> None:
        if dev_type == "cuda":
            torch.cuda.synchronize()

    for _ in range(warmup):
        step()
    sync()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    sync()
    return bs * steps / (time.perf_counter() - t0)


def release(device: str) -> None:
    """Give the GPU memory of a finished loop back before the worker starts."""
    gc.collect()
    if device.startswith("cuda"):
        torch.cuda.empty_cache()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default="python3")
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--tiny", action="store_true")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--configs", default="amp-fp16:cl:256,fp32:nchw:64",
                    help="precision:cl|nchw:batch, comma-separated")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for cfg in args.configs.split(","):
        prec, fmt, bs_s = cfg.split(":")
        cl, bs = fmt == "cl", int(bs_s)
        hand: list[float] = []
        ours: list[float] = []
        agg: list[float] = []
        for r in range(args.rounds):
            hand.append(hand_loop(args.device, prec, cl, bs, args.steps, args.warmup, args.tiny))
            release(args.device)
            opts = BenchOptions(suite="resnet50-train", device=args.device,
                                 size="tiny" if args.tiny else "default", precision=prec,
                                 channels_last=cl, batch_size=bs, steps=args.steps)
            _, report = run_rocmate(opts, args.python, args.out,
                                    f"overhead-resnet50-{prec}-{fmt}-bs{bs}-r{r}")
            value, _unit = headline(report)
            res = report.runs[0].result
            if value is None or res is None:
                return 1
            ours.append(value)
            agg.append(res.measure.items / res.measure.seconds)
            print(f"{cfg} round {r}: hand loop {hand[-1]:.1f} img/s, rocmate median "
                  f"{ours[-1]:.1f} img/s (aggregate {agg[-1]:.1f})", flush=True)
        h, o, a = statistics.mean(hand), statistics.mean(ours), statistics.mean(agg)
        row = {"config": cfg, "hand_img_s": h, "rocmate_img_s": o, "rocmate_aggregate_img_s": a,
               "ratio": o / h, "ratio_aggregate": a / h, "within_3pct": abs(o / h - 1) <= 0.03,
               "hand_rounds": hand, "rocmate_rounds": ours}
        rows.append(row)
        print(f"RESULT {cfg}: hand {h:.1f}, rocmate {o:.1f} ({o / h - 1:+.2%}), aggregate "
              f"{a:.1f} ({a / h - 1:+.2%}) -> {'OK' if row['within_3pct'] else 'OVER 3%'}",
              flush=True)
        dump(rows, args.out / "overhead-resnet50.json" if args.out else None)
    return 0 if all(r["within_3pct"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
