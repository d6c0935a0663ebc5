"""``gemm``: dense matrix-multiply rate (TFLOP/s) for bf16, fp16 and fp32, square products of
random data (``--size default``: 8192; tiny: 256). fp32 runs with the TF32 switch as PyTorch
leaves it (off by default for matmul; reported). A step is a burst of products long enough to
time well; the parent sets the result against the card's datasheet peak (health check).

bf16 (the headline) runs first and each dtype is measured for 2 s by default: a card at its
power limit lowers its clocks after a few seconds of full load (an H200 at 700 W drops from
~775 to ~660 TFLOP/s bf16), and the telemetry series shows when that happens. Use
``--seconds`` for a longer, sustained figure."""

from __future__ import annotations

import time
from typing import Any

import torch

from core.bench.worker.device import math_settings
from core.bench.worker.flops import matmul_flops
from core.bench.worker.harness import Harness, Options, Workload, figure

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
TARGET_STEP_S = 0.025


def burst_size(fn: Any, sync: Any, target_s: float = TARGET_STEP_S, cap: int = 200) -> int:
    """How many calls of ``fn`` make one step of about ``target_s`` seconds."""
    fn()
    sync()
    t0 = time.perf_counter()
    fn()
    sync()
    one = max(time.perf_counter() - t0, 1e-6)
    return max(1, min(cap, round(target_s / one)))


def run(h: Harness, opts: Options) -> dict[str, Any]:
    dev = h.device.torch_device
    n = 256 if opts.tiny else 8192
    torch.manual_seed(opts.seed)
    figures: dict[str, Any] = {}
    parts: dict[str, Any] = {}
    for name, dtype in DTYPES.items():
        if not h.device.is_gpu and dtype == torch.float16 and opts.tiny is False:
            continue  # CPU fp16 matmul at full size is pointlessly slow
        a = torch.randn(n, n, device=dev, dtype=dtype)
        b = torch.randn(n, n, device=dev, dtype=dtype)
        c = torch.empty(n, n, device=dev, dtype=dtype)

        def one(a: torch.Tensor = a, b: torch.Tensor = b, c: torch.Tensor = c) -> None:
            torch.matmul(a, b, out=c)

        reps = burst_size(one, h.device.sync)
        flops = matmul_flops(n, n, n) * reps

        def step(one: Any = one, reps: int = reps, flops: float = flops) -> None:
            for _ in range(reps):
                one()

        w = Workload(step=step, items=reps, unit="matmul/s", part=name, min_warmup_steps=3,
                     max_warmup_steps=10 if opts.tiny else 40, min_steps=10,
                     default_seconds=1.0 if opts.tiny else 2.0)
        part = h.run(w)
        figures[f"tflops_{name}"] = figure([flops / t / 1e12 for t in part.times], "TFLOP/s")
        parts[name] = {"n": n, "products_per_step": reps, "warmup": part.warmup,
                       "measure": part.measure}
        del a, b, c
    first = next(iter(parts.values()))
    return {
        "headline": "tflops_bf16" if "tflops_bf16" in figures else next(iter(figures)),
        "figures": figures,
        "warmup": first["warmup"],
        "measure": first["measure"],
        "details": {"shape": f"{n}x{n}x{n}", "data": "random normal", "parts": parts,
                    **math_settings()},
    }
