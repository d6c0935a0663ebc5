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


def python_with_startup_module(path: Path, name: str, source: str) -> Path:
    """A virtual environment that sees the test set-up's packages (torch, transformers, ...)
    and imports the module ``name`` (``source``) at start-up, through a ``.pth`` file."""
    python = bare_venv(path)
    site = site_packages(python)
    (site / "with_test_packages.pth").write_text(sysconfig.get_path("purelib") + "\n")
    (site / f"{name}.py").write_text(source)
    (site / f"{name}.pth").write_text(f"import {name}\n")
    return python


def python_without_diffusers(path: Path) -> Path:
    """A virtual environment that sees the test set-up's packages but not diffusers: a real
    missing package."""
    return python_with_startup_module(path, "_no_diffusers", BLOCKER)


_PATCHED_TORCH = '''"""{doc}"""
import importlib.util
import os
import sys
import time

MARK = os.environ.get({mark_env!r})

{patch}

class _WrapTorch:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name != "torch":
            return None
        sys.meta_path.remove(_WrapTorch)
        spec = importlib.util.find_spec("torch")
        real_exec = spec.loader.exec_module

        def exec_module(module):
            real_exec(module)
            patch(module)

        spec.loader.exec_module = exec_module
        return spec


if MARK:
    sys.meta_path.insert(0, _WrapTorch)
'''


def python_with_patched_torch(path: Path, name: str, *, doc: str, mark_env: str,
                              patch: str) -> Path:
    """A virtual environment like :func:`python_with_startup_module` whose torch, as it is
    imported, is handed to ``patch`` (the source of a function ``patch(module)``, which sees
    ``MARK``: the file named by ``$mark_env``, the test's word that the fault is on). Without
    ``$mark_env`` torch is left alone."""
    source = _PATCHED_TORCH.format(doc=doc, mark_env=mark_env, patch=patch)
    return python_with_startup_module(path, name, source)
