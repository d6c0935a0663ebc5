"""``gemm``: dense matrix-multiply rate (TFLOP/s) for bf16, fp16 and fp32, square products of
random data. fp32 runs with the TF32 switch as PyTorch leaves it (off by default for matmul;
reported). A step is a burst of products long enough to time well (~25 ms); the parent sets the
result against the card's datasheet peak (health check).

Two figures per dtype, because a card at its power limit lowers its clocks after a few seconds
of full load (an H200 at 700 W runs bf16 at ~775 TFLOP/s for a few seconds, then ~660):

* ``tflops_<dtype>_peak``: the **peak** rate, the highest median of any :data:`PEAK_WINDOW`
  consecutive measured steps (~0.1 s of products): the first burst, what the card can do. The
  datasheet comparison uses it.
* ``tflops_<dtype>``: the **sustained** rate, the median over the whole measured phase: what the
  card keeps up. bf16 (the headline) runs first and each dtype is measured for 2 s by default;
  ``--seconds`` gives a longer sustained figure, and the telemetry series shows the clocks.

Matrix size (``details.shape``, ``details.size_choice``): 256 at ``--size tiny``, 8192 on the
CPU. On a GPU a quick bf16 trial at the start picks 8192 or 16384: 16384 only when the card runs
bf16 at 100 TFLOP/s or more at 8192 (a slower card is already full at 8192), has the free memory
for it, and runs it at least 3 % faster (a card with many compute units can fill them better with
the larger product). The trial takes well under a second; its rates are in ``details.size_trial``.
"""

from __future__ import annotations

import time
from typing import Any

import torch

from core.bench.worker.device import math_settings
from core.bench.worker.flops import matmul_flops
from core.bench.worker.harness import Harness, Options, PerStep, Workload, figure
from core.bench.worker.stats import best_window

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
TARGET_STEP_S = 0.025
PEAK_WINDOW = 5  # consecutive measured steps of the peak figure (~0.1 s at TARGET_STEP_S)
TINY_SIZE = 256
SIZE = 8192
LARGE_SIZE = 16384
TRIAL_MIN_TFLOPS = 100.0  # below this bf16 rate at 8192 the larger size is not tried
TRIAL_GAIN = 1.03  # the larger size must be this much faster to be chosen
TRIAL_MEMORY_SHARE = 0.25  # three fp32 matrices of the larger size fit in this share of free


def burst_size(fn: Any, sync: Any, target_s: float = TARGET_STEP_S, cap: int = 200) -> int:
    """How many calls of ``fn`` make one step of about ``target_s`` seconds."""
    fn()
    sync()
    t0 = time.perf_counter()
    fn()
    sync()
    one = max(time.perf_counter() - t0, 1e-6)
    return max(1, min(cap, round(target_s / one)))


def trial_rate(n: int, dtype: torch.dtype, dev: torch.device, sync: Any) -> float:
    """TFLOP/s of a short burst of ``n``-sized products (after one untimed call)."""
    a = torch.randn(n, n, device=dev, dtype=dtype)
    b = torch.randn(n, n, device=dev, dtype=dtype)
    c = torch.empty(n, n, device=dev, dtype=dtype)

    def one() -> None:
        torch.matmul(a, b, out=c)

    reps = burst_size(one, sync, target_s=0.02, cap=20)
    t0 = time.perf_counter()
    for _ in range(reps):
        one()
    sync()
    return matmul_flops(n, n, n) * reps / max(time.perf_counter() - t0, 1e-9) / 1e12


def choose_size(h: Harness, opts: Options) -> tuple[int, str, dict[str, float]]:
    """The matrix size, why, and the trial's bf16 rates by size (empty when none ran)."""
    if opts.tiny:
        return TINY_SIZE, "--size tiny", {}
    if not h.device.is_gpu:
        return SIZE, "the default size (no trial on the CPU)", {}
    h.setup("choosing the matrix size (a quick bf16 trial)")
    sync, dev = h.device.sync, h.device.torch_device
    trial = {str(SIZE): trial_rate(SIZE, torch.bfloat16, dev, sync)}
    if trial[str(SIZE)] < TRIAL_MIN_TFLOPS:
        why = f"{SIZE}: under {TRIAL_MIN_TFLOPS:.0f} TFLOP/s bf16 the card is full at this size"
    elif (h.device.free_memory() or 0) * TRIAL_MEMORY_SHARE < 3 * LARGE_SIZE**2 * 4:
        why = f"{SIZE}: too little free memory to try {LARGE_SIZE}"
    else:
        trial[str(LARGE_SIZE)] = trial_rate(LARGE_SIZE, torch.bfloat16, dev, sync)
        if trial[str(LARGE_SIZE)] >= TRIAL_GAIN * trial[str(SIZE)]:
            why = f"{LARGE_SIZE}: at least {TRIAL_GAIN - 1:.0%} faster than {SIZE} in the trial"
            _release(h)
            return LARGE_SIZE, why, trial
        why = f"{SIZE}: {LARGE_SIZE} was not {TRIAL_GAIN - 1:.0%} faster in the trial"
    _release(h)
    return SIZE, why, trial


def _release(h: Harness) -> None:
    """Forget the trial's memory: the report's peak memory is the suite's own."""
    torch.cuda.empty_cache()
    h.device.reset_peak_memory()


def run(h: Harness, opts: Options) -> dict[str, Any]:
    dev = h.device.torch_device
    torch.manual_seed(opts.seed)
    n, size_choice, trial = choose_size(h, opts)
    figures: dict[str, Any] = {}
    parts: dict[str, Any] = {}
    for name, dtype in DTYPES.items():
        if not h.device.is_gpu and dtype == torch.float16 and opts.tiny is False:
            continue  # CPU fp16 matmul at full size is pointlessly slow
        if not parts:  # before the first step; later parts allocate in milliseconds
            h.setup(f"allocating the matrices ({name}, {n}x{n})", part=name)
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
                     default_seconds=1.0 if opts.tiny else 2.0,
                     figures={f"tflops_{name}": PerStep("TFLOP/s", flops / 1e12)})
        part = h.run(w)
        rates = [flops / t / 1e12 for t in part.times]
        start, stop = best_window(rates, PEAK_WINDOW)
        figures.update(part.figures())  # the sustained rate, as a run cut short makes it
        figures[f"tflops_{name}_peak"] = figure(rates[start:stop], "TFLOP/s")
        parts[name] = {"n": n, "products_per_step": reps, "warmup": part.warmup,
                       "measure": part.measure, "peak_steps": [start, stop - 1]}
        del a, b, c
    first = next(iter(parts.values()))
    details: dict[str, Any] = {
        "shape": f"{n}x{n}x{n}", "data": "random normal", "size_choice": size_choice,
        "peak": f"the highest median of {PEAK_WINDOW} consecutive measured steps",
        "sustained": "the median of every measured step", "parts": parts,
    }
    if trial:
        details["size_trial"] = {f"{k}x{k}x{k}": round(v, 1) for k, v in trial.items()}
    return {
        "headline": "tflops_bf16" if "tflops_bf16" in figures else next(iter(figures)),
        "figures": figures,
        "warmup": first["warmup"],
        "measure": first["measure"],
        "details": {**details, **math_settings()},
    }
