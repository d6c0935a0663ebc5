"""Run rocmate's suites at the settings of a named set and print one line per run.

    python benchmarks/bench_suites.py --python python3 --set resnet-matrix --out OUT_DIR

Sets: resnet-matrix (fp32/amp-fp16/amp-bf16 x NCHW/channels_last x batch 64/256), sd
(eager, compiled), llm, gemm, bandwidth, defaults (every suite at its defaults), all.
``--device cpu --tiny`` makes a quick dry run.
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path
from typing import Any

from bench_common import dump, line, run_rocmate

from core.bench.worker.options import BenchOptions


def configs(name: str, device: str, size: str, seconds: float | None) -> list[tuple[str, Any]]:
    base = {"device": device, "size": size, "seconds": seconds}
    out: list[tuple[str, Any]] = []
    if name in ("resnet-matrix", "all"):
        for prec, cl, bs in itertools.product(("fp32", "amp-fp16", "amp-bf16"), (False, True),
                                              (64, 256)):
            tag = f"resnet50-{prec}-{'cl' if cl else 'nchw'}-bs{bs}"
            out.append((tag, BenchOptions(suite="resnet50-train", precision=prec,
                                           channels_last=cl, batch_size=bs, **base)))
    if name in ("sd", "all"):
        out.append(("sd15-eager", BenchOptions(suite="sd15-infer", **base)))
        out.append(("sd15-compiled", BenchOptions(suite="sd15-infer", compile=True, **base)))
        out.append(("sd15-compiled-cl", BenchOptions(suite="sd15-infer", compile=True,
                                                      channels_last=True, **base)))
    if name in ("llm", "all", "defaults"):
        out.append(("llm-train", BenchOptions(suite="llm-train", **base)))
    if name in ("gemm", "all", "defaults"):
        out.append(("gemm", BenchOptions(suite="gemm", **base)))
    if name in ("bandwidth", "all", "defaults"):
        out.append(("bandwidth", BenchOptions(suite="bandwidth", **base)))
    if name == "defaults":
        out.insert(0, ("resnet50-default", BenchOptions(suite="resnet50-train", **base)))
        out.insert(1, ("sd15-default", BenchOptions(suite="sd15-infer", **base)))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default="python3")
    ap.add_argument("--set", default="defaults")
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--tiny", action="store_true")
    ap.add_argument("--seconds", type=float)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--only", help="comma-separated run names to keep")
    args = ap.parse_args()
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    todo = configs(args.set, args.device, "tiny" if args.tiny else "default", args.seconds)
    if args.only:
        keep = set(args.only.split(","))
        todo = [(n, o) for n, o in todo if n in keep]
    for name, opts in todo:
        t0 = time.monotonic()
        _, report = run_rocmate(opts, args.python, args.out, name)
        row = line(name, report)
        row["wall_s"] = time.monotonic() - t0
        rows.append(row)
        print(_fmt(row), flush=True)
        dump(rows, args.out / f"summary-{args.set}.json" if args.out else None)
    return 0 if all(r["status"] == "ok" for r in rows) else 1


def _fmt(row: dict[str, Any]) -> str:
    if row["status"] != "ok":
        return f"{row['name']:<28} {row['status']} {row.get('error')}"
    keys = [k for k in row if k.endswith("_cv") is False and k not in (
        "name", "status", "p10", "p90", "steps", "warmup_steps", "warmup_s", "first_step_s",
        "settled", "wall_s", "of_peak", "preset", "batch_size", "precision")]
    parts = []
    for k in keys:
        v = row[k]
        if isinstance(v, float):
            parts.append(f"{k}={v:.4g}")
        elif v is not None:
            parts.append(f"{k}={v}")
    extra = (f" warmup={row['warmup_steps']}st/{row['warmup_s']:.1f}s"
             f" first={row['first_step_s']:.2f}s settled={row['settled']}"
             f" steps={row['steps']} wall={row['wall_s']:.0f}s")
    if row.get("of_peak"):
        extra += " of_peak=" + ",".join(f"{k}:{v:.0%}" for k, v in row["of_peak"].items())
    return f"{row['name']:<28} " + " ".join(parts) + extra


if __name__ == "__main__":
    raise SystemExit(main())
