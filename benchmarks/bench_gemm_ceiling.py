"""The best matmul rate PyTorch reaches on this card (a sweep of shapes, timed with device
events), against rocmate's gemm suite: rocmate's bf16 figure must reach 85% of the best.

    python benchmarks/bench_gemm_ceiling.py --python python3 --out OUT_DIR
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import torch
from bench_common import dump, run_rocmate

from core.bench.worker.options import BenchOptions

SHAPES = [(4096, 4096, 4096), (6144, 6144, 6144), (8192, 8192, 8192), (12288, 12288, 12288),
          (16384, 16384, 16384), (8192, 8192, 16384), (16384, 8192, 8192)]
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


def rate(m: int, n: int, k: int, dtype: torch.dtype, device: str, reps: int = 20) -> float:
    """Median TFLOP/s of ``reps`` products (random data), each timed with events."""
    a = torch.randn(m, k, device=device, dtype=dtype)
    b = torch.randn(k, n, device=device, dtype=dtype)
    c = torch.empty(m, n, device=device, dtype=dtype)
    for _ in range(5):
        torch.matmul(a, b, out=c)
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        torch.matmul(a, b, out=c)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1000)
    del a, b, c
    return 2 * m * n * k / statistics.median(times) / 1e12


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default="python3")
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    best: dict[str, tuple[float, tuple[int, int, int]]] = {}
    for name, dtype in DTYPES.items():
        for shape in SHAPES if name != "fp32" else SHAPES[:3]:
            r = rate(*shape, dtype, args.device)
            print(f"torch.matmul {name} {shape}: {r:.1f} TFLOP/s", flush=True)
            if r > best.get(name, (0.0, shape))[0]:
                best[name] = (r, shape)
    torch.cuda.empty_cache()
    _, report = run_rocmate(BenchOptions(suite="gemm", device=args.device), args.python,
                            args.out, "gemm-vs-ceiling")
    res = report.runs[0].result
    if res is None:
        return 1
    rows = []
    for name in DTYPES:
        ours = res.figures[f"tflops_{name}"].median
        top, shape = best[name]
        rows.append({"dtype": name, "best_torch_tflops": top, "best_shape": shape,
                     "rocmate_tflops": ours, "ratio": ours / top})
        print(f"RESULT {name}: best torch.matmul {top:.1f} TFLOP/s at {shape}, rocmate "
              f"{ours:.1f} ({ours / top:.1%})", flush=True)
    dump(rows, args.out / "gemm-ceiling.json" if args.out else None)
    bf16 = next(r for r in rows if r["dtype"] == "bf16")
    return 0 if bf16["ratio"] >= 0.85 else 1


if __name__ == "__main__":
    raise SystemExit(main())
