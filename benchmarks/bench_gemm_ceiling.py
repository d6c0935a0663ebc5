"""The best matmul rate PyTorch reaches on this card against rocmate's gemm suite: the peak
(first burst) per dtype must land within 5 % of the best ``torch.matmul`` rate.

    python benchmarks/bench_gemm_ceiling.py --out OUT_DIR
    python benchmarks/bench_gemm_ceiling.py --device cpu --out OUT_DIR     # a quick dry run

(rocmate's worker runs in the same Python unless ``--python`` names another.)

1. A sweep of shapes per dtype (bf16, fp16, fp32): for each, a short burst of ``torch.matmul``
   products on random data after a pause that lets the card cool and its clocks recover, each
   product timed alone (device events on a GPU); the shape's rate is the median product. The
   best shape is the card's ceiling for that dtype: what a short burst can do.
2. A pause, then rocmate's ``gemm`` suite at its defaults (a worker through the runner, as
   ``rocmate bench gemm`` runs it): its ``tflops_<dtype>_peak`` and sustained ``tflops_<dtype>``.
3. Per dtype: peak / best, and the sustained rate beside it. The last line is machine-readable:

       gemm: bf16 peak 0.97x of best torch.matmul (752.1 vs 775.3 TFLOP/s), sustained 668.2 TFLOP/s

Everything printed also goes to ``OUT/gemm-ceiling.log`` as it comes, the sweep to
``OUT/sweep.json`` after each shape, rocmate's report and run file to ``OUT/gemm-vs-ceiling.*``
and the table to ``OUT/gemm-ceiling.json``. Exit status 0 when the bf16 peak reaches
``--min-ratio`` (0.95) of the best on a GPU (on the CPU the run only shows that it works).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import torch
from bench_common import Log, dump, run_rocmate

from core.bench.worker.options import BenchOptions

GPU_SHAPES = [(4096, 4096, 4096), (6144, 6144, 6144), (8192, 8192, 8192),
              (12288, 12288, 12288), (16384, 16384, 16384), (8192, 8192, 16384),
              (16384, 8192, 8192)]
GPU_FP32_SHAPES = GPU_SHAPES[:3]  # larger fp32 products take long and change nothing
CPU_SHAPES = [(256, 256, 256), (384, 384, 384), (512, 512, 512)]
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


def product_times(m: int, n: int, k: int, dtype: torch.dtype, device: str, *,
                  warm_s: float, burst_s: float, min_products: int = 10) -> list[float]:
    """Seconds of each product of a burst of at least ``burst_s`` (after ``warm_s`` of
    untimed products): device events on a GPU, the clock on the CPU."""
    gpu = device.startswith("cuda")
    a = torch.randn(m, k, device=device, dtype=dtype)
    b = torch.randn(k, n, device=device, dtype=dtype)
    c = torch.empty(m, n, device=device, dtype=dtype)

    def sync() -> None:
        if gpu:
            torch.cuda.synchronize(device)

    t0 = time.perf_counter()
    warm = 0
    while warm < 3 or time.perf_counter() - t0 < warm_s:
        torch.matmul(a, b, out=c)
        sync()
        warm += 1
    times: list[float] = []
    t0 = time.perf_counter()
    while len(times) < min_products or time.perf_counter() - t0 < burst_s:
        if gpu:
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            torch.matmul(a, b, out=c)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / 1000)
        else:
            t = time.perf_counter()
            torch.matmul(a, b, out=c)
            times.append(time.perf_counter() - t)
        if len(times) >= 5000:
            break
    del a, b, c
    return times


def sweep(device: str, pause_s: float, log: Log, out: Path | None) -> dict[str, dict[str, Any]]:
    """The best rate per dtype over the shapes, each shape after a pause."""
    gpu = device.startswith("cuda")
    rows: list[dict[str, Any]] = []
    best: dict[str, dict[str, Any]] = {}
    for name, dtype in DTYPES.items():
        shapes = (GPU_FP32_SHAPES if name == "fp32" else GPU_SHAPES) if gpu else CPU_SHAPES
        for shape in shapes:
            time.sleep(pause_s)
            times = product_times(*shape, dtype, device, warm_s=0.1 if gpu else 0.02,
                                  burst_s=0.25 if gpu else 0.1)
            rate = 2 * shape[0] * shape[1] * shape[2] / statistics.median(times) / 1e12
            row = {"dtype": name, "shape": list(shape), "tflops": rate, "products": len(times)}
            rows.append(row)
            dump(rows, out / "sweep.json" if out else None)
            log(f"torch.matmul {name} {'x'.join(map(str, shape))}: {rate:.2f} TFLOP/s "
                f"(median of {len(times)} products)")
            if rate > best.get(name, {}).get("tflops", 0.0):
                best[name] = row
        if gpu:
            torch.cuda.empty_cache()
    for name, row in best.items():
        log(f"best torch.matmul {name}: {row['tflops']:.2f} TFLOP/s at "
            f"{'x'.join(map(str, row['shape']))}")
    return best


def _rate(v: float) -> str:
    """``775.3``; a CPU's small rates with three digits (``0.312``)."""
    return f"{v:.1f}" if v >= 10 else f"{v:.3g}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=sys.executable,
                    help="the Python that runs rocmate's worker (default: this one)")
    ap.add_argument("--device", default="cuda:0", help="cuda:N or cpu (cpu: small shapes)")
    ap.add_argument("--out", type=Path, help="folder for the log, the sweep and the report")
    ap.add_argument("--pause", type=float, help="seconds of rest before each shape "
                    "(default 2 on a GPU, 0 on the CPU)")
    ap.add_argument("--rest", type=float, help="seconds of rest before rocmate's run "
                    "(default 10 on a GPU, 0 on the CPU)")
    ap.add_argument("--min-ratio", type=float, default=0.95,
                    help="the bf16 peak / best torch.matmul to pass (GPU only; default 0.95)")
    args = ap.parse_args()
    gpu = args.device.startswith("cuda")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    log = Log(args.out / "gemm-ceiling.log" if args.out else None)
    name = torch.cuda.get_device_name(args.device) if gpu else "the CPU"
    log(f"gemm ceiling on {name}, torch {torch.__version__}")
    best = sweep(args.device, args.pause if args.pause is not None else (2.0 if gpu else 0.0),
                 log, args.out)
    time.sleep(args.rest if args.rest is not None else (10.0 if gpu else 0.0))
    options = BenchOptions(suite="gemm", device=args.device, size="default" if gpu else "tiny")
    log(f"rocmate gemm: {' '.join(options.to_argv())}")
    _, report = run_rocmate(options, args.python, args.out, "gemm-vs-ceiling",
                            env={} if gpu else {"OMP_NUM_THREADS": "1"})
    run = report.runs[0]
    res = run.result
    if res is None:
        log(f"gemm: rocmate's run failed ({run.error.kind if run.error else run.status})")
        return 1
    log(f"rocmate gemm size: {res.details.get('shape')} ({res.details.get('size_choice')}); "
        f"trial: {res.details.get('size_trial', '-')}")
    rows = []
    for dt in DTYPES:
        sustained = res.figures.get(f"tflops_{dt}")
        peak = res.peak_of(f"tflops_{dt}")
        if sustained is None or dt not in best:
            continue
        top = best[dt]["tflops"]
        p = peak.median if peak is not None else sustained.median
        rows.append({"dtype": dt, "best_torch_tflops": top, "best_shape": best[dt]["shape"],
                     "rocmate_peak_tflops": p, "rocmate_sustained_tflops": sustained.median,
                     "peak_ratio": p / top, "sustained_ratio": sustained.median / top})
        log(f"RESULT {dt}: best torch.matmul {top:.2f} TFLOP/s at "
            f"{'x'.join(map(str, best[dt]['shape']))}; rocmate peak {p:.2f} ({p / top:.1%}), "
            f"sustained {sustained.median:.2f} ({sustained.median / top:.1%})")
    dump(rows, args.out / "gemm-ceiling.json" if args.out else None)
    headline = next((r for r in rows if r["dtype"] == "bf16"), rows[0] if rows else None)
    if headline is None:
        log("gemm: no dtype to compare")
        return 1
    log(f"gemm: {headline['dtype']} peak {headline['peak_ratio']:.2f}x of best torch.matmul "
        f"({_rate(headline['rocmate_peak_tflops'])} vs {_rate(headline['best_torch_tflops'])} "
        f"TFLOP/s), sustained {_rate(headline['rocmate_sustained_tflops'])} TFLOP/s")
    if not gpu:
        return 0
    return 0 if headline["peak_ratio"] >= args.min_ratio else 1


if __name__ == "__main__":
    raise SystemExit(main())
