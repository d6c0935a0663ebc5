"""Helpers for the benchmark tests: run the real worker through the real runner."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.bench.runner import BenchRunner, RunOutcome

# The Python running the tests is the test set-up's .venv: it holds torch, torchvision,
from core.bench.worker.options import BenchOptions

# The Python running the tests is the test set-up's .venv: it holds torch, torchvision,
# diffusers and transformers, so it serves as the "target" Python too.
PYTHON = sys.executable


def tiny(suite: str, **kw: Any) -> BenchOptions:
    """Options for a quick CPU run: tiny shapes, a fixed warm-up, a few measured steps."""
    base: dict[str, Any] = {"device": "cpu", "size": "tiny", "warmup_steps": 1, "steps": 3}
    base.update(kw)
    return BenchOptions(suite=suite, **base)


def run_worker(options: BenchOptions, tmp_path: Path, *,
               on_event: Callable[[BenchRunner, dict[str, Any]], None] | None = None,
               python: str = PYTHON, **kw: Any) -> tuple[RunOutcome, list[dict[str, Any]]]:
    """Run the worker through BenchRunner; returns the outcome and the run file's events."""
    run_file = tmp_path / f"{options.suite}.jsonl"
    holder: dict[str, BenchRunner] = {}

    def cb(ev: dict[str, Any]) -> None:
        if on_event is not None:
            on_event(holder["runner"], ev)

    # One thread: this CPU is shared, and OpenMP threads that spin-wait for a busy core make
    # steps a hundred times slower.
    kw.setdefault("env", {"OMP_NUM_THREADS": "1"})
    runner = BenchRunner(options, python=python, run_file=run_file, on_event=cb, **kw)
    holder["runner"] = runner
    outcome = asyncio.run(runner.run())
    events = [json.loads(line) for line in run_file.read_text().splitlines()]
    return outcome, events
