"""Helpers for the benchmark tests: run the real worker through the real runner."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.bench.runner import BenchRunner, RunOutcome
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


BLOCKER = '''"""Makes diffusers absent, as if it had never been installed."""
import sys


class _NoDiffusers:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == "diffusers" or name.startswith("diffusers."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _NoDiffusers)
'''


def bare_venv(path: Path) -> Path:
    """A throwaway virtual environment of this interpreter's base Python (no packages); its
    python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    return path / "bin" / "python"


def site_packages(python: Path) -> Path:
    out = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path("
                          "'purelib'))"], check=True, capture_output=True, text=True)
    return Path(out.stdout.strip())


def python_without_diffusers(path: Path) -> Path:
    """A virtual environment that sees the test set-up's packages (torch, transformers, ...)
    but not diffusers: a real missing package."""
    python = bare_venv(path)
    site = site_packages(python)
    (site / "with_test_packages.pth").write_text(sysconfig.get_path("purelib") + "\n")
    (site / "_no_diffusers.py").write_text(BLOCKER)
    (site / "_no_diffusers.pth").write_text("import _no_diffusers\n")
    return python
