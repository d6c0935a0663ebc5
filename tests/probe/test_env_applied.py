"""The variables ``rocmate install`` writes into its environment's ``bin/rocmate-env.sh`` reach
what rocmate runs in that environment's Python (the torch probe, a benchmark) and count in the
doctor's findings; a value the user's own shell sets still wins."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from core.diagnose.doctor import run_doctor
from core.install.planner import Choices, make_plan
from core.knowledge.loader import load_knowledge
from core.operations.machine import take_snapshot
from core.probe.environment import applied, applied_env, parse_env_script, script_unsets
from core.probe.torch import run_torch_probe
from core.report.model import from_json
from core.system import LiveSystem, SnapshotSystem
from tests.bench.helpers import PYTHON
from tests.bench.test_cli import bench

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
MACHINE = MACHINES / "rx6700xt-ubuntu2204-needs-override"  # gfx1031: needs 10.3.0
VENV_BIN = "files/home/alice/.local/share/rocmate/venv/bin"


def planned_env_script() -> str:
    """What the planner writes into rocmate-env.sh for that machine."""
    facts = run_doctor(SnapshotSystem(MACHINE), probe_torch=False).facts
    plan = make_plan(facts, load_knowledge(), Choices())
    spec = next(s.file for s in plan.steps if s.id == "env-file")
    assert spec is not None and spec.path.endswith("/bin/rocmate-env.sh")
    return spec.content


def test_the_parser_reads_what_the_planner_writes() -> None:
    env = parse_env_script(planned_env_script())
    assert env["HSA_OVERRIDE_GFX_VERSION"] == "10.3.0"
    assert env["PYTORCH_HIP_ALLOC_CONF"].startswith("expandable_segments:")


def test_the_parser_takes_plain_values_of_watched_variables_only() -> None:
    text = (
        'export HSA_OVERRIDE_GFX_VERSION="$(id)"\n'
        'export HIP_VISIBLE_DEVICES="\x1b]0;owned\x07"\n'
        'export PATH="/tmp/evil:$PATH"\n'
        "export LD_LIBRARY_PATH=/tmp/evil\n"  # watched by the doctor, but never applied
        "# export PYTORCH_HIP_ALLOC_CONF=x\n"
        'export HSA_OVERRIDE_GFX_VERSION_1="${HSA_OVERRIDE_GFX_VERSION_1-11.0.0}"\n'
        'export HIP_VISIBLE_DEVICES="${OTHER-1}"\n'  # a default of another variable: no
    )
    assert parse_env_script(text) == {"HSA_OVERRIDE_GFX_VERSION_1": "11.0.0"}


def installed(tmp_path: Path, env: dict[str, str] | None = None) -> Path:
    """The recorded machine after ``rocmate install``: its managed environment holds the
    planned rocmate-env.sh (and, optionally, the user's shell exports more)."""
    root = tmp_path / "machine"
    shutil.copytree(MACHINE, root, symlinks=True)
    venv_bin = root / VENV_BIN
    venv_bin.mkdir(parents=True)
    (venv_bin / "python").write_text("")
    (venv_bin / "rocmate-env.sh").write_text(planned_env_script())
    if env:
        recorded = json.loads((root / "env.json").read_text())
        (root / "env.json").write_text(json.dumps(recorded | env))
    return root


def findings(root: Path) -> dict[str, dict[str, str]]:
    return {f["id"]: f for f in run_doctor(SnapshotSystem(root)).to_json()["findings"]}


def test_the_doctor_counts_the_override_rocmate_wrote(tmp_path: Path) -> None:
    before = findings(MACHINE)
    assert "gfx-needs-override" in before and "override-ok" not in before
    after = findings(installed(tmp_path))
    assert "gfx-needs-override" not in after
    ok = after["override-ok"]
    assert ok["title"].startswith("HSA_OVERRIDE_GFX_VERSION=10.3.0 is set for")
    assert "/home/alice/.local/share/rocmate/venv/bin/rocmate-env.sh" in ok["detail"]


def test_the_users_own_value_wins_and_is_named(tmp_path: Path) -> None:
    found = findings(installed(tmp_path, {"HSA_OVERRIDE_GFX_VERSION": "11.0.0"}))
    assert "override-ok" not in found
    wrong = found["override-wrong"]
    assert "HSA_OVERRIDE_GFX_VERSION=11.0.0" in wrong["title"]


def _with_script(root: Path, text: str) -> Path:
    (root / VENV_BIN / "rocmate-env.sh").write_text(text)
    return root


def test_a_wrong_value_in_the_environment_names_the_file(tmp_path: Path) -> None:
    root = _with_script(installed(tmp_path), 'export HSA_OVERRIDE_GFX_VERSION="11.0.0"\n')
    wrong = findings(root)["override-wrong"]
    assert "rocmate-env.sh line 1" in wrong["detail"]
    assert "run rocmate install again" in wrong["fix"] and "rocmate-env.sh" in wrong["fix"]


def test_devices_hidden_by_the_environment_say_where(tmp_path: Path) -> None:
    root = _with_script(installed(tmp_path), 'export HIP_VISIBLE_DEVICES="5"\n')
    hides = findings(root)["hip-visible-devices-hides"]
    assert hides["title"].startswith("HIP_VISIBLE_DEVICES=5 hides")
    assert "unset" not in hides["fix"] and "rocmate-env.sh" in hides["fix"]


def test_the_doctor_json_says_what_the_environment_applies(tmp_path: Path) -> None:
    env = run_doctor(SnapshotSystem(installed(tmp_path))).facts.environment
    assert env.applied["HSA_OVERRIDE_GFX_VERSION"] == "10.3.0"
    assert env.values.get("HSA_OVERRIDE_GFX_VERSION") is None  # this process does not have it
    assert env.to_json()["applied_from"] == (
        "/home/alice/.local/share/rocmate/venv/bin/rocmate-env.sh")


# --- live: a real environment folder, real processes -------------------------------------------


def test_a_snapshot_keeps_only_the_variables_and_replays_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HSA_OVERRIDE_GFX_VERSION", raising=False)
    exe = fake_venv(tmp_path)
    script = exe.parent / "rocmate-env.sh"
    script.write_text(script.read_text() + "export HF_TOKEN=hf_secret_value\n")
    out = tmp_path / "snap"
    take_snapshot(out, python=str(exe), probe_torch=False)
    kept = (out / "files" / str(script).lstrip("/")).read_text()
    assert "hf_secret" not in kept and "HSA_OVERRIDE_GFX_VERSION=10.3.0" in kept
    live = run_doctor(LiveSystem(), python=str(exe), probe_torch=False).facts.environment
    replay = run_doctor(SnapshotSystem(out), python=str(exe),
                        probe_torch=False).facts.environment
    assert replay.applied == live.applied and replay.applied["HSA_OVERRIDE_GFX_VERSION"] == "10.3.0"


def fake_venv(tmp_path: Path, like: str | None = None) -> Path:
    """An environment folder with rocmate-env.sh in its bin. With ``like`` (a venv's python) it
    is a working venv sharing that one's packages; without, its ``python`` is a script that
    answers as the torch probe does, with the override it sees."""
    venv = tmp_path / "venv"
    venv_bin = venv / "bin"
    venv_bin.mkdir(parents=True)
    exe = venv_bin / "python"
    if like:
        source = Path(like).parent.parent
        shutil.copy(source / "pyvenv.cfg", venv / "pyvenv.cfg")
        (venv / "lib").symlink_to(source / "lib")
        exe.symlink_to(os.path.realpath(like))
    else:
        exe.write_text('#!/bin/sh\nprintf \'{"python": "fake", "version": "%s", '
                       '"available": false}\\n\' "${HSA_OVERRIDE_GFX_VERSION:-unset}"\n')
        exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    (venv_bin / "rocmate-env.sh").write_text(planned_env_script())
    return exe


def test_the_torch_probe_runs_with_the_environments_variables(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HSA_OVERRIDE_GFX_VERSION", raising=False)
    exe = fake_venv(tmp_path)
    answer = run_torch_probe(LiveSystem(), str(exe), timeout=20)
    assert answer is not None and answer["version"] == "10.3.0"
    monkeypatch.setenv("HSA_OVERRIDE_GFX_VERSION", "11.0.0")  # the user's shell has its own
    answer = run_torch_probe(LiveSystem(), str(exe), timeout=20)
    assert answer is not None and answer["version"] == "11.0.0"
    assert applied_env(LiveSystem(), "python3") == (None, {})  # no environment folder: nothing


def test_a_benchmark_runs_with_the_environments_variables(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))  # history and run file
    monkeypatch.delenv("HSA_OVERRIDE_GFX_VERSION", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    exe = fake_venv(tmp_path, PYTHON)
    out = tmp_path / "r.json"
    rc = bench("gemm", "--python", str(exe), "--device", "cpu", "--size", "tiny", "--steps", "1",
               "--warmup-steps", "1", "--no-telemetry", "--out", str(out))
    cap = capsys.readouterr()
    assert rc == 0, cap.out + cap.err
    assert "with HSA_OVERRIDE_GFX_VERSION=10.3.0" in cap.err and "rocmate-env.sh" in cap.err
    report = from_json(out.read_text())
    assert report.software.env["HSA_OVERRIDE_GFX_VERSION"] == "10.3.0"  # what the worker saw


# --- as sourcing the file would: forced lines, unset lines, every variable the plan writes ----

RX580_BESIDE = MACHINES / "rx7800xt-rx580-debian13-rocm72"  # ROCm/legacy-rocm-build#5942
HIDDEN_BY_EXPORT = MACHINES / "hip-visible-devices-hides-qemu-vm"


def _planned(machine: Path) -> str:
    facts = run_doctor(SnapshotSystem(machine), probe_torch=False).facts
    plan = make_plan(facts, load_knowledge(), Choices())
    spec = next(s.file for s in plan.steps if s.id == "env-file")
    assert spec is not None
    return spec.content


def test_every_variable_the_plan_writes_is_applied() -> None:
    """The RX 580 beside an RX 7800 XT: the plan writes ROCR_VISIBLE_DEVICES=1 so that ROCm
    starts at all; rocmate's own runs (the kernel check, a benchmark) must get it too."""
    text = _planned(RX580_BESIDE)
    assert 'ROCR_VISIBLE_DEVICES="${ROCR_VISIBLE_DEVICES-1}"' in text
    assert parse_env_script(text)["ROCR_VISIBLE_DEVICES"] == "1"


def test_the_plan_unsets_a_stale_export_and_runs_follow(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The plan's `unset HIP_VISIBLE_DEVICES` (the doctor found the exported value hides the
    GPU) reaches rocmate's runs in the shell that still has the export until a new login."""
    text = _planned(HIDDEN_BY_EXPORT)
    assert "unset HIP_VISIBLE_DEVICES" in text.splitlines()
    assert script_unsets(text) == ["HIP_VISIBLE_DEVICES"]
    exe = fake_venv(tmp_path)
    exe.write_text('#!/bin/sh\nprintf \'{"python": "fake", "version": "%s", '
                   '"available": false}\\n\' "${HIP_VISIBLE_DEVICES:-unset}"\n')
    (exe.parent / "rocmate-env.sh").write_text(text)
    monkeypatch.setenv("HIP_VISIBLE_DEVICES", "1")  # the stale export, still in this shell
    found = applied(LiveSystem(), str(exe))
    assert found.removed == ("HIP_VISIBLE_DEVICES",)
    assert found.for_run()["HIP_VISIBLE_DEVICES"] is None
    answer = run_torch_probe(LiveSystem(), str(exe), timeout=20)  # a real child process
    assert answer is not None and answer["version"] == "unset"
    monkeypatch.delenv("HIP_VISIBLE_DEVICES")
    assert applied(LiveSystem(), str(exe)).removed == ()  # nothing to remove


def test_a_forced_line_wins_over_the_users_value(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`export NAME="value"` (written where the doctor found the exported value wrong) sets it
    over this process's value, as sourcing the file does; `${NAME-value}` does not."""
    monkeypatch.setenv("HSA_OVERRIDE_GFX_VERSION", "11.0.0")
    exe = fake_venv(tmp_path)
    script = exe.parent / "rocmate-env.sh"
    script.write_text('export HSA_OVERRIDE_GFX_VERSION="10.3.0"\n')
    assert applied_env(LiveSystem(), str(exe))[1] == {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}
    answer = run_torch_probe(LiveSystem(), str(exe), timeout=20)
    assert answer is not None and answer["version"] == "10.3.0"
    script.write_text('export HSA_OVERRIDE_GFX_VERSION="${HSA_OVERRIDE_GFX_VERSION-10.3.0}"\n')
    assert applied_env(LiveSystem(), str(exe))[1] == {}
    answer = run_torch_probe(LiveSystem(), str(exe), timeout=20)
    assert answer is not None and answer["version"] == "11.0.0"


def test_the_doctor_reads_a_forced_value_as_the_runs(tmp_path: Path) -> None:
    root = _with_script(installed(tmp_path, {"HSA_OVERRIDE_GFX_VERSION": "11.0.0"}),
                        'export HSA_OVERRIDE_GFX_VERSION="10.3.0"\n')
    found = findings(root)
    assert "override-wrong" not in found
    assert found["override-ok"]["title"].startswith("HSA_OVERRIDE_GFX_VERSION=10.3.0 is set")


def test_a_benchmark_runs_without_the_stale_export(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("HIP_VISIBLE_DEVICES", "1")
    exe = fake_venv(tmp_path, PYTHON)
    (exe.parent / "rocmate-env.sh").write_text(
        "unset HIP_VISIBLE_DEVICES\n"
        'export ROCR_VISIBLE_DEVICES="${ROCR_VISIBLE_DEVICES-0}"\n')
    monkeypatch.delenv("ROCR_VISIBLE_DEVICES", raising=False)
    out = tmp_path / "r.json"
    rc = bench("gemm", "--python", str(exe), "--device", "cpu", "--size", "tiny", "--steps", "1",
               "--warmup-steps", "1", "--no-telemetry", "--out", str(out))
    cap = capsys.readouterr()
    assert rc == 0, cap.out + cap.err
    assert "with ROCR_VISIBLE_DEVICES=0 unset HIP_VISIBLE_DEVICES" in cap.err
    env = from_json(out.read_text()).software.env  # what the worker saw
    assert env.get("ROCR_VISIBLE_DEVICES") == "0" and "HIP_VISIBLE_DEVICES" not in env


def test_an_unset_then_a_default_gives_the_files_value(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The plan writes its unset lines first: a stale export removed, then the card's own value
    where the shell has none, so sourcing the file ends with the file's value, and so does a
    run (an iGPU before the card, with a wrong HIP_VISIBLE_DEVICES exported)."""
    exe = fake_venv(tmp_path)
    exe.write_text('#!/bin/sh\nprintf \'{"python": "fake", "version": "%s", '
                   '"available": false}\\n\' "${HIP_VISIBLE_DEVICES:-unset}"\n')
    (exe.parent / "rocmate-env.sh").write_text(
        "unset HIP_VISIBLE_DEVICES\n"
        'export HIP_VISIBLE_DEVICES="${HIP_VISIBLE_DEVICES-1}"\n')
    monkeypatch.setenv("HIP_VISIBLE_DEVICES", "5")  # the stale export
    found = applied(LiveSystem(), str(exe))
    assert found.variables == {"HIP_VISIBLE_DEVICES": "1"} and found.removed == ()
    answer = run_torch_probe(LiveSystem(), str(exe), timeout=20)
    assert answer is not None and answer["version"] == "1"
