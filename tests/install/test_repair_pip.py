"""A real repair and rollback of a throwaway venv with real pip (issue 34), offline.

The venv starts as issue 34's case: torch 2.5.1+cpu, torchvision 0.20.1+cpu, torchaudio
2.5.1+cpu (the family pytorch.org's CPU command installs) beside an app's own dependency. The
card is the RX 7900 XTX of the recorded machine k34-rx7900xtx-comfyui-venv-cpu-torch (this
computer has no AMD GPU): the plan is made from that machine's facts and this venv's files,
with ``--rocm 6.2``, whose index keeps the app's torch 2.5 (torch==2.5.1+rocm6.2 and its pairs).
pip installs stand-in wheels of those names from a local folder (tests/install/repair_support).
The stand-in torch cannot run the kernel check: the repair ends ``check-failed``, which keeps
the new family (the record says how to go back), as it would on a machine whose GPU failed it.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from core.cli import main as cli_main
from core.diagnose.doctor import run_doctor
from core.install.planner import Choices
from core.install.repair import RepairPlan, make_repair_plan
from core.install.repair_record import list_records
from core.install.repair_runner import RepairRunner
from core.install.runner import Runner
from core.knowledge.loader import load_knowledge
from core.knowledge.torch_family import load_torch_family
from core.operations.repair import list_repairs, prepare_repair, rollback_plan
from core.probe.python_packages import app_requirements, read_environment
from core.system import LiveSystem, SnapshotSystem
from tests.install.repair_support import (
    FAMILY_DIRS,
    freeze,
    make_venv,
    offline_env,
    outside_family,
    wheel,
)

MACHINE = (Path(__file__).resolve().parents[1] / "fixtures" / "machines"
           / "k34-rx7900xtx-comfyui-venv-cpu-torch")
START = ["torch==2.5.1+cpu", "torchvision==0.20.1+cpu", "torchaudio==2.5.1+cpu",
         "comfy-standin-dep==1.0"]


def _wheels(folder: Path, triton: bool = True) -> Path:
    folder.mkdir()
    wheel(folder, "filelock", "3.16.1")
    wheel(folder, "comfy-standin-dep", "1.0", ("filelock",))
    for tag in ("cpu", "rocm6.2"):
        needs = ("filelock", "pytorch-triton-rocm==3.1.0") if tag.startswith("rocm") else \
            ("filelock",)
        wheel(folder, "torch", f"2.5.1+{tag}", needs)
        wheel(folder, "torchvision", f"0.20.1+{tag}", (f"torch==2.5.1+{tag}",))
        wheel(folder, "torchaudio", f"2.5.1+{tag}", (f"torch==2.5.1+{tag}",))
    if triton:
        wheel(folder, "pytorch-triton-rocm", "3.1.0", package="triton")
    return folder


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Every pip the runner starts reads no configuration and no index; the history goes to
    a throwaway data folder."""
    wheels = tmp_path / "wheels"
    for key, value in offline_env(wheels).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return wheels


def _plan(python: Path, rocm: str = "6.2") -> RepairPlan:
    env = read_environment(LiveSystem(), str(python))
    facts = run_doctor(SnapshotSystem(MACHINE), probe_torch=False).facts
    site = env.site_packages[0]
    return make_repair_plan(env, facts, load_knowledge(), load_torch_family(),
                            app_requirements(LiveSystem(), env),
                            {site: True, os.path.dirname(str(python)): True},
                            Choices(rocm=rocm))


def _run(runner: Runner) -> tuple[bool, list[dict[str, object]]]:
    events: list[dict[str, object]] = []
    runner.emit_to = events.append
    ok = asyncio.run(runner.run())
    return ok, events


def _versions(python: Path) -> dict[str, str]:
    env = read_environment(LiveSystem(), str(python))
    return {m.name: m.version for m in env.family}


@pytest.mark.slow  # real pip installs from a local index
def test_repair_then_rollback(offline: Path, tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    wheels = _wheels(offline)
    python = make_venv(tmp_path / "ComfyUI" / "venv", wheels, START)
    (tmp_path / "ComfyUI" / "requirements.txt").write_text("torch\ntorchvision\ntorchaudio\n")
    before = freeze(python, wheels)
    untouched = outside_family(tmp_path / "ComfyUI" / "venv")
    plan = _plan(python)
    assert plan.torch_packages == ("torch==2.5.1+rocm6.2", "torchvision==0.20.1+rocm6.2",
                                   "torchaudio==2.5.1+rocm6.2")
    assert plan.torch_index == "https://download.pytorch.org/whl/rocm6.2"
    assert [s.id for s in plan.steps] == ["repair-family", "repair-deps", "verify"]

    runner = prepare_repair(plan, lambda event: None)
    assert isinstance(runner, RepairRunner)
    ok, events = _run(runner)
    done = events[-1]
    assert not ok and done["event"] == "done" and done["state"] == "check-failed", done
    assert sum(1 for e in events if e["event"] == "done") == 1
    assert "resume" not in done  # a repair is rolled back, never resumed as a set-up
    assert done["rollback"] == f"rocmate install --rollback {python}"
    assert _versions(python) == {"torch": "2.5.1+rocm6.2", "torchvision": "0.20.1+rocm6.2",
                                 "torchaudio": "2.5.1+rocm6.2", "pytorch-triton-rocm": "3.1.0"}
    after = freeze(python, wheels)
    changed = sorted(set(after.splitlines()) ^ set(before.splitlines()))
    assert changed == sorted([
        "torch==2.5.1+cpu", "torchvision==0.20.1+cpu", "torchaudio==2.5.1+cpu",
        "torch==2.5.1+rocm6.2", "torchvision==0.20.1+rocm6.2", "torchaudio==2.5.1+rocm6.2",
        "pytorch-triton-rocm==3.1.0"])
    assert outside_family(tmp_path / "ComfyUI" / "venv") == untouched  # byte for byte

    # the record, before anything changed
    [record] = list_records()
    assert record.state == "check-failed" and record.python == str(python)
    assert record.freeze_before() == before
    sources = {m["name"]: m["source"] for m in record.before}
    assert sources == {"torch": "https://download.pytorch.org/whl/cpu",
                       "torchvision": "https://download.pytorch.org/whl/cpu",
                       "torchaudio": "https://download.pytorch.org/whl/cpu"}
    saved = json.loads((record.folder / "plan.json").read_text())
    assert saved["repair"]["torch_before"] == "2.5.1+cpu"
    assert saved["repair"]["torch_after"] == "2.5.1+rocm6.2"

    assert cli_main(["install", "--repairs"]) == 0
    listed = capsys.readouterr().out
    assert f"{python}  torch 2.5.1+cpu -> 2.5.1+rocm6.2  [check-failed]" in listed

    # the way back
    back = rollback_plan(None, str(python))
    assert [s.id for s in back.steps] == ["rollback-remove", "rollback-family-1"]
    argv = back.steps[1].argv or ()
    assert "https://download.pytorch.org/whl/cpu" in argv and "torch==2.5.1+cpu" in argv
    # carried out by the command, as a user would: rocmate install --rollback PYTHON --yes
    assert cli_main(["install", "--rollback", str(python), "--yes"]) == 0
    said = capsys.readouterr().out
    assert "pip freeze --all matches the record again." in said
    assert ": rolled-back" in said
    assert freeze(python, wheels) == before
    assert outside_family(tmp_path / "ComfyUI" / "venv") == untouched
    [record] = list_repairs(str(python))
    assert record.state == "rolled-back"


@pytest.mark.slow  # real pip installs from a local index
def test_a_failed_install_rolls_back_by_itself(offline: Path, tmp_path: Path) -> None:
    """pytorch-triton-rocm is missing from the index: the family is replaced (--no-deps),
    then the step that adds torch's requirements fails, and the runner puts the record back."""
    wheels = _wheels(offline, triton=False)
    python = make_venv(tmp_path / "app" / "venv", wheels, START)
    before = freeze(python, wheels)
    untouched = outside_family(tmp_path / "app" / "venv")
    ok, events = _run(RepairRunner(_plan(python), lambda event: None))
    assert not ok
    steps = [(e.get("id"), e.get("status")) for e in events if e["event"] == "step"]
    assert ("repair-family", "done") in steps and ("repair-deps", "failed") in steps
    assert ("verify", "start") not in steps
    assert any(e["event"] == "rollback" for e in events)
    check = next(e for e in events if e["event"] == "rollback-check")
    assert check["same"] is True, check
    done = events[-1]
    assert done["event"] == "done" and done["rolled_back"] is True
    assert done["state"] == "failed-rolled-back"
    assert "put back" in str(done["error"])
    assert freeze(python, wheels) == before
    assert outside_family(tmp_path / "app" / "venv") == untouched
    [record] = list_records()
    assert record.state == "failed-rolled-back"


@pytest.mark.slow  # real pip installs from a local index
def test_amd_device_wheels_for_real(offline: Path, tmp_path: Path) -> None:
    """--rocm 10.0: AMD's index, torch[device-gfx1100]==2.13.0+rocm10.0.0 (its extra requires
    amd-torch-device-gfx1100, as on https://stable.repo.amd.com/rocm/whl-next/). The family
    step (--no-deps) installs no device package; the next step adds them; the rollback takes
    them away again and the freeze is the one recorded."""
    wheels = _wheels(offline)
    local = "2.13.0+rocm10.0.0"
    for name, version in (("torch", local), ("torchvision", "0.28.0+rocm10.0.0")):
        device = f"amd-{name}-device-gfx1100"
        wheel(wheels, name, version, ("filelock",),
              extras={"device-gfx1100": (f"{device}=={version}",)})
        wheel(wheels, device, version)
    wheel(wheels, "torchaudio", "2.11.0.2+rocm10.0.0")
    python = make_venv(tmp_path / "app" / "venv", wheels, START)
    before = freeze(python, wheels)
    untouched = outside_family(tmp_path / "app" / "venv")
    plan = _plan(python, rocm="10.0")
    assert plan.torch_packages == ("torch[device-gfx1100]==2.13.0+rocm10.0.0",
                                   "torchvision[device-gfx1100]==0.28.0+rocm10.0.0",
                                   "torchaudio==2.11.0.2+rocm10.0.0")
    ok, events = _run(RepairRunner(plan, lambda event: None))
    assert events[-1]["state"] == "check-failed", events[-3:]
    now = read_environment(LiveSystem(), str(python))
    assert now.distribution("amd-torch-device-gfx1100") is not None
    assert now.distribution("amd-torchvision-device-gfx1100") is not None
    assert _versions(python)["torch"] == local
    devices = ("amd_torch_device_gfx1100", "amd_torchvision_device_gfx1100")
    assert outside_family(tmp_path / "app" / "venv", (*FAMILY_DIRS, *devices)) == untouched
    back = rollback_plan(None, str(python))
    removed = back.steps[0].argv or ()
    assert back.steps[0].id == "rollback-remove"
    assert "amd-torch-device-gfx1100" in removed and "amd-torchvision-device-gfx1100" in removed
    ok, events = _run(prepare_repair(back, lambda event: None))
    assert ok and freeze(python, wheels) == before
