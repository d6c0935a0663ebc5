"""The runner's edges, with the real worker: a worker that lingers after its last event, files
that cannot be written, telemetry that breaks, a cancel before the worker has started, slow
steps against the watchdog, and the PCI identity read without telemetry."""

from __future__ import annotations

import asyncio
import json
import stat
import time
from pathlib import Path
from typing import Any

import pytest

from core.bench import runner as runner_mod
from core.bench.runner import BenchRunner, RunOutcome
from core.bench.telemetry import sysfs_ids
from core.report.history import History
from core.system import SnapshotSystem
from tests.bench.helpers import PYTHON, run_worker, tiny


def _lingering_python(tmp_path: Path) -> str:
    """A 'python' that runs the real one, then keeps its stdout open for a minute (as a ROCm
    process can hang at exit after a GPU fault)."""
    script = tmp_path / "lingering-python"
    script.write_text(f'#!/bin/sh\n"{PYTHON}" "$@"\nsleep 60\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def test_a_worker_that_lingers_after_done_is_not_waited_for(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner_mod, "END_GRACE_S", 1.0)
    t0 = time.monotonic()
    out, events = run_worker(tiny("gemm"), tmp_path, python=_lingering_python(tmp_path),
                             watchdog_s=60, startup_timeout_s=120)
    assert out.status == "ok" and out.result is not None
    assert time.monotonic() - t0 < 45  # not the 60 s sleep, not the watchdog
    assert events[-1]["event"] == "end" and events[-1]["status"] == "ok"


def test_a_worker_that_lingers_after_an_error_keeps_its_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner_mod, "END_GRACE_S", 1.0)
    t0 = time.monotonic()
    out, _ = run_worker(tiny("gemm", device="cuda:0"), tmp_path,
                        python=_lingering_python(tmp_path), startup_timeout_s=120)
    assert time.monotonic() - t0 < 45
    assert out.status == "error" and out.error is not None
    assert out.error["kind"] == "no-gpu" and out.error["source"] == "worker"


def test_an_unwritable_run_file_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    r = BenchRunner(tiny("gemm"), python=PYTHON, run_file=blocker / "run.jsonl")
    out = asyncio.run(r.run())
    assert out.status == "error" and out.error is not None
    assert "cannot write the run file" in out.error["message"] and out.error["advice"]


def test_broken_telemetry_does_not_spoil_a_good_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_a: Any) -> None:
        raise RuntimeError("NVML: GPU is lost")

    monkeypatch.setattr(runner_mod, "open_sampler", broken)
    out, events = run_worker(tiny("gemm"), tmp_path)
    assert out.status == "ok"
    stopped = [e for e in events if e["event"] == "telemetry-stopped"]
    assert stopped and "GPU is lost" in stopped[0]["reason"]


def test_a_cancel_before_the_worker_started_stops_it(tmp_path: Path) -> None:
    async def go() -> RunOutcome:
        r = BenchRunner(tiny("gemm", steps=10_000), python=PYTHON,
                        run_file=tmp_path / "c.jsonl", kill_grace_s=5,
                        env={"OMP_NUM_THREADS": "1"})
        task = asyncio.create_task(r.run())
        r.cancel()  # before the process exists
        return await task

    t0 = time.monotonic()
    out = asyncio.run(go())
    assert out.status == "cancelled" and out.error is not None
    assert time.monotonic() - t0 < 60


def test_the_watchdog_grows_with_the_longest_step() -> None:
    r = BenchRunner(tiny("gemm"), python=PYTHON, watchdog_s=180, startup_timeout_s=900)
    out = RunOutcome(suite="gemm", python=PYTHON, options=tiny("gemm"), started="")
    assert r._read_limit(out) == (900, True)  # before the first step
    out.steps = [{"seconds": 5.0}]
    assert r._read_limit(out) == (180, True)
    out.steps.append({"seconds": 400.0})  # a big model on a slow device: slow, not hung
    assert r._read_limit(out) == (1200.0, True)
    out.phases = [{"phase": "done"}]
    assert r._read_limit(out) == (runner_mod.END_GRACE_S, False)


def test_out_into_a_new_folder_and_an_unwritable_out(
        xdg: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.bench.test_cli import bench

    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    common = ["gemm", "--python", PYTHON, "--device", "cpu", "--size", "tiny", "--steps", "2",
              "--warmup-steps", "1", "--no-telemetry"]
    new = tmp_path / "new" / "folder" / "r.json"
    assert bench(*common, "--out", str(new)) == 0
    assert json.loads(new.read_text())["schema"] == "rocmate.report/1"
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert bench(*common, "--out", str(blocker / "r.json")) == 2  # refused before the run
    err = capsys.readouterr().err
    assert "could not be written" in err and "Traceback" not in err
    with History(xdg / "rocmate" / "history.sqlite") as h:  # nothing ran the second time
        assert len(h.list()) == 1


def test_pci_ids_come_from_sysfs_without_a_sampler(tmp_path: Path) -> None:
    dev = tmp_path / "files/sys/bus/pci/devices/0000:03:00.0"
    dev.mkdir(parents=True)
    for name, value in (("vendor", "0x1002"), ("device", "0x73ff"), ("revision", "0xc7")):
        (dev / name).write_text(value + "\n")
    system = SnapshotSystem(str(tmp_path))
    ids = sysfs_ids(system, "0000:03:00.0")
    assert ids is not None and (ids.pci_id, ids.revision) == ("1002:73ff", "c7")
    assert sysfs_ids(system, "0000:04:00.0") is None
    assert sysfs_ids(system, "../../etc") is None
