"""The Benchmark page's choices: sized to the card's memory, timed, turned into worker options,
and a sequence of suites run for real on the CPU (tiny) into one report."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from core.operations.benchmark import BenchmarkRequest
from core.operations.errors import OperationError
from core.operations.suites import (
    GB,
    Settings,
    SuiteSequence,
    load_table,
    options_for,
    plan_choices,
    size_choice,
)
from core.report.history import History


def by_key(memory: float | None, **kw: Any) -> dict[str, Any]:
    return {p.choice.key: p for p in plan_choices(int(memory * GB) if memory else None, **kw)}


def test_every_choice_has_a_source_and_runs_known_suites() -> None:
    from core.bench.worker.protocol import SUITES

    table = load_table()
    assert [c.key for c in table.choices] == ["health", "resnet50-train", "sd15-infer",
                                               "llm-train", "llm-infer"]
    for choice in table.choices:
        assert choice.source and choice.title and choice.what
        assert set(choice.suites) <= set(SUITES)
        assert choice.seconds_tiny < choice.seconds_gpu


@pytest.mark.parametrize(("gb", "batch"), [(4, 32), (8, 64), (12, 128), (16, 128), (24, 256),
                                           (141, 256)])
def test_resnet_batch_is_the_largest_that_fits(gb: float, batch: int) -> None:
    plan = by_key(gb)["resnet50-train"]
    assert plan.batch_size == batch
    choice = plan.choice
    assert choice.fixed_gb + choice.per_item_gb * batch <= gb * load_table().fit_fraction
    assert plan.warning is None


def test_too_little_memory_is_said() -> None:
    plans = by_key(1.5)
    assert plans["resnet50-train"].batch_size == 8 and plans["resnet50-train"].warning
    assert "may run out" in (plans["sd15-infer"].warning or "")
    assert by_key(8)["sd15-infer"].warning is None
    assert "needs about 3 GiB" in (plans["llm-infer"].warning or "")
    assert by_key(4)["llm-infer"].warning is None  # the 1b preset fits


def test_unknown_memory_keeps_the_suite_default() -> None:
    plan = by_key(None)["resnet50-train"]
    assert plan.batch_size == 64 and "not known" in plan.why


def test_cpu_and_tiny_leave_the_batch_to_the_suite() -> None:
    for plan in plan_choices(8 * 10**9, gpu=False):
        assert plan.batch_size is None and plan.first_run_extra_s == 0
        assert plan.estimate_s == plan.choice.seconds_tiny


def test_options_follow_the_settings() -> None:
    health = by_key(16)["health"]
    opts = options_for(health, Settings(device="cpu", size="tiny", steps=3, batch_size=99))
    assert [o.suite for o in opts] == ["gemm", "bandwidth"]
    assert all(o.batch_size is None and o.steps == 3 and o.device == "cpu" for o in opts)
    resnet = by_key(16)["resnet50-train"]
    (o,) = options_for(resnet, Settings(precision="fp32", channels_last=True, compile=True))
    assert (o.batch_size, o.precision, o.channels_last, o.compile) == (128, "fp32", True, True)
    (o,) = options_for(resnet, Settings(batch_size=7))
    assert o.batch_size == 7
    sd = size_choice(load_table().choices[2], None)
    (o,) = options_for(sd, Settings(model="/x.safetensors"))
    assert o.model == "/x.safetensors" and not o.channels_last


@pytest.mark.slow  # a real worker or app process: not in make check
def test_a_sequence_runs_each_suite_into_one_report(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    health = by_key(None, gpu=False, tiny=True)["health"]
    settings = Settings(device="cpu", size="tiny", steps=3)
    db = tmp_path / "h.sqlite"
    requests = [BenchmarkRequest(o, python=sys.executable, history_path=db, telemetry=False)
                for o in options_for(health, settings)]
    started: list[str] = []
    events: list[dict[str, Any]] = []
    sequence = SuiteSequence(requests, on_event=events.append,
                             on_start=lambda i, run: started.append(run.request.options.suite))
    result = asyncio.run(sequence.run())
    assert started == ["gemm", "bandwidth"] and result.status == "ok"
    assert [r.suite for r in result.report.runs] == ["gemm", "bandwidth"]
    assert len(result.history_ids) == 2
    with History(db) as history:
        assert {e.suite for e in history.list()} == {"gemm", "bandwidth"}
    assert sum(e["event"] == "step" for e in events) == sum(
        len(r.steps) for r in result.report.runs)


def test_a_sequence_refuses_bad_options_before_starting() -> None:
    health = by_key(None)["health"]
    requests = [BenchmarkRequest(o, watchdog_s=-1) for o in options_for(health, Settings())]
    with pytest.raises(OperationError, match="--watchdog"):
        SuiteSequence(requests)
    with pytest.raises(OperationError, match="at least one"):
        SuiteSequence([])
