"""``gemm``: dense matrix-multiply rate (TFLOP/s) for bf16, fp16 and fp32, square products of
random data. fp32 runs with the TF32 switch as PyTorch leaves it (off by default for matmul;
reported). A step is a burst of products long enough to time well (~25 ms); the parent sets the
result against the card's datasheet peak (health check).

Two figures per dtype, each measured one way, written down here and in docs/bench.md, because a
card at its power limit lowers its clocks after a fraction of a second of full load (an H200 at
700 W ran bf16 8192-cubed products at ~790 TFLOP/s for the first ~0.1 s, ~685 after a second):

* ``tflops_<dtype>_peak``: the **burst**, what a rested card reaches. On a GPU each dtype starts
  after :data:`REST_S` seconds of rest; three untimed products (kernel choice, clocks up) come
  first, then the burst is warm-up steps 1 to :data:`BURST_STEPS` (about 0.1 s of products; step
  0 is left out). That is how the reference results in resources/data/references.toml marked
  ``timing = "burst"`` were measured: a few products after a few warm-ups. The datasheet
  comparison uses it. Where the warm-up was forced shorter (``--warmup-steps``), the burst falls
  back to the best :data:`BURST_STEPS` measured steps in a row (all of them where no
  :data:`BURST_STEPS` in a row reach the series' median: :func:`window_peak`), and
  ``details.peak`` says so.
* ``tflops_<dtype>``: the **sustained** rate, the median over the whole measured phase, after
  the warm-up settled: what the card keeps up under its power limit (a plain loop of the same
  length gives the same figure within its noise). bf16 (the headline) runs first and each dtype
  is measured for 2 s by default; ``--seconds`` gives a longer sustained figure, and the
  telemetry series shows the clocks and power beside both windows (``details.parts.<dtype>``
  names the steps of each).

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
BURST_STEPS = 4  # warm-up steps 1..4 are the burst (~0.1 s at TARGET_STEP_S)
REST_S = 2.0  # seconds a GPU rests before each dtype, so its burst starts cool
TINY_SIZE = 256
SIZE = 8192
LARGE_SIZE = 16384
TRIAL_MIN_TFLOPS = 100.0  # below this bf16 rate at 8192 the larger size is not tried
TRIAL_GAIN = 1.03  # the larger size must be this much faster to be chosen
TRIAL_MEMORY_SHARE = 0.25  # three fp32 matrices of the larger size fit in this share of free


def burst(warmup_times: list[float], flops: float) -> tuple[list[float], list[int]] | None:
    """The burst's rates (TFLOP/s) and its warm-up step indices [first, last]: steps 1 to
    :data:`BURST_STEPS` of the warm-up; None when the warm-up had fewer steps."""
    if len(warmup_times) < BURST_STEPS + 1:
        return None
    times = warmup_times[1:BURST_STEPS + 1]
    return [flops / t / 1e12 for t in times if t > 0], [1, BURST_STEPS]


def window_peak(rates: list[float]) -> tuple[list[float], list[int], str]:
    """The peak where the warm-up was too short for a burst: the rates of the best
    :data:`BURST_STEPS` measured steps in a row, or of all of them where no
    :data:`BURST_STEPS` in a row reach the series' median (:func:`best_window`'s rule); their
    first and last step; the words for ``details.peak``, which name how many steps it is."""
    start, stop = best_window(rates, BURST_STEPS)
    return rates[start:stop], [start, stop - 1], (
        f"the best {stop - start} measured steps in a row (the warm-up was too short for a "
        "burst)")


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
    rest = h.device.is_gpu and not opts.tiny
    peak_words = (f"the burst: warm-up steps 1-{BURST_STEPS} (about 0.1 s of products) after "
                  f"3 untimed products" + (f", on a card rested {REST_S:.0f} s" if rest else ""))
    for name, dtype in DTYPES.items():
        if not h.device.is_gpu and dtype == torch.float16 and opts.tiny is False:
            continue  # CPU fp16 matmul at full size is pointlessly slow
        if rest:  # every dtype's burst starts on a rested card, not one hot from the last
            h.setup(f"letting the card rest {REST_S:.0f} s before the {name} burst", part=name)
            time.sleep(REST_S)
        if not parts:  # before the first step; later parts allocate in milliseconds
            h.setup(f"allocating the matrices ({name}, {n}x{n})", part=name)
        a = torch.randn(n, n, device=dev, dtype=dtype)
        b = torch.randn(n, n, device=dev, dtype=dtype)
        c = torch.empty(n, n, device=dev, dtype=dtype)

        def one(a: torch.Tensor = a, b: torch.Tensor = b, c: torch.Tensor = c) -> None:
            torch.matmul(a, b, out=c)

        reps = burst_size(one, h.device.sync)
        one()  # the third untimed product: the burst's steps start warm, not cold
        flops = matmul_flops(n, n, n) * reps

        def step(one: Any = one, reps: int = reps, flops: float = flops) -> None:
            for _ in range(reps):
                one()

        w = Workload(step=step, items=reps, unit="matmul/s", part=name,
                     min_warmup_steps=BURST_STEPS + 1,
                     max_warmup_steps=10 if opts.tiny else 40, min_steps=10,
                     default_seconds=1.0 if opts.tiny else 2.0,
                     figures={f"tflops_{name}": PerStep("TFLOP/s", flops / 1e12)})
        part = h.run(w)
        figures.update(part.figures())  # the sustained rate, as a run cut short makes it
        found = burst(part.warmup_times, flops)
        info: dict[str, Any] = {"n": n, "products_per_step": reps, "warmup": part.warmup,
                                "measure": part.measure}
        if found:
            rates, info["burst_warmup_steps"] = found
            details_peak = peak_words
        else:  # a forced short warm-up: the best measured steps in a row stand in
            rates, info["burst_measured_steps"], details_peak = window_peak(
                [flops / t / 1e12 for t in part.times])
        figures[f"tflops_{name}_peak"] = figure(rates, "TFLOP/s")
        info["peak"] = details_peak
        parts[name] = info
        del a, b, c
    first = next(iter(parts.values()))
    details: dict[str, Any] = {
        "shape": f"{n}x{n}x{n}", "data": "random normal", "size_choice": size_choice,
        "peak": first["peak"],
        "sustained": "the median of every measured step, after the warm-up settled",
        "parts": parts,
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
