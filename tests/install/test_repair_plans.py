"""Repair plans on recorded machines (issue 34): the ROCm choices a repair makes for an app's
environment, from the planner's own routes.

- k34-rx7900xtx-comfyui-venv-cpu-torch: an RX 7900 XTX (gfx1100) whose ComfyUI venv holds
  torch/torchvision/torchaudio 2.5.1+cpu: pytorch.org's index by default (torch 2.5 is not on
  it: the plan says what changes and which --rocm keeps 2.5), --rocm 6.2 keeps 2.5.1, --rocm
  10.0 takes AMD's device wheels (torch[device-gfx1100]) with AMD's own torchaudio;
- k34-rx6700xt-a1111-venv-rocm61: an RX 6700 XT (gfx1031, override card) whose
  stable-diffusion-webui venv holds 2.5.1+rocm6.1, pytorch-triton-rocm and a CUDA xformers:
  gfx1030 wheels with HSA_OVERRIDE_GFX_VERSION=10.3.0 for the check, xformers left with a note;
- issue 34's torchaudio case: `rocmate install --venv` of that ComfyUI venv points to the
  repair instead of planning "Create rocmate's Python environment" beside torchaudio 2.5.1+cpu.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.cli import main as cli_main
from core.install.plan_text import render_plan
from core.install.planner import Choices
from core.install.repair import RepairPlan
from core.operations.errors import OperationError
from core.operations.repair import RepairRefused, plan_repair, prepare_repair
from core.operations.setup import plan_setup
from core.termstyle import Style

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
COMFY = str(MACHINES / "k34-rx7900xtx-comfyui-venv-cpu-torch")
COMFY_PY = "/home/alice/ComfyUI/venv/bin/python"
A1111 = str(MACHINES / "k34-rx6700xt-a1111-venv-rocm61")
A1111_PY = "/home/alice/stable-diffusion-webui/venv/bin/python3"


def _changes(plan: RepairPlan) -> dict[str, tuple[str | None, str | None, str]]:
    assert plan.repair is not None
    return {c.name: (c.before, c.after, c.action) for c in plan.repair.changes}


def test_pytorch_org_index_by_default() -> None:
    plan = plan_repair(COMFY, COMFY_PY)
    assert isinstance(plan, RepairPlan) and plan.replay == COMFY
    assert plan.torch_index == "https://download.pytorch.org/whl/rocm7.2"
    assert plan.torch_packages == ("torch==2.14.0+rocm7.2", "torchvision==0.29.0+rocm7.2",
                                   "torchaudio==2.14.0+rocm7.2")
    assert _changes(plan) == {
        "torch": ("2.5.1+cpu", "2.14.0+rocm7.2", "replace"),
        "torchvision": ("0.20.1+cpu", "0.29.0+rocm7.2", "replace"),
        "torchaudio": ("2.5.1+cpu", "2.14.0+rocm7.2", "replace")}
    assert [s.id for s in plan.steps] == ["repair-family", "repair-deps", "verify"]
    family = plan.steps[0].argv or ()
    assert family[:6] == (COMFY_PY, "-m", "pip", "install", "--force-reinstall", "--no-deps")
    assert family[-3:-1] == ("--index-url", "https://download.pytorch.org/whl/rocm7.2")
    assert plan.steps[-1].kind == "verify"
    assert all(not s.privileged for s in plan.steps)
    notes = " ".join(plan.notes)
    assert "PyTorch 2.5.1 is not on" in notes and "--rocm 6.2 keeps PyTorch 2.5" in notes
    assert "(unverified)" in notes  # no source names torchaudio 2.14's pair
    data = plan.to_json()
    assert data["schema"] == "rocmate.plan/1" and data["strategy"] == "repair"
    assert data["repair"]["torch_before"] == "2.5.1+cpu"
    assert data["repair"]["prefix"] == "/home/alice/ComfyUI/venv"
    assert data["repair"]["app_pins"] == []  # ComfyUI's requirements.txt pins no version


def test_rocm_6_2_keeps_the_apps_torch() -> None:
    plan = plan_repair(COMFY, "/home/alice/ComfyUI/venv", Choices(rocm="6.2"))
    assert plan.torch_index == "https://download.pytorch.org/whl/rocm6.2"
    assert plan.torch_packages == ("torch==2.5.1+rocm6.2", "torchvision==0.20.1+rocm6.2",
                                   "torchaudio==2.5.1+rocm6.2")
    assert not any("is not on" in n for n in plan.notes)


def test_amd_device_wheels() -> None:
    plan = plan_repair(COMFY, COMFY_PY, Choices(rocm="10.0"))
    assert plan.torch_index == "https://stable.repo.amd.com/rocm/whl-next/"
    assert plan.torch_packages == ("torch[device-gfx1100]==2.13.0+rocm10.0.0",
                                   "torchvision[device-gfx1100]==0.28.0+rocm10.0.0",
                                   "torchaudio==2.11.0.2+rocm10.0.0")


def test_override_card() -> None:
    plan = plan_repair(A1111, A1111_PY)
    assert plan.env.get("HSA_OVERRIDE_GFX_VERSION") == "10.3.0"
    assert plan.torch_index == "https://download.pytorch.org/whl/rocm7.2"
    assert plan.torch_packages == ("torch==2.14.0+rocm7.2", "torchvision==0.29.0+rocm7.2")
    changes = _changes(plan)
    assert changes["pytorch-triton-rocm"] == ("3.1.0", None, "follow")
    assert changes["xformers"] == ("0.0.20", None, "keep")
    assert "torchaudio" not in changes  # the app has none: the repair adds none
    notes = " ".join(plan.notes)
    assert "xformers 0.0.20 stays" in notes
    assert "HSA_OVERRIDE_GFX_VERSION=10.3.0 in the app's environment" in notes
    assert "for gfx1030" in notes  # the wheels carry the target the override poses as
    assert plan.repair is not None
    assert plan.repair.app_pins == ("requirements_versions.txt: xformers==0.0.20",)
    text = render_plan(plan, Style(False))
    assert "repair-family" not in text and "--force-reinstall --no-deps" in text


def test_the_torchaudio_case_points_to_the_repair() -> None:
    """Issue 34: `rocmate install --venv ~/ComfyUI/venv` planned "Create rocmate's Python
    environment" there and installed torch and torchvision only, leaving torchaudio 2.5.1+cpu."""
    with pytest.raises(OperationError) as caught:
        plan_setup(COMFY, Choices(venv="/home/alice/ComfyUI/venv/"), check_venv=True)
    said = str(caught.value)
    assert caught.value.status == 2
    assert "torchaudio 2.5.1+cpu" in said
    assert "rocmate install --repair /home/alice/ComfyUI/venv/bin/python" in said
    # a folder that is no app's environment still gets a set-up
    plan = plan_setup(COMFY, Choices(venv="/home/alice/venvs/torch"), check_venv=True)
    assert plan.steps[0].id != "repair-family"


def test_cli(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli_main(["install", "--root", COMFY, "--venv", "/home/alice/ComfyUI/venv",
                     "--dry-run"])
    assert code == 2
    assert "--repair /home/alice/ComfyUI/venv/bin/python" in capsys.readouterr().err
    code = cli_main(["install", "--root", COMFY, "--repair", COMFY_PY, "--dry-run", "--json"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["repair"]["kind"] == "repair" and data["steps"][-1]["id"] == "verify"
    code = cli_main(["install", "--root", COMFY, "--repair", COMFY_PY])
    assert code == 2  # a replayed machine is only planned
    code = cli_main(["install", "--root", COMFY, "--repair", "/usr/bin/python3", "--dry-run"])
    assert code == 1
    assert "not a virtual environment" in capsys.readouterr().err


def test_a_replayed_plan_is_not_carried_out() -> None:
    plan = plan_repair(COMFY, COMFY_PY)
    with pytest.raises(OperationError) as caught:
        prepare_repair(plan, lambda event: None)
    assert caught.value.status == 2


def test_refusals_name_their_reason() -> None:
    with pytest.raises(RepairRefused) as caught:
        plan_repair(COMFY, "/home/alice/nowhere/bin/python")
    assert caught.value.reason == "no-python"
    with pytest.raises(RepairRefused) as caught:
        plan_repair(COMFY, "python3")
    assert caught.value.reason == "not-absolute"


def test_wsl2_swaps_the_runtime_in_the_repaired_torch(tmp_path: Path) -> None:
    """Under WSL 2 the set-up replaces the wheel's own libhsa-runtime64.so with WSL's on the
    pytorch.org route (ROCm 7.2): a repair of an app's venv there does the same after the
    install (a throwaway copy of the recorded WSL 2 machine with a venv added)."""
    import shutil

    root = tmp_path / "wsl"
    shutil.copytree(MACHINES / "wsl2-ubuntu2204-rx7900xtx-ready", root, symlinks=True)
    prefix = root / "files" / "home" / "user" / "ComfyUI" / "venv"
    site = prefix / "lib" / "python3.10" / "site-packages"
    for name, version in (("pip", "22.0.2"), ("torch", "2.5.1+cpu")):
        info = site / f"{name}-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Name: {name}\nVersion: {version}\n")
    (prefix / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.10.12\n")
    (prefix / "bin").mkdir()
    (prefix / "bin" / "python").write_text("")
    plan = plan_repair(root, "/home/user/ComfyUI/venv/bin/python", Choices(rocm="7.2"))
    assert plan.torch_index == "https://download.pytorch.org/whl/rocm7.2"
    ids = [s.id for s in plan.steps]
    assert ids == ["repair-family", "repair-deps", "wsl-hsa-swap", "verify"]
    swap = plan.steps[2].argv or ()
    assert swap[-2:] == ("--venv", "/home/user/ComfyUI/venv")
