"""Benchmark faults, injected for real into real runs (ledger area "benchmarks"): the worker
runs out of memory under a memory cap, is killed with SIGKILL mid-run, stops (SIGSTOP) until
the watchdog kills it, gets a device error mid-run, and the app itself (a real process running
the benchmark operation) is killed with SIGKILL mid-run.

Each run goes through what the app uses (core.operations.benchmark: the runner, the report,
the history), tiny gemm or resnet50 on the CPU. Every fault must end as one readable error (an
``error`` event with a message and advice, no traceback in its message), every line of the run
file must parse and hold every step the app was told of, the history must hold the failed run
with the steps it had, and the run stored before must still be there, unchanged.

The device error: PyTorch in the target Python raises the error a GPU raises after a bad
kernel (``RuntimeError: HIP error: an illegal memory access was encountered``) from
``torch.matmul`` once the test says so. The target Python is a throwaway virtual environment
that sees the test set-up's packages and wraps ``torch.matmul`` as torch is imported (a
``.pth`` file: the worker runs with ``-E``, so nothing from the environment can do it); the
worker itself is not changed.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from core.bench.recover import worker_alive
from core.bench.worker.options import BenchOptions
from core.operations.benchmark import (
    BenchmarkRequest,
    BenchmarkResult,
    BenchmarkRun,
    recover_interrupted,
    run_to_end,
)
from core.report.history import History
from core.report.model import Report
from tests.bench.helpers import PYTHON, python_with_patched_torch, tiny
from tests.bench.test_recover import STOPPED, wait_for
from tests.faults.kept import check_kept, stored
from tests.faults.ledger import Ledger
from tests.report.support import CPU, load

AREA = "benchmarks"
ROOT = Path(__file__).resolve().parents[2]

Event = dict[str, Any]


# --- what every test checks -----------------------------------------------------------------------


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private XDG_DATA_HOME, one OpenMP thread (a shared CPU), and a history holding one run
    stored before the fault; returns the history's path."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    history = tmp_path / "xdg" / "rocmate" / "history.sqlite"
    with History(history) as h:
        h.insert(load(CPU))
    return history


def check_run_file(ledger: Ledger, kind: str, path: Path, seen: list[Event]) -> list[Event]:
    """Every line of the run file parses, and each step the app was told of is in it; returns
    the file's events."""
    events: list[Event] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            events.append(json.loads(line))
        except ValueError:
            ledger.lost(kind, f"line {number} of the run file does not parse: {line[:80]!r}")
    in_file = {_step_key(e) for e in events if e["event"] == "step"}
    for step in seen:
        if step["event"] == "step" and _step_key(step) not in in_file:
            ledger.lost(kind, f"step {_step_key(step)} the app was told of is not in the run file")
    return events


def _step_key(e: Event) -> tuple[Any, ...]:
    return (e.get("part"), e.get("phase"), e.get("index"))


def one_readable_error(events: list[Event]) -> Event:
    """The one error of a failed run: words and advice, no traceback, no result."""
    errs = [e for e in events if e["event"] == "error"]
    assert len(errs) == 1, errs
    err = errs[0]
    assert err["message"] and err["advice"], err
    for text in (err["message"], err["advice"]):
        assert "Traceback" not in text and "\n" not in text.strip(), err
    assert not [e for e in events if e["event"] == "result"]
    return err


def run_op(options: BenchOptions, tmp_path: Path, history: Path, *,
           on_event: Callable[[Event], None] | None = None,
           python: str = PYTHON, memory_limit_bytes: int | None = None,
           watchdog_s: float = 180.0) -> tuple[BenchmarkResult, list[Event]]:
    """The benchmark operation, as the app runs it; returns its result and the events the app
    was told of."""
    seen: list[Event] = []

    def cb(ev: Event) -> None:
        seen.append(ev)
        if on_event is not None:
            on_event(ev)

    request = BenchmarkRequest(options, python=python, run_file=tmp_path / "run.jsonl",
                               history_path=history, watchdog_s=watchdog_s, telemetry=False)
    run = BenchmarkRun(request, cb)
    run.runner.memory_limit_bytes = memory_limit_bytes
    return run_to_end(run, interrupt_cancels=False), seen


def check_failed_run(ledger: Ledger, kind: str, result: BenchmarkResult, seen: list[Event],
                     history: Path, before: dict[int, Report]) -> Event:
    """A failed run: one readable error, its run file whole, the history holding it with its
    steps and everything it held before."""
    assert result.status == "error", result.outcome.error
    assert result.history_error is None
    events = check_run_file(ledger, kind, result.run_file, seen)
    err = one_readable_error(events)
    assert events[-1]["event"] == "end" and events[-1]["status"] == "error"
    check_kept(ledger, kind, history, before)
    (new_id,) = result.history_ids
    with History(history) as h:
        entry = h.entry(new_id)
        run = h.run_report(new_id).runs[0]
    assert entry.status == "error" and run.error is not None
    assert run.error.message == err["message"]
    steps = [e for e in events if e["event"] == "step"]
    if len(run.steps) != len(steps):
        ledger.lost(kind, f"the history holds {len(run.steps)} of the run's {len(steps)} steps")
    return err


def on_first_measured_step(action: Callable[[Event], None]) -> Callable[[Event], None]:
    """Calls ``action(hello)`` once, at the first measured step."""
    state: dict[str, Any] = {}

    def cb(ev: Event) -> None:
        if ev["event"] == "hello":
            state["hello"] = ev
        elif ev["event"] == "step" and ev["phase"] == "measure" and "done" not in state:
            state["done"] = True
            action(state["hello"])

    return cb


# --- the worker -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_worker_out_of_memory(ledger: Ledger, env: Path, tmp_path: Path) -> None:
    """torch + torchvision map ~3.7 GB of address space; 300,000 tiny images ~3.7 GB more: under
    a 5 GB cap the allocation fails in the worker, which reports it as ``oom``."""
    kind = "worker out of memory"
    before = stored(env)
    ledger.inject(kind, AREA)
    result, seen = run_op(tiny("resnet50-train", batch_size=300_000), tmp_path, env,
                          memory_limit_bytes=5 << 30)
    err = check_failed_run(ledger, kind, result, seen, env, before)
    assert err["kind"] == "oom" and "source" not in err  # as the worker sent it
    assert "batch" in err["advice"]


def test_worker_sigkill_mid_run(ledger: Ledger, env: Path, tmp_path: Path) -> None:
    kind = "worker SIGKILL mid-run"
    before = stored(env)

    def kill(hello: Event) -> None:
        ledger.inject(kind, AREA)
        os.kill(hello["pid"], signal.SIGKILL)

    result, seen = run_op(tiny("gemm", steps=100_000), tmp_path, env,
                          on_event=on_first_measured_step(kill))
    err = check_failed_run(ledger, kind, result, seen, env, before)
    assert err["cause"] == "killed" and err["signal"] == "SIGKILL"
    assert "out-of-memory killer" in err["advice"]
    assert result.outcome.returncode == -signal.SIGKILL


def test_worker_hang_is_ended_by_the_watchdog(ledger: Ledger, env: Path, tmp_path: Path) -> None:
    kind = "worker hang (SIGSTOP)"
    before = stored(env)
    stopped: list[int] = []

    def stop(hello: Event) -> None:
        ledger.inject(kind, AREA)
        os.kill(hello["pid"], signal.SIGSTOP)
        stopped.append(hello["pid"])

    try:
        result, seen = run_op(tiny("gemm", steps=100_000), tmp_path, env, watchdog_s=2.0,
                              on_event=on_first_measured_step(stop))
    finally:
        for pid in stopped:  # the watchdog should have killed it; never leave it stopped
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    err = check_failed_run(ledger, kind, result, seen, env, before)
    assert err["cause"] == "hung" and "sent nothing for 2 s" in err["message"]
    assert result.outcome.returncode == -signal.SIGKILL
    assert result.outcome.duration_s < 60


DEVICE_ERROR = ("HIP error: an illegal memory access was encountered\nHIP kernel errors might be "
                "asynchronously reported at some other API call, so the stacktrace below might "
                "be incorrect.\nFor debugging consider passing AMD_SERIALIZE_KERNEL=3\nCompile "
                "with `TORCH_USE_HIP_DSA` to enable device-side assertions.")

_FAULTY_MATMUL = f"""TEXT = {DEVICE_ERROR!r}


def patch(module):
    matmul = module.matmul

    def faulty(*args, **kwargs):
        if os.path.exists(MARK):
            raise RuntimeError(TEXT)
        return matmul(*args, **kwargs)

    module.matmul = faulty
"""


def python_with_faulty_torch(path: Path) -> Path:
    """A virtual environment seeing the test set-up's packages, whose torch.matmul fails on
    the test's word."""
    return python_with_patched_torch(
        path, "_faulty_torch", mark_env="ROCMATE_TEST_DEVICE_FAULT", patch=_FAULTY_MATMUL,
        doc="torch.matmul raises a GPU's illegal-access error once the file "
            "$ROCMATE_TEST_DEVICE_FAULT exists (the test makes it mid-run).")


def test_device_error_mid_run(ledger: Ledger, env: Path, tmp_path: Path,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    kind = "device error mid-run"
    python = python_with_faulty_torch(tmp_path / "venv")
    mark = tmp_path / "fault-now"
    monkeypatch.setenv("ROCMATE_TEST_DEVICE_FAULT", str(mark))
    before = stored(env)

    def fault(_hello: Event) -> None:
        ledger.inject(kind, AREA)
        mark.write_text("")

    result, seen = run_op(tiny("gemm", steps=100_000), tmp_path, env, python=str(python),
                          on_event=on_first_measured_step(fault))
    err = check_failed_run(ledger, kind, result, seen, env, before)
    assert err["message"] == "RuntimeError: HIP error: an illegal memory access was encountered"
    assert "RuntimeError" in err["detail"]  # the traceback is kept, in the detail only
    assert result.outcome.returncode == 1
    measured = [e for e in seen if e["event"] == "step" and e["phase"] == "measure"]
    assert measured  # the fault came mid-run, after measured steps


# --- the app --------------------------------------------------------------------------------------

_APP = """
import json, sys
from pathlib import Path
from core.bench.worker.options import BenchOptions
from core.operations.benchmark import BenchmarkRequest, run_benchmark

def told(ev):
    if ev["event"] in ("hello", "step"):
        print(json.dumps(ev), flush=True)

options = BenchOptions(suite="gemm", device="cpu", size="tiny", warmup_steps=1, steps=1000000)
run_benchmark(BenchmarkRequest(options, python=sys.executable, run_file=Path(sys.argv[1]),
                               history_path=Path(sys.argv[2])), on_event=told)
"""


def test_the_app_killed_mid_run(ledger: Ledger, env: Path, tmp_path: Path) -> None:
    """The process running the benchmark operation (the app) is killed with SIGKILL: the run
    file holds every event up to then, whole, and the history shows the run as interrupted
    with its steps."""
    kind = "app SIGKILL mid-run"
    runs = tmp_path / "xdg" / "rocmate" / "runs"
    run_file = runs / "20261201T000000.000000Z-gemm.jsonl"
    before = stored(env)
    proc = subprocess.Popen([sys.executable, "-c", _APP, str(run_file), str(env)], cwd=ROOT,
                            env=dict(os.environ), stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    seen: list[Event] = []
    worker = 0
    try:
        while sum(e["event"] == "step" and e["phase"] == "measure" for e in seen) < 5:
            line = proc.stdout.readline()
            assert line, "the app ended before it measured 5 steps"
            seen.append(json.loads(line))
        worker = seen[0]["pid"]
        ledger.inject(kind, AREA)
        proc.kill()
        proc.wait(timeout=30)
        seen += [json.loads(line) for line in proc.stdout.read().splitlines()]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    # the worker ends at its next event, into the closed pipe
    try:
        wait_for(lambda: not worker_alive(worker), 30, "the worker to end")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(worker, signal.SIGKILL)
    events = check_run_file(ledger, kind, run_file, seen)
    assert events[0]["event"] == "run" and not [e for e in events if e["event"] == "end"]
    steps = [e for e in events if e["event"] == "step"]

    ids = recover_interrupted(history_path=env, runs_dir=runs)
    assert len(ids) == 1
    check_kept(ledger, kind, env, before)
    with History(env) as h:
        entry = h.entry(ids[0])
        run = h.run_report(ids[0]).runs[0]
    assert entry.status == "interrupted" and run.status == "interrupted"
    assert run.error is not None and run.error.message == STOPPED.format(f"{len(steps):,}")
    if [s.seconds for s in run.steps] != [e["seconds"] for e in steps]:
        ledger.lost(kind, f"the history holds {len(run.steps)} of the run's {len(steps)} steps")
    assert recover_interrupted(history_path=env, runs_dir=runs) == []  # kept once
    assert len(stored(env)) == len(before) + 1
