"""Runs that rocmate stopped before they ended, found in their run files and added to the
history as ``interrupted`` with the steps they had: a real run whose rocmate is killed with
SIGKILL, a live run left alone, damaged lines, a run that had finished measuring, and
``rocmate report list``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from core.bench.recover import interrupted_runs, worker_alive
from core.bench.runner import BenchRunner, RunOutcome
from core.cli import main as cli_main
from core.operations.benchmark import recover_interrupted
from core.report.history import History
from core.report.steadiness import MIN_RESULT_STEPS
from core.report.writers import render
from tests.bench.helpers import PYTHON, run_worker, tiny
from tests.waits import poll_until

ROOT = Path(__file__).resolve().parents[2]
STOPPED = ("rocmate stopped before the run ended (the window was closed or rocmate crashed); "
           "the {} steps it had are kept")


def lines(path: Path) -> list[dict[str, Any]]:
    """The whole lines of a run file that parse (a half-written last one does not)."""
    out = []
    for line in path.read_text().splitlines():
        with contextlib.suppress(ValueError):
            out.append(json.loads(line))
    return out


def wait_for(check: Any, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not check():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


_KILLED_RUN = """
import sys
from pathlib import Path
from core.bench.worker.options import BenchOptions
from core.operations.benchmark import BenchmarkRequest, run_benchmark
options = BenchOptions(suite="gemm", device="cpu", size="tiny", warmup_steps=1, steps=1000000)
run_benchmark(BenchmarkRequest(options, python=sys.executable, run_file=Path(sys.argv[1]),
                               history_path=Path(sys.argv[2]), telemetry=False))
"""


def test_a_run_whose_rocmate_was_killed_is_added_once_as_interrupted(tmp_path: Path) -> None:
    runs, history = tmp_path / "runs", tmp_path / "history.sqlite"
    run_file = runs / "20261201T000000.000000Z-gemm.jsonl"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "XDG_DATA_HOME": str(tmp_path / "xdg")}
    errors = tmp_path / "stderr.txt"
    with errors.open("w") as stderr:
        proc = subprocess.Popen([sys.executable, "-c", _KILLED_RUN, str(run_file), str(history)],
                                cwd=ROOT, env=env, stderr=stderr)
    worker = 0
    try:
        def measuring() -> bool:
            return run_file.exists() and sum(
                e.get("phase") == "measure" for e in lines(run_file) if e["event"] == "step") >= 5

        poll_until(measuring, ended=lambda: proc.poll() is not None,
                   said=lambda: f"exit status {proc.returncode}: {errors.read_text()[-2000:]}",
                   timeout_s=120, what="5 measured steps in the run file")
        worker = next(e["pid"] for e in lines(run_file) if e["event"] == "hello")
        assert worker_alive(worker)
        # a live run: its rocmate holds the file, nothing is touched
        assert recover_interrupted(history_path=history, runs_dir=runs) == []
        assert interrupted_runs(runs) == []
    finally:
        proc.kill()  # SIGKILL: no finally block of rocmate's runs, no end line
        proc.wait(timeout=30)
        if worker:
            with contextlib.suppress(ProcessLookupError):
                os.kill(worker, signal.SIGKILL)
    wait_for(lambda: not worker_alive(worker), 30, "the worker to end")
    events = lines(run_file)
    assert events[0]["event"] == "run" and events[0]["history"] is True
    assert not [e for e in events if e["event"] == "end"]
    steps = [e for e in events if e["event"] == "step"]

    found = interrupted_runs(runs)
    assert len(found) == 1 and found[0].outcome.status == "interrupted"

    ids = recover_interrupted(history_path=history, runs_dir=runs)
    assert len(ids) == 1
    with History(history) as h:
        entry = h.entry(ids[0])
        report = h.run_report(ids[0])
    assert (entry.status, entry.error_kind, entry.suite) == ("interrupted", "interrupted", "gemm")
    run = report.runs[0]
    assert run.status == "interrupted" and run.error is not None
    # the measured steps (5 or more) make a result, marked interrupted (issue 30, item 1)
    measured = [e for e in steps if e["phase"] == "measure" and e.get("part") == "bf16"]
    if len(measured) >= MIN_RESULT_STEPS:
        assert run.result is not None and run.result.interrupted is not None
        assert run.result.interrupted.measured_steps == len(measured)
        assert entry.interrupted == (len(measured), 1000000)
    else:
        assert run.result is None and entry.interrupted is None
    assert run.error.message == STOPPED.format(f"{len(steps):,}")
    assert run.error.advice.endswith(f"its run file, {run_file.name}.")
    assert [s.t for s in run.steps] == [e["rx_t"] for e in steps]
    assert [s.seconds for s in run.steps] == [e["seconds"] for e in steps]
    assert run.device is not None and run.device.backend == "cpu"
    assert run.settings["steps"] == 1000000 and run.settings["size"] == "tiny"
    assert report.created == run.started == events[0]["started"]
    assert run.duration_s == max(e["rx_t"] for e in events)
    # marked: the file ends with the recovery's end line, and it is never added twice
    end = lines(run_file)[-1]
    assert end == {**end, "event": "end", "status": "interrupted", "recovered": True, "run": 0,
                   "history_ids": ids}
    assert recover_interrupted(history_path=history, runs_dir=runs) == []
    assert interrupted_runs(runs) == []
    with History(history) as h:
        assert len(h.list()) == 1
    html = render(report, "html")
    assert 'class="badge interrupted"' in html and "rocmate stopped before" in html


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The lines of a real run file (tiny gemm on the CPU, 4 measured steps per part)."""
    tmp = tmp_path_factory.mktemp("finished")
    out, _ = run_worker(tiny("gemm", steps=4), tmp)
    assert out.status == "ok", out.error
    text = (tmp / "gemm.jsonl").read_text()
    assert text.endswith("\n")
    return text.splitlines()


def _write(runs: Path, name: str, text: str) -> Path:
    runs.mkdir(parents=True, exist_ok=True)
    path = runs / name
    path.write_text(text)
    return path


def test_a_damaged_last_line_is_skipped_and_the_end_goes_on_a_line_of_its_own(
        tmp_path: Path, finished: list[str]) -> None:
    cut = [line for line in finished if json.loads(line)["event"] not in ("result", "end")
           and json.loads(line).get("phase") != "done"]
    kept = cut[:-1]
    half = cut[-1][: len(cut[-1]) // 2]  # the line being written when the power went
    text = "\n".join([*kept[:3], "garbage that is not JSON", *kept[3:], half])
    path = _write(tmp_path / "runs", "cut-gemm.jsonl", text)
    steps = sum(json.loads(line)["event"] == "step" for line in kept)
    history = tmp_path / "h.sqlite"
    ids = recover_interrupted(history_path=history, runs_dir=tmp_path / "runs")
    assert len(ids) == 1
    with History(history) as h:
        run = h.run_report(ids[0]).runs[0]
    assert run.status == "interrupted" and len(run.steps) == steps
    assert run.error is not None and run.error.message == STOPPED.format(steps)
    after = path.read_text().splitlines()
    assert after[-2] == half  # left as it was
    assert json.loads(after[-1])["recovered"] is True
    assert recover_interrupted(history_path=history, runs_dir=tmp_path / "runs") == []


def test_a_run_that_had_measured_everything_keeps_its_result(
        tmp_path: Path, finished: list[str]) -> None:
    """rocmate died after the worker's result and done, before its own end line: the run was
    measured, and it is added as the ok run it was."""
    text = "\n".join(line for line in finished if json.loads(line)["event"] != "end") + "\n"
    _write(tmp_path / "runs", "done-gemm.jsonl", text)
    history = tmp_path / "h.sqlite"
    ids = recover_interrupted(history_path=history, runs_dir=tmp_path / "runs")
    with History(history) as h:
        run = h.run_report(ids[0]).runs[0]
    assert run.status == "ok" and run.result is not None and run.error is None
    assert "tflops_bf16_peak" in run.result.figures


def test_a_run_of_a_file_with_several_runs_and_a_no_history_run(
        tmp_path: Path, finished: list[str]) -> None:
    """A file appended to by several runs: only the one without an end is recovered; a run
    started without the history is marked, not added."""
    unfinished = [line for line in finished if json.loads(line)["event"] != "end"][:12]
    no_history = [json.dumps({**json.loads(unfinished[0]), "history": False}), *unfinished[1:]]
    text = "\n".join([*finished, *unfinished, *finished]) + "\n"
    runs = tmp_path / "runs"
    _write(runs, "many-gemm.jsonl", text)
    _write(runs, "no-history-gemm.jsonl", "\n".join(no_history) + "\n")
    history = tmp_path / "h.sqlite"
    assert sorted((i.path.name, i.index) for i in interrupted_runs(runs)) == [
        ("many-gemm.jsonl", 1), ("no-history-gemm.jsonl", 0)]
    ids = recover_interrupted(history_path=history, runs_dir=runs)
    assert len(ids) == 1
    with History(history) as h:
        assert [e.status for e in h.list()] == ["interrupted"]
    marked = lines(runs / "no-history-gemm.jsonl")[-1]
    assert marked["recovered"] is True and marked["history_ids"] == []
    assert "--no-history" in marked["not_kept"]
    assert interrupted_runs(runs) == []


def test_a_live_run_in_this_process_is_left_alone(tmp_path: Path) -> None:
    """While a runner writes its file (a GUI run, say), a recovery neither adds nor marks it;
    an unlocked copy of that file whose worker still runs is not taken either."""
    runs, history, copies = tmp_path / "runs", tmp_path / "h.sqlite", tmp_path / "copies"
    asked: dict[str, Any] = {}

    def on_event(runner: BenchRunner, ev: dict[str, Any]) -> None:
        if ev["event"] == "step" and ev["phase"] == "measure" and "ids" not in asked:
            asked["ids"] = recover_interrupted(history_path=history, runs_dir=runs)
            copies.mkdir()
            shutil.copy(runs / "gemm.jsonl", copies / "copy.jsonl")  # no lock on the copy
            asked["copy"] = interrupted_runs(copies)
            runner.cancel()

    runs.mkdir()
    out: RunOutcome
    out, events = run_worker(tiny("gemm", steps=100_000), runs, on_event=on_event)
    assert asked["ids"] == [] and asked["copy"] == []
    assert out.status == "cancelled"
    assert [e for e in events if e["event"] == "end"] == [events[-1]]
    assert "recovered" not in events[-1] and not history.exists()
    # the worker is gone now: the copy (which has no end) is an interrupted run
    assert [i.outcome.status for i in interrupted_runs(copies)] == ["interrupted"]


def test_report_list_adds_the_interrupted_runs_first(
        tmp_path: Path, finished: list[str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    xdg = tmp_path / "xdg"
    monkeypatch.setenv("XDG_DATA_HOME", str(xdg))
    cut = [line for line in finished if json.loads(line)["event"] != "end"][:10]
    _write(xdg / "rocmate" / "runs", "20261201T000000.000000Z-gemm.jsonl", "\n".join(cut))
    assert cli_main(["report", "list"]) == 0
    cap = capsys.readouterr()
    assert "added a run that rocmate stopped before the end to the history: #1" in cap.err
    row = cap.out.splitlines()[1]
    assert row.startswith("#1") and row.endswith("interrupted") and "gemm" in row
    assert cli_main(["report", "list", "--status", "interrupted"]) == 0
    cap = capsys.readouterr()
    assert cap.err == "" and len(cap.out.splitlines()) == 2
    assert cli_main(["report", "list", "--status", "ok"]) == 0
    assert "no runs match --status ok" in capsys.readouterr().out


def test_worker_alive_knows_a_worker_from_another_process() -> None:
    assert not worker_alive(os.getpid())  # alive, but not a benchmark worker
    assert not worker_alive(None) and not worker_alive(-1) and not worker_alive(True)
    child = subprocess.Popen([PYTHON, "-c", "import time; time.sleep(60)", "core.bench.worker"])
    try:
        deadline = time.monotonic() + 10  # a loaded machine may show the new command line late
        while not worker_alive(child.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert worker_alive(child.pid)
    finally:
        child.kill()
    deadline = time.monotonic() + 10
    while worker_alive(child.pid) and time.monotonic() < deadline:  # a zombie is not alive
        asyncio.run(asyncio.sleep(0.05))
    assert not worker_alive(child.pid)
    child.wait()
