"""``rocmate tune``: the variant table, where each variant applies, the ranking and its noise
rule, a real tiny tune on the CPU (each variant a real worker through the real runner, one of
them refused by the worker for real), keep and undo through the plan's environment steps, and
the command line."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from core.bench.tune_rank import DEFAULT, Measured, rank
from core.bench.tune_variants import Variant, applicability, load_variants
from core.bench.worker.options import BenchOptions
from core.operations.errors import OperationError
from core.operations.tune import (
    TUNE_SUITES,
    TuneEvent,
    TuneRequest,
    TuneResult,
    TuneRun,
    VariantPlan,
    keep_tuned,
    measure_seconds,
    undo_path,
    undo_tuned,
)
from core.probe.environment import TUNED, parse_env_script

PYTHON = sys.executable  # the test set-up's .venv holds torch and torchvision
MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
BY_ID = {v.id: v for v in load_variants()}


# -- the table -------------------------------------------------------------------------------


def test_every_variant_names_its_source_and_only_variables_tune_may_keep() -> None:
    assert len(BY_ID) >= 9
    for variant in BY_ID.values():
        assert re.search(r"https://|[\w-]+/[\w.-]+#\d+", variant.source), variant.id
        assert set(variant.suites) <= set(TUNE_SUITES)
        assert set(variant.kept_env("/v")) <= set(TUNED), variant.id
    assert BY_ID["tunableop"].kept_env("/home/a/venv") == {
        "PYTORCH_TUNABLEOP_ENABLED": "1",
        "PYTORCH_TUNABLEOP_FILENAME": "/home/a/venv/tunableop_results.csv"}


def _applies(vid: str, suite: str, platform: str, gfx: str | None) -> tuple[bool, str]:
    base = BenchOptions(suite=suite, device="cpu" if platform == "cpu" else "cuda:0")
    found = applicability(BY_ID[vid], suite, platform, gfx, base)
    return found.applies, found.code


def test_where_each_variant_applies() -> None:
    assert _applies("aotriton-experimental", "sd15-infer", "rocm", "gfx1101") == (True, "")
    assert _applies("aotriton-experimental", "sd15-infer", "rocm", "gfx942") == (False, "family")
    assert _applies("aotriton-experimental", "resnet50-train", "rocm", "gfx1101") == (
        False, "suite")
    assert _applies("hipblaslt-on", "llm-train", "rocm", "gfx942") == (False, "default")
    assert _applies("hipblaslt-on", "llm-train", "rocm", "gfx1100") == (True, "")
    assert _applies("hipblaslt-off", "llm-train", "rocm", "gfx90a:sramecc+:xnack-") == (True, "")
    assert _applies("tunableop", "resnet50-train", "cuda", None) == (True, "")
    assert _applies("miopen-find-fast", "resnet50-train", "cuda", None) == (False, "platform")
    assert _applies("fp16", "resnet50-train", "cpu", None) == (False, "platform")
    # llm-train runs amp-bf16 on a GPU already; on the CPU it runs fp32, so bf16 is a change
    assert _applies("bf16", "llm-train", "rocm", "gfx1100") == (False, "default")
    assert _applies("bf16", "llm-train", "cpu", None) == (True, "")
    assert _applies("compile", "llm-infer", "rocm", "gfx1100") == (False, "suite")


def test_the_measured_time_is_sized_to_the_budget() -> None:
    assert measure_seconds(300, 8) == 15.0
    assert measure_seconds(300, 2) == 20.0  # never longer than 20 s
    assert measure_seconds(5, 4) == 1.0  # never shorter than 1 s


# -- the ranking, with figures recorded from a real tune ---------------------------------------
# `rocmate tune resnet50-train --device cpu --size tiny --budget 40` on this project's shared
# 2-core test machine, 2026-12-04 (images/s, median and CV of the measured steps).
RECORDED = [
    Measured(DEFAULT, "ok", "throughput", "images/s", 51.72, 0.529),
    Measured("bf16", "ok", "throughput", "images/s", 185.8, 0.152, settled=False),
    Measured("channels-last", "ok", "throughput", "images/s", 135.1, 0.399, settled=False),
    Measured("compile", "ok", "throughput", "images/s", 97.77, 0.143, settled=False),
]


def test_a_gain_larger_than_both_spreads_is_a_clear_winner() -> None:
    ranking = rank([*RECORDED, Measured("fp16", "not-applicable", reason="only for ROCm")])
    assert [r.variant for r in ranking.rows] == ["bf16", "channels-last", "compile", DEFAULT,
                                                 "fp16"]
    assert ranking.winner == "bf16" and ranking.clear
    assert ranking.gain == pytest.approx(185.8 / 51.72 - 1)
    assert ranking.noise == pytest.approx(0.152 + 0.529)
    row = ranking.row("channels-last")
    assert row is not None and row.vs_default == pytest.approx(135.1 / 51.72 - 1)


def test_a_gap_inside_the_noise_is_no_clear_winner() -> None:
    rows = [Measured(DEFAULT, "ok", "throughput", "images/s", 100.0, 0.05),
            Measured("channels-last", "ok", "throughput", "images/s", 106.0, 0.04)]
    ranking = rank(rows)
    assert ranking.winner == "channels-last" and not ranking.clear  # 6 % < 5 % + 4 %
    unknown = rank([rows[0], Measured("bf16", "ok", "throughput", "images/s", 200.0, None)])
    assert unknown.winner == "bf16" and not unknown.clear  # one step: spread not known


def test_lower_is_better_figures_rank_the_other_way() -> None:
    rows = [Measured(DEFAULT, "ok", "s_per_image", "s", 2.0, 0.01, higher_is_better=False),
            Measured("compile", "ok", "s_per_image", "s", 1.5, 0.01, higher_is_better=False)]
    ranking = rank(rows)
    assert ranking.winner == "compile" and ranking.gain == pytest.approx(2.0 / 1.5 - 1)


def test_failed_and_skipped_variants_keep_their_rows_after_the_measured_ones() -> None:
    rows = [Measured("tunableop", "failed", error_kind="oom", reason="HIP out of memory"),
            Measured("compile", "not-run", reason="the time budget ran out"),
            *RECORDED[:2]]
    ranking = rank(rows)
    assert [(r.variant, r.state) for r in ranking.rows] == [
        ("bf16", "ok"), (DEFAULT, "ok"), ("tunableop", "failed"), ("compile", "not-run")]
    failed = ranking.row("tunableop")
    assert failed is not None and failed.reason == "HIP out of memory"


def test_defaults_that_beat_every_variant_win() -> None:
    ranking = rank([RECORDED[0], Measured("compile", "ok", "throughput", "images/s", 40.0,
                                          0.1)])
    assert ranking.winner == DEFAULT and not ranking.clear and ranking.gain == 0.0


# -- a real tiny tune on the CPU --------------------------------------------------------------

REFUSED = Variant(id="precision-typo", title="a precision the worker does not know",
                  why="a real failure for the test", source="this test",
                  options={"precision": "amp-fp17"}, suites=("resnet50-train",))


def test_a_tiny_cpu_tune_measures_each_variant_in_its_own_worker() -> None:
    events: list[TuneEvent] = []
    # a budget the three runs fit in even on a busy machine: each measures 1 s (measure_s)
    request = TuneRequest("resnet50-train", budget_s=900, device="cpu", size="tiny",
                          python=PYTHON, measure_s=1.0,
                          variants=(BY_ID["channels-last"], BY_ID["hipblaslt-on"], REFUSED))
    result = asyncio.run(TuneRun(request, events.append).run())
    states = {r.variant: r for r in result.ranking.rows}
    assert states[DEFAULT].state == "ok" and states[DEFAULT].unit == "images/s"
    assert states["channels-last"].state == "ok" and (states["channels-last"].median or 0) > 0
    assert states["channels-last"].vs_default is not None
    refused = states["precision-typo"]
    assert refused.state == "failed" and "amp-fp17" in (refused.reason or "")
    assert states["hipblaslt-on"].state == "not-applicable"
    assert states["hipblaslt-on"].reason == "only for ROCm"
    assert result.platform == "cpu" and result.gfx is None
    kinds = [(e.kind, e.variant) for e in events]
    assert kinds[:3] == [("start", DEFAULT), ("plan", DEFAULT), ("done", DEFAULT)]
    assert ("start", "channels-last") in kinds and ("done", "precision-typo") in kinds
    assert all(e.total == 3 for e in events[1:])  # the defaults and the two that apply
    answer = json.loads(json.dumps(result.to_json()))
    assert answer["schema"] == "rocmate.tune/1" and answer["measure_s"] == 1.0
    assert {r["variant"] for r in answer["rows"]} == {DEFAULT, "channels-last", "hipblaslt-on",
                                                      "precision-typo"}


def test_a_variable_the_defaults_already_have_is_not_measured_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MIOPEN_FIND_MODE", "FAST")  # exported by the user's shell
    run = TuneRun(TuneRequest("resnet50-train", python=PYTHON))
    plans = {p.variant.id: p.applies for p in run._plans("rocm", "gfx1100")}
    assert (plans["miopen-find-fast"].applies, plans["miopen-find-fast"].code) == (False,
                                                                                  "default")
    assert plans["miopen-find-normal"].applies


def test_tunableops_results_go_into_the_tunes_own_folder(tmp_path: Path) -> None:
    run = TuneRun(TuneRequest("llm-infer", python=PYTHON))
    env = run.worker_env(BY_ID["tunableop"], tmp_path)
    assert env["PYTORCH_TUNABLEOP_ENABLED"] == "1" and env["PYTORCH_TUNABLEOP_TUNING"] == "1"
    assert env["PYTORCH_TUNABLEOP_FILENAME"] == str(tmp_path / "tunableop-tunableop_results.csv")
    assert "PYTORCH_TUNABLEOP_FILENAME" not in run.worker_env(BY_ID["hipblaslt-on"], tmp_path)
    assert run.worker_env(None, tmp_path) == run.card_variables


def test_a_request_that_cannot_run_is_refused_before_anything_starts() -> None:
    with pytest.raises(OperationError, match="rocmate tune measures"):
        TuneRun(TuneRequest("gemm", python=PYTHON))
    with pytest.raises(OperationError, match="no such variant: nope"):
        TuneRun(TuneRequest("llm-infer", python=PYTHON, only=("nope",)))


# -- keep and undo ----------------------------------------------------------------------------


def _result(winner: str, gain_rows: list[Measured] | None = None) -> TuneResult:
    rows = gain_rows or [Measured(DEFAULT, "ok", "throughput", "images/s", 100.0, 0.01),
                         Measured(winner, "ok", "throughput", "images/s", 130.0, 0.01)]
    plans = tuple(VariantPlan(v, applicability(v, "resnet50-train", "rocm", "gfx1030",
                                               BenchOptions(suite="resnet50-train")))
                  for v in BY_ID.values())
    return TuneResult("resnet50-train", 300, 10, 60, "/x/venv/bin/python", "rocm", "gfx1030",
                      "AMD Radeon RX 6700 XT", BenchOptions(suite="resnet50-train"), plans,
                      rank(rows))


@pytest.fixture
def venv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    folder = tmp_path / "venv"
    (folder / "bin").mkdir(parents=True)
    for name in ("activate", "activate.fish", "activate.csh"):
        (folder / "bin" / name).write_text("# activation\n")
    return folder


def test_keep_writes_the_winners_variables_and_undo_takes_them_back(
        venv: Path, tmp_path: Path) -> None:
    machine = MACHINES / "rx6700xt-ubuntu2204-needs-override"
    script = venv / "bin" / "rocmate-env.sh"
    state = tmp_path / "state"
    first = asyncio.run(keep_tuned(_result("tunableop"), machine, venv=str(venv), folder=state))
    assert first.ok and first.before == {}
    assert parse_env_script(script.read_text())["PYTORCH_TUNABLEOP_FILENAME"] == (
        f"{venv}/tunableop_results.csv")
    second = asyncio.run(keep_tuned(_result("hipblaslt-on"), machine, venv=str(venv),
                                    folder=state))
    assert second.ok and set(second.before) == {"PYTORCH_TUNABLEOP_ENABLED",
                                                "PYTORCH_TUNABLEOP_FILENAME"}
    now = parse_env_script(script.read_text())
    assert now["TORCH_BLAS_PREFER_HIPBLASLT"] == "1" and now["PYTORCH_TUNABLEOP_ENABLED"] == "1"
    assert "HSA_OVERRIDE_GFX_VERSION" in now  # the card's own variables stay
    fish = (venv / "bin" / "rocmate-env.fish").read_text()
    assert "TORCH_BLAS_PREFER_HIPBLASLT" in fish
    record = json.loads(undo_path().read_text())
    assert record["schema"] == "rocmate.tune-undo/1" and record["venv"] == str(venv)
    undone = asyncio.run(undo_tuned(machine, folder=state))
    assert undone.ok
    back = parse_env_script(script.read_text())
    assert "TORCH_BLAS_PREFER_HIPBLASLT" not in back and back["PYTORCH_TUNABLEOP_ENABLED"] == "1"
    assert not undo_path().exists()
    with pytest.raises(OperationError, match="nothing to undo"):
        asyncio.run(undo_tuned(machine, folder=state))


def test_an_option_winner_writes_nothing_and_says_the_bench_options(venv: Path) -> None:
    kept = asyncio.run(keep_tuned(_result("channels-last"), MACHINES /
                                  "rx6700xt-ubuntu2204-needs-override", venv=str(venv)))
    assert kept.ok and kept.written == {} and kept.options == ["--channels-last"]
    assert not (venv / "bin" / "rocmate-env.sh").exists()


# -- the command line -------------------------------------------------------------------------


def _rocmate(*args: str, env_home: Path) -> subprocess.CompletedProcess[str]:
    import os

    env = {**os.environ, "XDG_DATA_HOME": str(env_home), "LANG": "C.UTF-8", "LANGUAGE": ""}
    return subprocess.run([sys.executable, "-m", "core.cli", *args], capture_output=True,
                          text=True, env=env, timeout=300, check=False)


def test_the_command_line_tunes_and_prints_json(tmp_path: Path) -> None:
    done = _rocmate("tune", "resnet50-train", "--device", "cpu", "--size", "tiny", "--budget",
                    "1", "--only", "hipblaslt-on,channels-last", "--python", PYTHON, "--json",
                    env_home=tmp_path)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["schema"] == "rocmate.tune/1" and answer["platform"] == "cpu"
    states = {r["variant"]: r["state"] for r in answer["rows"]}
    assert states == {DEFAULT: "ok", "channels-last": "not-run",
                      "hipblaslt-on": "not-applicable"}
    budget = next(r for r in answer["rows"] if r["variant"] == "channels-last")
    assert budget["reason"] == "the time budget ran out" and answer["winner"] == DEFAULT
    assert "Budget 0:01" in done.stderr and "[1/2] today's defaults" in done.stderr


def test_the_command_line_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    assert _rocmate("tune", env_home=tmp_path).returncode == 2
    assert _rocmate("tune", "gemm", env_home=tmp_path).returncode == 2
    undo = _rocmate("tune", "--undo", env_home=tmp_path)
    assert undo.returncode == 1 and "nothing to undo" in undo.stderr
    bad = _rocmate("tune", "llm-infer", "--budget", "-5", env_home=tmp_path)
    assert bad.returncode == 2 and "--budget must be a positive" in bad.stderr


def test_a_later_plan_keeps_the_kept_variables_and_refuses_others() -> None:
    from dataclasses import replace

    from core.install.planner import Choices, PlanError, make_plan
    from core.knowledge.loader import load_knowledge
    from core.operations.setup import plan_facts

    facts = plan_facts(MACHINES / "rx6700xt-ubuntu2204-needs-override", probe_torch=False)
    kept = replace(facts, environment=replace(facts.environment, applied={
        "TORCH_BLAS_PREFER_HIPBLASLT": "1", "HSA_OVERRIDE_GFX_VERSION": "10.3.0"}))
    kb = load_knowledge()
    assert make_plan(kept, kb).env["TORCH_BLAS_PREFER_HIPBLASLT"] == "1"  # carried over
    assert "TORCH_BLAS_PREFER_HIPBLASLT" not in make_plan(kept, kb, Choices(tuned=())).env
    chosen = make_plan(facts, kb, Choices(tuned=(("MIOPEN_FIND_MODE", "FAST"),))).env
    assert chosen["MIOPEN_FIND_MODE"] == "FAST" and "HSA_OVERRIDE_GFX_VERSION" in chosen
    with pytest.raises(PlanError, match="LD_PRELOAD: not a variable rocmate tune keeps"):
        make_plan(facts, kb, Choices(tuned=(("LD_PRELOAD", "/tmp/x.so"),)))
