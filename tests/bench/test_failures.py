"""Failures injected for real: out of memory under a memory cap, a Python without diffusers or
torch, SIGKILL, SIGSTOP (watchdog), cancel, no GPU, bad options. Each must reach the caller as
exactly one ``error`` with advice."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest

from core.bench.runner import BenchRunner
from tests.bench.helpers import bare_venv, python_without_diffusers, run_worker, tiny


def errors_in(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["event"] == "error"]


def one_error(events: list[dict[str, Any]]) -> dict[str, Any]:
    errs = errors_in(events)
    assert len(errs) == 1, errs
    assert errs[0]["advice"], errs[0]
    assert not [e for e in events if e["event"] == "result"]
    return errs[0]


def test_out_of_memory_under_a_memory_cap(tmp_path: Path) -> None:
    # torch + torchvision map ~3.7 GB of address space; 300k tiny images need ~3.7 GB more.
    cap = 5 << 30
    opts = tiny("resnet50-train", batch_size=300_000)
    out, events = run_worker(opts, tmp_path, memory_limit_bytes=cap)
    assert out.status == "error"
    err = one_error(events)
    assert err["kind"] == "oom" and "source" not in err  # as the worker sent it
    assert "batch" in err["advice"]
    assert out.error is not None and out.error["kind"] == "oom"
    assert out.error["source"] == "worker"


def test_a_python_without_diffusers(tmp_path: Path) -> None:
    python = python_without_diffusers(tmp_path / "nodiff")
    out, events = run_worker(tiny("sd15-infer", inference_steps=2, steps=1), tmp_path,
                             python=str(python))
    assert out.status == "error"
    err = one_error(events)
    assert err["kind"] == "missing-package" and err["package"] == "diffusers"
    assert f"{python} -m pip install diffusers" in err["advice"]
    assert out.hello is not None  # torch itself was there: the worker said hello first


def test_a_python_without_torch(tmp_path: Path) -> None:
    python = bare_venv(tmp_path / "bare")
    out, events = run_worker(tiny("gemm"), tmp_path, python=str(python))
    err = one_error(events)
    assert err["kind"] == "missing-package" and err["package"] == "torch"
    assert out.hello is None and out.status == "error"


def test_a_python_that_does_not_exist(tmp_path: Path) -> None:
    out, events = run_worker(tiny("gemm"), tmp_path, python=str(tmp_path / "nope" / "python"))
    err = one_error(events)
    assert err["source"] == "parent" and "--python" in err["advice"]
    assert out.status == "error"


def _kill_on_first_measured_step(sig: int) -> Any:
    sent: list[int] = []

    def on_event(runner: BenchRunner, ev: dict[str, Any]) -> None:
        if ev["event"] == "step" and ev["phase"] == "measure" and not sent:
            assert runner.pid is not None
            os.kill(runner.pid, sig)
            sent.append(sig)

    return on_event


def test_sigkill_mid_run_is_reported(tmp_path: Path) -> None:
    opts = tiny("resnet50-train", steps=None, seconds=120.0)
    out, events = run_worker(opts, tmp_path, on_event=_kill_on_first_measured_step(
        signal.SIGKILL))
    err = one_error(events)
    assert err["source"] == "parent" and err["cause"] == "killed" and err["signal"] == "SIGKILL"
    assert "out-of-memory killer" in err["advice"]
    assert out.status == "error" and out.returncode == -signal.SIGKILL
    assert out.duration_s < 60


def test_a_stopped_worker_is_killed_by_the_watchdog(tmp_path: Path) -> None:
    opts = tiny("resnet50-train", steps=None, seconds=120.0)
    out, events = run_worker(opts, tmp_path, watchdog_s=2.0,
                             on_event=_kill_on_first_measured_step(signal.SIGSTOP))
    err = one_error(events)
    assert err["cause"] == "hung" and "sent nothing for 2 s" in err["message"]
    assert out.status == "error" and out.returncode == -signal.SIGKILL
    assert out.duration_s < 60


def test_cancel_stops_the_worker(tmp_path: Path) -> None:
    def on_event(runner: BenchRunner, ev: dict[str, Any]) -> None:
        if ev["event"] == "step" and ev["phase"] == "measure" and ev["index"] == 0:
            runner.cancel()

    out, events = run_worker(tiny("resnet50-train", steps=None, seconds=120.0), tmp_path,
                             on_event=on_event)
    err = one_error(events)
    assert err["kind"] == "interrupted" and "source" not in err
    assert out.status == "cancelled" and out.returncode == 130


@pytest.mark.skipif(__import__("torch").cuda.is_available(), reason="this machine has a GPU")
def test_no_gpu(tmp_path: Path) -> None:
    out, events = run_worker(tiny("gemm", device="cuda:0"), tmp_path)
    err = one_error(events)
    assert err["kind"] == "no-gpu" and "rocmate doctor" in err["advice"]
    assert out.status == "error" and out.returncode == 1


def test_bad_options_are_an_error_event(tmp_path: Path) -> None:
    out, events = run_worker(tiny("gemm", steps=0), tmp_path)
    err = one_error(events)
    assert err["kind"] == "other" and "--steps must be at least 1" in err["message"]
    assert out.returncode == 2


def test_the_run_file_has_each_event_before_the_caller_sees_it(tmp_path: Path) -> None:
    run_file = tmp_path / "gemm.jsonl"
    seen: list[str] = []

    def on_event(runner: BenchRunner, ev: dict[str, Any]) -> None:
        lines = run_file.read_text().splitlines()
        seen.append(ev["event"])
        assert '"event":"' + ev["event"] + '"' in lines[-1]

    out, events = run_worker(tiny("gemm", steps=1, warmup_steps=0), tmp_path, on_event=on_event)
    assert out.status == "ok"
    assert [e["event"] for e in events] == seen
