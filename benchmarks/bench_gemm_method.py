"""rocmate's gemm figures against plain ``torch.matmul`` measured the same way (issue 39):

    python benchmarks/bench_gemm_method.py --out OUT_DIR
    python benchmarks/bench_gemm_method.py --device cpu --out OUT_DIR     # a quick dry run

1. rocmate's ``gemm`` suite at its defaults (a worker through the runner, as ``rocmate bench
   gemm`` runs it): per dtype its burst ``tflops_<dtype>_peak``, its sustained ``tflops_<dtype>``,
   the matrix size it chose and how long its warm-up and measured phase took.
2. Per dtype, at the same size, after the same rest the suite gives a GPU (2 s):
   * an independent **burst**: three untimed products, then products for about 0.1 s, timed
     as one group between device synchronisations (how published ``torch.matmul`` rates and the
     reference results marked ``timing = "burst"`` are measured);
   * a plain **loop of the same length**: untimed products for as long as the suite's warm-up
     took, then a loop timed as one group for as long as its measured phase took.
3. Per dtype: suite burst / plain burst and suite sustained / plain loop. The last line is
   machine-readable:

       gemm method: bf16 burst 0.99x (788.1 vs 796.0), sustained 1.01x (681.2 vs 674.9) TFLOP/s

Everything printed also goes to ``OUT/gemm-method.log`` as it comes, rocmate's report and run
file to ``OUT/gemm-method.json`` and ``.jsonl``, the table to ``OUT/gemm-method-table.json``
(the 2026-12-05 run wrote both to ``gemm-method.json``, so only its table was kept). Exit status
0 when, on a GPU, both bf16 ratios lie within ``--tolerance`` (0.05) of 1 (on the CPU the run
only shows that it works).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import torch
from bench_common import Log, dump, run_rocmate

from core.bench.worker.options import BenchOptions

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
REST_S = 2.0  # as core/bench/worker/suites/gemm.py's REST_S
BURST_S = 0.1


class Products:
    """Square products of one size and dtype on one device, timed as groups."""

    def __init__(self, n: int, dtype: torch.dtype, device: str) -> None:
        self.n, self.device = n, device
        self.a = torch.randn(n, n, device=device, dtype=dtype)
        self.b = torch.randn(n, n, device=device, dtype=dtype)
        self.c = torch.empty(n, n, device=device, dtype=dtype)

    def sync(self) -> None:
        if self.device.startswith("cuda"):
            torch.cuda.synchronize(self.device)

    def group(self, seconds: float, min_products: int = 1) -> float:
        """TFLOP/s of products run for about ``seconds``, timed as one group (one
        synchronisation at each end)."""
        self.sync()
        count, t0 = 0, time.perf_counter()
        while count < min_products or time.perf_counter() - t0 < seconds:
            torch.matmul(self.a, self.b, out=self.c)
            count += 1
            if count % 4 == 0:  # the host must not run far ahead of the card
                self.sync()
        self.sync()
        elapsed = time.perf_counter() - t0
        return 2 * self.n**3 * count / max(elapsed, 1e-9) / 1e12

    def untimed(self, seconds: float, at_least: int) -> None:
        self.group(seconds, at_least)


def plain(n: int, dtype: torch.dtype, device: str, warm_s: float, measure_s: float,
          rest_s: float) -> dict[str, float]:
    """The independent burst and the plain loop of the same length as the suite's part."""
    time.sleep(rest_s)
    p = Products(n, dtype, device)
    p.untimed(0.0, 3)
    burst = p.group(BURST_S, 2)
    del p
    time.sleep(rest_s)
    p = Products(n, dtype, device)
    p.untimed(warm_s, 3)
    loop = p.group(measure_s, 2)
    del p
    if device.startswith("cuda"):
        torch.cuda.empty_cache()
    return {"burst": burst, "loop": loop}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=sys.executable,
                    help="the Python that runs rocmate's worker (default: this one)")
    ap.add_argument("--device", default="cuda:0", help="cuda:N or cpu (cpu: tiny size)")
    ap.add_argument("--out", type=Path, help="folder for the log, the report and the table")
    ap.add_argument("--tolerance", type=float, default=0.05,
                    help="how far from 1 each bf16 ratio may lie (GPU only; default 0.05)")
    args = ap.parse_args()
    gpu = args.device.startswith("cuda")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    log = Log(args.out / "gemm-method.log" if args.out else None)
    if not gpu:
        torch.set_num_threads(1)  # as the worker runs here (OMP_NUM_THREADS=1 below)
    name = torch.cuda.get_device_name(args.device) if gpu else "the CPU"
    log(f"gemm method on {name}, torch {torch.__version__}")
    options = BenchOptions(suite="gemm", device=args.device, size="default" if gpu else "tiny")
    log(f"rocmate gemm: {' '.join(options.to_argv())}")
    _, report = run_rocmate(options, args.python, args.out, "gemm-method",
                            env={} if gpu else {"OMP_NUM_THREADS": "1"})
    res = report.runs[0].result
    if res is None:
        log("gemm method: rocmate's run failed")
        return 1
    log(f"rocmate gemm size: {res.details.get('shape')}; peak: {res.details.get('peak')}")
    rows: list[dict[str, Any]] = []
    for dt, dtype in DTYPES.items():
        part = res.details.get("parts", {}).get(dt)
        sustained, peak = res.figures.get(f"tflops_{dt}"), res.peak_of(f"tflops_{dt}")
        if not part or sustained is None or peak is None:
            continue
        mine = plain(int(part["n"]), dtype, args.device, float(part["warmup"]["seconds"]),
                     float(part["measure"]["seconds"]), REST_S if gpu else 0.0)
        row = {"dtype": dt, "n": part["n"], "suite_burst": peak.median, "suite_burst_cv": peak.cv,
               "plain_burst": mine["burst"], "suite_sustained": sustained.median,
               "suite_sustained_cv": sustained.cv, "plain_loop": mine["loop"],
               "burst_ratio": peak.median / mine["burst"],
               "sustained_ratio": sustained.median / mine["loop"]}
        rows.append(row)
        log(f"RESULT {dt} {part['n']}³: burst {peak.median:.4g} vs plain {mine['burst']:.4g} "
            f"({row['burst_ratio']:.3f}x, suite CV {peak.cv:.1%}); sustained "
            f"{sustained.median:.4g} vs plain loop {mine['loop']:.4g} "
            f"({row['sustained_ratio']:.3f}x, suite CV {sustained.cv:.1%}) TFLOP/s")
    dump(rows, args.out / "gemm-method-table.json" if args.out else None)
    head = next((r for r in rows if r["dtype"] == "bf16"), rows[0] if rows else None)
    if head is None:
        log("gemm method: no dtype to compare")
        return 1
    log(f"gemm method: {head['dtype']} burst {head['burst_ratio']:.2f}x "
        f"({head['suite_burst']:.4g} vs {head['plain_burst']:.4g}), sustained "
        f"{head['sustained_ratio']:.2f}x ({head['suite_sustained']:.4g} vs "
        f"{head['plain_loop']:.4g}) TFLOP/s")
    if not gpu:
        return 0
    ok = all(abs(head[k] - 1) <= args.tolerance for k in ("burst_ratio", "sustained_ratio"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
