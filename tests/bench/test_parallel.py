"""Data-parallel runs (``--gpus``) on the CPU: the real launcher (torch.distributed.run), the real
worker as each rank, the gloo backend, through the runner the app and ``rocmate bench`` use. Two
and three ranks measure together; a rank that dies, one that stops and one stuck in its step
each end the run with one readable error naming the rank, and leave no process behind."""

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

from core.bench.runner import BenchRunner, failed_rank, rank_advice, worker_command
from core.bench.worker.options import BenchOptions
from tests.bench.helpers import PYTHON, python_with_patched_torch, run_worker, tiny

pytest.importorskip("torch")
ROOT = Path(__file__).resolve().parents[2]


def ranks_of(launcher: int) -> list[int]:
    """The worker processes the launcher started (its children running core.bench.worker)."""
    try:
        children = Path(f"/proc/{launcher}/task/{launcher}/children").read_text().split()
    except OSError:
        return []
    found = []
    for pid in map(int, children):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"core.bench.worker" in command:
            found.append(pid)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def gone(pids: list[int], within_s: float = 30.0) -> bool:
    end = time.monotonic() + within_s
    while time.monotonic() < end:
        if not any(alive(p) for p in pids):
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize(("suite", "world"), [("resnet50-train", 2), ("llm-train", 3)])
def test_ranks_measure_together(suite: str, world: int, tmp_path: Path) -> None:
    seen: list[int] = []

    def watch(runner: BenchRunner, event: dict[str, Any]) -> None:
        if event["event"] == "step" and not seen and runner.pid:
            seen.extend(ranks_of(runner.pid))

    out, events = run_worker(tiny(suite, gpus=str(world), steps=4), tmp_path, on_event=watch,
                             startup_timeout_s=300)
    assert out.status == "ok", (out.error, out.stderr_tail[-2000:])
    assert out.hello is not None and out.hello["world_size"] == world
    assert out.hello["backend_collective"] == "gloo" and len(seen) == world
    batch = out.hello["settings"]["batch_size"]
    steps = [e for e in out.steps if e["phase"] == "measure"]
    assert len(steps) == 4  # every rank ended its phases after the same step
    for step in steps:
        per_rank = [step[f"rank{i}_s"] for i in range(world)]
        assert step["seconds"] == max(per_rank)
        unit = batch * (32 if suite == "llm-train" else 1)  # tokens: batch x tiny seq_len
        assert step["items"] == unit * world
    assert out.result is not None
    details, figures = out.result["details"], out.result["figures"]
    assert details["world_size"] == world and len(details["rank_throughput"]) == world
    assert figures["throughput_per_gpu"]["n"] == 4 * world
    assert figures["throughput"]["median"] > figures["throughput_per_gpu"]["median"]
    assert [e["event"] for e in events].count("hello") == 1  # only rank 0 speaks
    assert gone(seen)


def _kill_a_rank(sig: signal.Signals, tmp_path: Path, **kw: Any) -> tuple[Any, list[int], float]:
    victims: list[int] = []
    everyone: list[int] = []

    def strike(runner: BenchRunner, event: dict[str, Any]) -> None:
        if event["event"] == "step" and event["phase"] == "measure" and not victims:
            assert runner.pid is not None
            ranks = ranks_of(runner.pid)
            everyone.extend(ranks)
            victims.append(max(ranks))  # the last one started: rank 1, not rank 0
            os.kill(victims[0], sig)

    t0 = time.monotonic()
    out, _ = run_worker(tiny("resnet50-train", gpus="2", steps=100_000), tmp_path,
                        on_event=strike, startup_timeout_s=300, **kw)
    return out, everyone, time.monotonic() - t0


def test_a_rank_that_dies(tmp_path: Path) -> None:
    out, ranks, took = _kill_a_rank(signal.SIGKILL, tmp_path)
    assert out.status == "error" and out.error is not None, out.error
    assert out.error["message"] == (
        "rank 1 of 2 ended (killed by SIGKILL) and the others were stopped"), out.error
    assert out.error["advice"] == rank_advice() and out.error["cause"] == "rank"
    assert "Traceback" not in out.error["message"]
    assert len(ranks) == 2 and gone(ranks) and took < 120


def test_a_rank_that_stops(tmp_path: Path) -> None:
    """SIGSTOP: the rank's pulse goes silent and its process is stopped; the per-rank watchdog
    ends the run long before the collective timeout, naming the rank."""
    out, ranks, took = _kill_a_rank(signal.SIGSTOP, tmp_path, watchdog_s=120.0, pulse_s=0.4)
    assert out.status == "error" and out.error is not None
    assert out.error["message"] == (
        "rank 1 of 2 stopped answering (its process is stopped) and the run was stopped"), \
        out.error
    assert out.error["cause"] == "hung" and out.error["stall"] == "stopped"
    assert out.error["ranks"] == [1] and out.error["advice"] == rank_advice()
    assert len(ranks) == 2 and gone(ranks), "a stopped rank was left behind"
    assert took < 60  # not the 90 s collective timeout, nor the 120 s watchdog
    events = [json.loads(line) for line in Path(out.run_file or "").read_text().splitlines()]
    log = next(e for e in events if e["event"] == "rank-log")
    assert [p["rank"] for p in log["pulses"]] == [0, 1]
    # rank 0, alive, printed its stacks on SIGUSR1: it waited in a collective
    assert any("Thread 0x" in line or "Current thread 0x" in line for line in log["log"]), log


STUCK = """def patch(module):
    backward = module.autograd.backward

    def stuck(*args, **kwargs):
        if os.environ.get("RANK") == "1" and os.path.exists(MARK):
            while True:
                time.sleep(1)
        return backward(*args, **kwargs)

    module.autograd.backward = stuck
"""


def test_a_rank_stuck_in_its_step(tmp_path: Path) -> None:
    """Rank 1 lives but never reaches the gradients' all-reduce: rank 0's collective times out
    inside it (gloo's own words reach the run log) and the error names rank 1, not rank 0."""
    python = python_with_patched_torch(
        tmp_path / "venv", "_stuck_rank", mark_env="ROCMATE_TEST_STUCK", patch=STUCK,
        doc="Rank 1's backward never returns once the file $ROCMATE_TEST_STUCK exists: a rank "
            "alive (its pulse goes on) but stuck in its step, as on a GPU hang.")
    mark = tmp_path / "stuck-now"

    def strike(_runner: BenchRunner, event: dict[str, Any]) -> None:
        if event["event"] == "step" and event["phase"] == "measure":
            mark.write_text("")

    t0 = time.monotonic()
    out, events = run_worker(
        tiny("resnet50-train", gpus="2", steps=100_000), tmp_path, on_event=strike,
        python=str(python), startup_timeout_s=300, collective_timeout_s=4.0, pulse_s=0.4,
        env={"OMP_NUM_THREADS": "1", "ROCMATE_TEST_STUCK": str(mark)})
    assert out.status == "error" and out.error is not None
    message = out.error["message"]
    assert message.startswith("rank 1 of 2 never reached the collective that the other ranks "
                              "waited in for 4 s: stuck after "), out.error
    assert out.error["cause"] == "collective-timeout" and out.error["stall"] == "behind"
    assert out.error["ranks"] == [1]
    assert "Timed out" in out.error["detail"]  # rank 0's own words
    log = next(e for e in events if e["event"] == "rank-log")
    assert any("Timed out" in line for line in log["log"]), log
    pulses = {p["rank"]: p for p in log["pulses"]}
    assert pulses[0]["collectives"] > pulses[1]["collectives"]
    assert time.monotonic() - t0 < 120


def test_cancel_stops_every_rank(tmp_path: Path) -> None:
    ranks: list[int] = []

    def cancel(runner: BenchRunner, event: dict[str, Any]) -> None:
        if event["event"] == "step" and event["phase"] == "measure" and not ranks:
            assert runner.pid is not None
            ranks.extend(ranks_of(runner.pid))
            runner.cancel()

    out, _ = run_worker(tiny("resnet50-train", gpus="2", steps=100_000), tmp_path,
                        on_event=cancel, startup_timeout_s=300, kill_grace_s=20)
    assert out.status == "cancelled", out.error
    assert len(ranks) == 2 and gone(ranks)


def test_the_worker_refuses_gpus_without_the_launcher() -> None:
    import tempfile

    from core.bench.runner import prepare_worker_root
    with tempfile.TemporaryDirectory() as folder:
        prepare_worker_root(Path(folder))
        done = subprocess.run([PYTHON, "-E", "-m", "core.bench.worker", "--suite",
                               "resnet50-train", "--device", "cpu", "--gpus", "2"],
                              cwd=folder, capture_output=True, text=True, timeout=120,
                              env={**os.environ, "RANK": "", "WORLD_SIZE": ""})
    assert done.returncode == 2
    assert '"--gpus: start the worker through torch.distributed.run' in done.stdout.replace(
        "python -m core.bench.worker: ", "")


def test_options() -> None:
    assert BenchOptions("resnet50-train", gpus="2").problems() == []
    assert BenchOptions("llm-train", device="cuda", gpus="all").problems() == []
    assert BenchOptions("gemm", gpus="2").problems() == [
        "--gpus: only resnet50-train and llm-train have a data-parallel mode"]
    assert BenchOptions("resnet50-train", device="cpu", gpus="all").problems() == [
        "--gpus all counts GPUs: with --device cpu give a number of ranks"]
    for bad in ("0", "65", "two", "-1", "1.5"):
        assert BenchOptions("resnet50-train", gpus=bad).problems() == [
            f"--gpus must be a number from 1 to 64 or all (not {bad!r})"]
    argv = worker_command("/p/python", BenchOptions("llm-train", device="cuda", gpus="all"))
    assert argv[:10] == ["/p/python", "-E", "-B", "-u", "-m", "torch.distributed.run",
                         "--standalone", "--nproc-per-node", "gpu", "-m"]
    assert argv[10:12] == ["core.bench.worker", "--suite"] and argv[-2:] == ["--gpus", "all"]


SUMMARY = """[rank0]: ...
E1203 23:41:07.162000 1234 torch/distributed/elastic/multiprocessing/api.py:882] failed
Traceback (most recent call last):
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
core.bench.worker FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-12-03_23:41:07
  host      : box
  rank      : 1 (local_rank: 1)
  exitcode  : -9 (pid: 20345)
  error_file: <N/A>
  traceback : Signal 9 (SIGKILL) received by PID 20345
============================================================
"""


def test_the_launchers_summary() -> None:
    assert failed_rank(SUMMARY) == (1, -9)
    assert failed_rank("nothing here") is None
    assert failed_rank(SUMMARY.replace("-9 (pid", "3 (pid")) == (1, 3)


def test_the_rank_advice_reads_in_chinese() -> None:
    from core.i18n import set_language, t

    set_language("zh_CN")
    try:
        assert rank_advice(t) != rank_advice()
    finally:
        set_language(None)
    assert sys.platform.startswith("linux")


def test_rocmate_bench_measures_the_scaling(tmp_path: Path) -> None:
    """``rocmate bench --gpus 2``: the one-GPU run first, then two ranks, one report with both
    runs, the scaling line, both runs in the history (a row each, as one report)."""
    import json

    from core.report.history import History

    out = tmp_path / "report.json"
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "core.cli", "bench", "resnet50-train", "--device", "cpu",
         "--size", "tiny", "--steps", "4", "--warmup-steps", "1", "--gpus", "2", "--python",
         PYTHON, "--out", str(out), "--no-telemetry"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "first the same run on one GPU (--gpus 1)" in done.stderr
    assert "Scaling, resnet50-train: 2 processes on the CPU: " in done.stdout
    runs = json.loads(out.read_text())["runs"]
    assert [r["settings"]["gpus"] for r in runs] == ["1", "2"]
    assert [r["result"]["details"]["world_size"] for r in runs] == [1, 2]
    with History(tmp_path / "data" / "rocmate" / "history.sqlite") as history:
        entries = history.list()
        assert len(entries) == 2
        assert len(history.report(entries[0].id).runs) == 2
