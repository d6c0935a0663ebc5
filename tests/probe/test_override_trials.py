"""The override tester: each value in its own real process, one at a time, and the outcome named
(works, wrong numbers, crashed, hung, no GPU); the first value that works is kept."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.operations.errors import OperationError
from core.operations.machine import check_machine
from core.operations.setup import override_candidates, try_overrides
from core.probe.override_trial import Trial, run_trial
from core.system import LiveSystem

ROOT = Path(__file__).resolve().parents[2]
STANDIN = str(ROOT / "tests" / "fixtures" / "standin" / "override-python")
MACHINES = ROOT / "tests" / "fixtures" / "machines"


@pytest.mark.slow  # a real worker or app process: not in make check
def test_each_outcome_is_told_apart() -> None:
    system = LiveSystem()
    outcomes = {value: run_trial(system, STANDIN, value, timeout=3).outcome
                for value in ("10.3.0", "11.0.0", "9.0.0", "10.1.0", None)}
    assert outcomes == {"10.3.0": "works", "11.0.0": "wrong", "9.0.0": "crashed",
                        "10.1.0": "hung", None: "no-gpu"}


def test_the_first_working_value_is_kept_and_values_run_one_at_a_time() -> None:
    heard: list[tuple[str | None, float]] = []
    start = time.monotonic()

    def on_trial(trial: Trial) -> None:
        heard.append((trial.value, time.monotonic() - start))

    trials = try_overrides(None, STANDIN, values=["11.0.0", "9.0.0", "10.3.0", None],
                           timeout=3, on_trial=on_trial)
    assert [t.outcome for t in trials.trials] == ["wrong", "crashed", "works", "no-gpu"]
    assert trials.best is not None and trials.best.value == "10.3.0"
    assert [v for v, _ in heard] == ["11.0.0", "9.0.0", "10.3.0", None]
    assert "SIGSEGV" in trials.trials[1].detail


def test_the_knowledge_bases_value_comes_first_then_the_current_then_none() -> None:
    report = check_machine(MACHINES / "rx7900xtx-override-wrong-bashrc", probe_torch=False)
    assert override_candidates(report) == ["10.3.0", None]  # gfx1100 needs none; 10.3.0 is set
    report = check_machine(MACHINES / "rx6700xt-ubuntu2204-needs-override", probe_torch=False)
    assert override_candidates(report)[0] == "10.3.0" and override_candidates(report)[-1] is None


def test_a_replayed_machine_runs_nothing() -> None:
    with pytest.raises(OperationError, match="replayed machine runs nothing"):
        try_overrides(MACHINES / "rx6700xt-ubuntu2204-needs-override", STANDIN)


def test_without_an_amd_card_nothing_is_tried_and_nothing_is_warned() -> None:
    """Issue 30/10: on a machine without an AMD GPU (this one) the command tried anyway."""
    for extra in ([], ["--json"]):
        out = subprocess.run([sys.executable, "-m", "core.cli", "doctor", "--try-overrides",
                              "--python", STANDIN, *extra], cwd=ROOT, capture_output=True,
                             text=True, timeout=120, check=False)
        assert out.returncode == 1 and out.stdout == ""
        assert out.stderr == "rocmate: there is no AMD GPU here to try HSA_OVERRIDE_GFX_VERSION " \
                             "on (rocmate doctor says what it found)\n"


def test_a_replay_is_refused_before_any_warning() -> None:
    out = subprocess.run([sys.executable, "-m", "core.cli", "doctor", "--try-overrides", "--root",
                          str(MACHINES / "rx6700xt-ubuntu2204-needs-override")], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == "rocmate: a replayed machine runs nothing: try overrides on the " \
                         "machine itself\n"  # no "save your work" first


def test_the_trials_as_json() -> None:
    started: list[bool] = []
    trials = try_overrides(None, STANDIN, values=["11.0.0", "10.3.0", None], timeout=3,
                           on_start=lambda: started.append(True))
    answer = json.loads(json.dumps(trials.to_json()))
    assert started == [True] and answer["schema"] == "rocmate.override-trials/1"
    assert [(t["value"], t["outcome"]) for t in answer["trials"]] == [
        ("11.0.0", "wrong"), ("10.3.0", "works"), (None, "no-gpu")]
    assert answer["works"] is True and answer["best"] == "10.3.0"
    assert answer["python"] == STANDIN


def test_the_value_kept_is_written_through_the_plans_environment_steps(tmp_path: Path) -> None:
    import asyncio

    from core.operations.setup import keep_override

    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    for name in ("activate", "activate.fish", "activate.csh"):
        (venv / "bin" / name).write_text("# activation\n")
    machine = MACHINES / "rx6700xt-ubuntu2204-needs-override"
    result = asyncio.run(keep_override("10.3.1", machine, venv=str(venv),
                                       folder=tmp_path / "state"))
    assert result.ok
    script = (venv / "bin" / "rocmate-env.sh").read_text()
    assert "HSA_OVERRIDE_GFX_VERSION-10.3.1" in script
    none = asyncio.run(keep_override("", machine, venv=str(venv), folder=tmp_path / "state"))
    assert none.ok and "HSA_OVERRIDE_GFX_VERSION" not in (venv / "bin" / "rocmate-env.sh"
                                                          ).read_text()
    with pytest.raises(OperationError, match="not an HSA_OVERRIDE_GFX_VERSION value"):
        asyncio.run(keep_override("ten", machine, venv=str(venv), folder=tmp_path / "state"))
