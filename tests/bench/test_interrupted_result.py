"""A run cut short keeps a result made of its measured steps, marked interrupted (issue 30,
item 1): Ctrl-C in the terminal, a killed worker, a run left by a rocmate that stopped. Real CPU
runs (tiny), the real history."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from core.bench import recover
from core.bench.run_report import suite_run
from core.bench.runner import BenchRunner
from core.report.history import History
from core.report.html import render_html
from core.report.markdown import render_markdown
from core.report.model import from_json, to_dict
from core.report.steadiness import MIN_RESULT_STEPS
from core.report.text import history_text, run_text
from tests.bench.helpers import PYTHON, run_worker, tiny

ROCMATE = str(Path(sys.executable).parent / "rocmate")


def measured(run_file: Path) -> list[dict[str, Any]]:
    """The measured steps the run file holds so far (a half-written last line skipped)."""
    if not run_file.exists():
        return []
    return [e for e in recover.read_events(run_file.read_bytes())
            if e["event"] == "step" and e.get("phase") == "measure"]


def wait_for_steps(run_file: Path, count: int, proc: subprocess.Popen[str]) -> None:
    """Poll the run file until it holds ``count`` measured steps."""
    deadline = time.monotonic() + 90
    while len(measured(run_file)) < count:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run measured too few steps in 90 s"
        time.sleep(0.05)


def test_ctrl_c_keeps_a_result_of_the_measured_steps(tmp_path: Path) -> None:
    xdg, run_file, out = tmp_path / "xdg", tmp_path / "run.jsonl", tmp_path / "r.json"
    env = {**os.environ, "XDG_DATA_HOME": str(xdg), "OMP_NUM_THREADS": "1", "LANGUAGE": "",
           "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
    proc = subprocess.Popen(
        [ROCMATE, "bench", "gemm", "--python", PYTHON, "--device", "cpu", "--size", "tiny",
         "--steps", "100000", "--warmup-steps", "2", "--run-file", str(run_file), "--out",
         str(out), "--no-telemetry"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    try:
        wait_for_steps(run_file, 20, proc)
        proc.send_signal(signal.SIGINT)  # Ctrl-C
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    steps = [s for s in measured(run_file) if s.get("part") == "bf16"]
    n = len(steps)
    assert n >= 20
    # the terminal
    assert f"interrupted after {n:,} of 100,000 steps" in stdout, stdout
    assert "\n *bf16 " in stdout, stdout  # the headline figure, tflops_bf16
    # the report
    report = from_json(out.read_text())
    run = report.runs[0]
    assert run.status == "cancelled" and run.error is not None
    assert run.error.kind == "interrupted"
    assert run.result is not None and run.result.interrupted is not None
    assert run.result.interrupted.measured_steps == n
    assert run.result.interrupted.planned_steps == 100000
    assert run.result.headline == "tflops_bf16" and run.result.measure.steps == n
    figure = run.result.figures["tflops_bf16"]
    assert figure.n == n and figure.median > 0 and figure.unit == "TFLOP/s"
    assert f"interrupted after {n:,} of 100,000 steps" in render_markdown(report)
    assert f"interrupted after {n:,} of 100,000 steps" in render_html(report)
    # the history (SQLite)
    with History(xdg / "rocmate" / "history.sqlite") as h:
        rows = h.list()
    assert len(rows) == 1 and rows[0].value == pytest.approx(figure.median)
    assert rows[0].interrupted == (n, 100000)
    listing = history_text(rows)
    assert f"interrupted after {n:,} of 100,000 steps" in listing, listing
    assert "TFLOP/s" in listing


def test_a_killed_worker_keeps_a_result(tmp_path: Path) -> None:
    def kill_after_ten(runner: BenchRunner, event: dict[str, Any]) -> None:
        if event.get("event") == "step" and event.get("phase") == "measure" and \
                event.get("index") == 9 and runner.pid:
            os.kill(runner.pid, signal.SIGKILL)

    out, _ = run_worker(tiny("resnet50-train", steps=100000), tmp_path, on_event=kill_after_ten)
    assert out.status == "error" and out.error is not None and out.error["cause"] == "killed"
    run = suite_run(out)
    assert run.result is not None and run.result.interrupted is not None
    n = run.result.interrupted.measured_steps
    assert n >= 10 and run.result.headline == "throughput"
    assert run.result.figures["throughput"].unit == "images/s"
    assert run.result.figures["step_time"].n == n
    assert any(f"interrupted after {n:,} of 100,000 steps" in line for line in run_text(run))


def test_too_few_steps_say_so(tmp_path: Path) -> None:
    def cancel_at_first(runner: BenchRunner, event: dict[str, Any]) -> None:
        if event.get("event") == "step" and event.get("phase") == "measure":
            runner.cancel()

    out, _ = run_worker(tiny("gemm", steps=100000), tmp_path, on_event=cancel_at_first)
    run = suite_run(out)
    steps = len([s for s in run.steps if s.phase == "measure" and s.part == "bf16"])
    assert out.status == "cancelled" and 0 < steps < MIN_RESULT_STEPS
    assert run.result is None
    text = "\n".join(run_text(run))
    after = "1 step" if steps == 1 else f"{steps} steps"
    assert f"interrupted after {after}: too few for a result" in text, text


def test_a_run_rocmate_left_behind_keeps_a_result(tmp_path: Path) -> None:
    """A run file without its end (rocmate died): the recovery makes the same result."""
    def stop_after_eight(runner: BenchRunner, event: dict[str, Any]) -> None:
        if event.get("event") == "step" and event.get("phase") == "measure" and \
                event.get("index") == 7:
            runner.cancel()

    run_worker(tiny("bandwidth", steps=100000), tmp_path, on_event=stop_after_eight)
    run_file = next(tmp_path.glob("*.jsonl"))
    lines = run_file.read_text().splitlines()
    kept = [ln for ln in lines if json.loads(ln)["event"] not in ("end", "error")]
    run_file.write_text("\n".join(kept) + "\n")
    found = recover.interrupted_runs(tmp_path)
    assert len(found) == 1
    outcome = found[0].outcome
    assert outcome.status == "interrupted" and outcome.partial is not None
    run = suite_run(outcome)
    assert run.result is not None and run.result.headline == "d2d_gbs"
    assert run.result.interrupted is not None and run.result.interrupted.measured_steps >= 8


def test_an_old_report_reads_and_writes_as_before() -> None:
    """A report without ``interrupted`` reads, and writes without it."""
    path = Path(__file__).parents[1] / "report" / "data" / "cpu-tiny-gemm.json"
    data = json.loads(path.read_text())
    report = from_json(path.read_text())
    run = report.runs[0]
    assert run.result is not None and run.result.interrupted is None
    assert to_dict(report)["runs"][0]["result"] == data["runs"][0]["result"]
