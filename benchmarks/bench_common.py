"""Helpers shared by the ``benchmarks/bench_*.py`` scripts: run rocmate's worker through its
runner and keep the report, one line per run."""

from __future__ import annotations

import asyncio
import json
import math
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.bench.run_report import build_report  # noqa: E402
from core.bench.runner import BenchRunner, RunOutcome  # noqa: E402
from core.bench.worker.options import BenchOptions  # noqa: E402
from core.report.model import Report, to_json  # noqa: E402
from core.system import LiveSystem  # noqa: E402


def run_rocmate(options: BenchOptions, python: str, out_dir: Path | None, name: str,
                **kw: Any) -> tuple[RunOutcome, Report]:
    """One rocmate run (a worker subprocess) -> outcome and report (written to out_dir)."""
    run_file = out_dir / f"{name}.jsonl" if out_dir else None
    runner = BenchRunner(options, python=python, run_file=run_file, **kw)
    outcome = asyncio.run(runner.run())
    report = build_report([outcome], LiveSystem())
    if out_dir:
        (out_dir / f"{name}.json").write_text(to_json(report) + "\n")
    if outcome.status != "ok":
        err = outcome.error or {}
        print(f"  !! {name}: {err.get('kind')}: {err.get('message')}\n     {err.get('advice')}",
              flush=True)
        print(outcome.stderr_tail[-3000:], flush=True)
    return outcome, report


def headline(report: Report) -> tuple[float | None, str]:
    run = report.runs[0]
    if run.result is None:
        return None, ""
    fig = run.result.headline_figure
    return fig.median, fig.unit


def line(name: str, report: Report) -> dict[str, Any]:
    """A flat summary of one run for tables."""
    run = report.runs[0]
    row: dict[str, Any] = {"name": name, "status": run.status}
    if run.result is None:
        row["error"] = run.error.kind if run.error else "?"
        return row
    r = run.result
    for key, fig in r.figures.items():
        row[key] = fig.median
        row[f"{key}_cv"] = fig.cv
        if key == r.headline:
            row["p10"], row["p90"] = fig.p10, fig.p90
    row["aggregate_per_s"] = r.measure.items / r.measure.seconds if r.measure.seconds else None
    row["steps"] = r.measure.steps
    row["warmup_steps"] = r.warmup.steps
    row["warmup_s"] = r.warmup.seconds
    row["first_step_s"] = r.warmup.first_step_s
    row["settled"] = r.warmup.settled
    row["peak_gib"] = (r.peak_memory_bytes or 0) / 2**30
    if run.energy:
        row["j_per_item"] = run.energy.per_item_j
        row["mean_w"] = run.energy.mean_power_w
    if run.reference and run.reference.fractions:
        row["of_peak"] = run.reference.fractions
    for k in ("preset", "batch_size", "precision"):
        row[k] = run.settings.get(k)
    return row


def dump(rows: list[dict[str, Any]], path: Path | None) -> None:
    text = json.dumps(rows, indent=1, default=str)
    if path:
        path.write_text(text + "\n")


class Log:
    """Print and append to a log file (none: print only), line by line, as a run goes."""

    def __init__(self, path: Path | None) -> None:
        self.path = path

    def __call__(self, text: str) -> None:
        print(text, flush=True)
        if self.path:
            with self.path.open("a", encoding="utf-8") as f:
                f.write(text + "\n")


def median_ci(values: list[float], level: float = 0.95) -> tuple[float, float, float]:
    """A distribution-free confidence interval for the median (the sign test's): the order
    statistics x(k) and x(n+1-k) for the largest k with P(B <= k-1) <= (1 - level) / 2, B ~
    binomial(n, 1/2); and the coverage they give. With too few values for ``level`` it is the
    whole range, whose coverage, 1 - 2^(1-n), is then below ``level``."""
    xs = sorted(values)
    n = len(xs)
    if n == 0:
        raise ValueError("no values")
    below, k = 0.0, 0  # below = P(B <= k - 1)
    while k < n // 2 and below + math.comb(n, k) / 2**n <= (1 - level) / 2:
        below += math.comb(n, k) / 2**n
        k += 1
    k = max(k, 1)
    coverage = 1 - 2 * sum(math.comb(n, i) for i in range(k)) / 2**n
    return xs[k - 1], xs[n - k], coverage
