"""The per-rank watchdog's judgement (core.bench.ranks): pulses read from files, which rank holds
a data-parallel run up and how, and what of the ranks' words the run log keeps. Real pulse
files as the worker writes them; real timeout texts (NCCL's from a user's log, gloo's from this
machine)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.bench import ranks
from core.bench.ranks import RankPulse, Stall
from core.bench.worker.parallel import Pulse, Ranks

ERRORS = Path(__file__).resolve().parents[1] / "fixtures" / "errors"


def pulse(rank: int, *, steps: int = 5, collectives: int = 20, t: float = 100.0) -> RankPulse:
    return RankPulse(rank=rank, pid=1000 + rank, steps=steps, collectives=collectives, t=t)


def fixture_text(name: str) -> str:
    return "".join(line for line in (ERRORS / name).read_text().splitlines(keepends=True)
                   if not line.startswith("#"))


def test_the_workers_pulse_file_reads_back(tmp_path: Path) -> None:
    beat = Pulse(tmp_path, Ranks(rank=1, world=2, local_rank=1), every_s=0.05)
    beat.steps, beat.collectives = 3, 11
    beat.start()
    time.sleep(0.2)
    beat.stop()
    read = ranks.read_pulses(tmp_path)
    assert list(read) == [1]
    assert read[1].pid == os.getpid() and (read[1].steps, read[1].collectives) == (3, 11)
    assert abs(read[1].t - time.time()) < 5
    assert not list(tmp_path.glob("*.tmp"))  # written whole, then renamed


@pytest.mark.parametrize("text", ["", "{", "[]", '{"rank": 0}', '{"rank": -1, "pid": 5, '
                                  '"steps": 0, "collectives": 0, "t": 1}', "{" * 10_000])
def test_a_broken_pulse_is_none(text: str, tmp_path: Path) -> None:
    assert ranks.parse_pulse(text) is None
    (tmp_path / "rank0.json").write_text(text)
    assert ranks.read_pulses(tmp_path) == {}


def test_process_state() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; print(flush=True); "
                              "time.sleep(60)"], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None
        child.stdout.readline()  # started: a busy machine may still show it loading (D) before
        assert ranks.process_state(child.pid) not in (None, "T", "t")
        os.kill(child.pid, signal.SIGSTOP)
        time.sleep(0.2)
        assert ranks.process_state(child.pid) == "T"
    finally:
        child.kill()
        child.wait()
    assert ranks.process_state(child.pid) is None


def test_a_stopped_rank() -> None:
    pulses = {0: pulse(0, t=130.0), 1: pulse(1, t=112.0)}
    states: dict[int, str | None] = {0: "S", 1: "T"}
    assert ranks.stopped_ranks(pulses, states, now=131.0, silent_after_s=10.0) == (1,)
    assert ranks.stopped_ranks(pulses, states, now=121.0, silent_after_s=10.0) == ()
    stall = ranks.diagnose(pulses, 2, 131.0, states, silent_after_s=10.0)
    assert stall == Stall("stopped", (1,), 2, silent_s=19.0, process_stopped=True)
    assert stall.message(30) == (
        "rank 1 of 2 stopped answering (its process is stopped) and the run was stopped")
    assert stall.fields() == {"stall": "stopped", "ranks": [1]}


def test_a_silent_rank_while_the_others_live() -> None:
    pulses = {0: pulse(0, t=200.0), 1: pulse(1, t=200.0), 2: pulse(2, t=140.0)}
    states: dict[int, str | None] = {0: "S", 1: "S", 2: "D"}
    stall = ranks.diagnose(pulses, 3, 201.0, states, silent_after_s=20.0)
    assert stall is not None and stall.kind == "stopped" and stall.ranks == (2,)
    assert stall.message(180) == (
        "rank 2 of 3 stopped answering (no sign of life for 61 s) and the run was stopped")


def test_a_rank_that_never_started() -> None:
    stall = ranks.diagnose({0: pulse(0, t=50.0)}, 2, 51.0, {0: "S"}, silent_after_s=10.0)
    assert stall == Stall("stopped", (1,), 2, started=False)
    assert stall.message(0) == (
        "rank 1 of 2 stopped answering (it never gave a sign of life) and the run was stopped")


def test_a_gone_rank_is_not_stopped() -> None:
    """A rank whose process has ended is the launcher's news (its summary), not a stall."""
    pulses = {0: pulse(0, t=200.0, collectives=21), 1: pulse(1, t=100.0, collectives=20)}
    stall = ranks.diagnose(pulses, 2, 201.0, {0: "S", 1: None}, silent_after_s=10.0)
    assert stall is not None and stall.kind == "behind" and stall.ranks == (1,)


def test_a_rank_behind() -> None:
    pulses = {0: pulse(0, collectives=41), 1: pulse(1, steps=4, collectives=37),
              2: pulse(2, collectives=41), 3: pulse(3, steps=4, collectives=37)}
    stall = ranks.diagnose(pulses, 4, 101.0)
    assert stall == Stall("behind", (1, 3), 4, step=4)
    assert stall.message(120) == (
        "ranks 1, 3 of 4 never reached the collective that the other ranks waited in for "
        "120 s: stuck after 4 steps (a GPU hang, or a kernel that never ends)")


def test_a_collective_that_never_completes() -> None:
    pulses = {r: pulse(r, collectives=41) for r in range(2)}
    stall = ranks.diagnose(pulses, 2, 101.0, {0: "S", 1: "S"}, silent_after_s=10.0)
    assert stall == Stall("collective", (0, 1), 2)
    assert stall.message(135) == (
        "all 2 ranks waited 135 s in the same collective and it never completed (the link "
        "between the GPUs, or RCCL/NCCL)")


def test_no_pulses_no_judgement() -> None:
    assert ranks.diagnose({}, 2, 1.0) is None


def test_timeouts_are_recognised() -> None:
    nccl = fixture_text("nccl-watchdog-collective-timeout-basicsr-737.txt")
    gloo = fixture_text("gloo-recv-timeout-rocmate-stuck-rank.txt")
    assert ranks.collective_timed_out(nccl) and ranks.collective_timed_out(gloo)
    for other in ("RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] "
                  "Connection closed by peer [127.0.0.1]:29500",
                  "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB",
                  "the worker sent nothing for 180 s and was killed (hung)"):
        assert not ranks.collective_timed_out(other), other


def test_the_run_log_keeps_the_collective_words_and_the_stacks() -> None:
    nccl = fixture_text("nccl-watchdog-collective-timeout-basicsr-737.txt")
    stderr = "\n".join([
        "W1204 04:20:01.000 torch/distributed/run.py:792] Setting OMP_NUM_THREADS",
        nccl,
        "Thread 0x00007f0b5ae2a6c0 (most recent call first):",
        '  File "/usr/lib/python3.11/threading.py", line 331 in wait',
        "",
        "Current thread 0x00007f0b5bc41b80 (most recent call first):",
        '  File "/x/core/bench/worker/parallel.py", line 181 in agree',
        "Traceback (most recent call last):",
        '  File "/x/torch/distributed/run.py", line 1142, in <module>',
    ])
    log = ranks.collective_log(stderr)
    assert log[0].startswith("[rank1]:[E626") and len([x for x in log if "Watchdog" in x]) == 2
    assert '  File "/x/core/bench/worker/parallel.py", line 181 in agree' in log
    assert "Current thread 0x00007f0b5bc41b80 (most recent call first):" in log
    assert not any("run.py\", line 1142" in x or "OMP_NUM_THREADS" in x for x in log)
    assert len(ranks.collective_log("NCCL WARN x\n" * 500)) == ranks.LOG_LINES


def test_pulse_files_as_json(tmp_path: Path) -> None:
    (tmp_path / "rank3.json").write_text(json.dumps(
        {"rank": 3, "world": 4, "pid": 77, "steps": 9, "collectives": 40, "t": 5.5}))
    (tmp_path / "notes.txt").write_text("not a pulse")
    assert ranks.read_pulses(tmp_path) == {3: RankPulse(3, 77, 9, 40, 5.5)}
    assert ranks.read_pulses(tmp_path / "gone") == {}


def test_the_only_rank_stopped() -> None:
    """--gpus 1 (the scaling's baseline): a stopped rank is stopped even with nobody beside it."""
    stall = ranks.diagnose({0: pulse(0, t=100.0)}, 1, 120.0, {0: "T"}, silent_after_s=10.0)
    assert stall is not None and stall.kind == "stopped" and stall.ranks == (0,)
    assert stall.message(0).startswith("rank 0 of 1 stopped answering (its process is stopped)")
