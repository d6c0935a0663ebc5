"""Cases where the doctor used to be wrong about a card (found by a review against the research):
an override that the installed wheel needs for an officially supported card, the card to train
on when an official iGPU sits beside an override dGPU, and a card past AMD's support that the
installed PyTorch still runs."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

from core.diagnose.context import Context
from core.diagnose.doctor import run_doctor
from core.diagnose.engine import NOT_SUPPORTED, diagnose
from core.knowledge.loader import load_knowledge
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
# torch 2.5.1's ROCm 6.2 wheel: RDNA3 only as gfx1100 (rocm-facts §4.2; pytorch/pytorch#132570)
TORCH_25 = ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100"]


def replay(tmp_path: Path, machine: str, *, torch: dict[str, Any] | None = None,
           env: dict[str, str] | None = None) -> dict[str, Any]:
    root = tmp_path / machine
    shutil.copytree(MACHINES / machine, root, symlinks=True)
    if torch is not None:
        (root / "torch.json").write_text(json.dumps(torch))
    if env:
        recorded = json.loads((root / "env.json").read_text())
        (root / "env.json").write_text(json.dumps(recorded | env))
    return run_doctor(SnapshotSystem(root)).to_json()


def rocm_torch(devices: list[str], arch_list: list[str], available: bool = True
               ) -> dict[str, Any]:
    return {"python": "/home/alice/venv/bin/python3", "version": "2.5.1+rocm6.2",
            "hip": "6.2.41133-dd7f95766", "cuda": None, "available": available,
            "device_count": len(devices), "devices": devices, "arch_list": arch_list,
            "error": None}


def ids(answer: dict[str, Any]) -> dict[str, dict[str, str]]:
    return {f["id"]: f for f in answer["findings"]}


def test_an_official_card_with_a_wheel_that_lacks_it_keeps_its_override(tmp_path: Path) -> None:
    """An RX 7600 (gfx1102, official in ROCm 10) with torch 2.5's ROCm 6.2 wheel: 11.0.0 is what
    makes it run (ROCm/ROCm#1880); unsetting it, as the doctor said, breaks it. (Not the 780M:
    11.0.0 hangs gfx1103, tests/diagnose/test_780m_override.py.)"""
    machine = "k16a-rx7600-ubuntu2404-torch28-rocm64"
    torch = rocm_torch(["AMD Radeon RX 7600"], TORCH_25)
    found = ids(replay(tmp_path, machine, torch=torch,
                       env={"HSA_OVERRIDE_GFX_VERSION": "11.0.0"}))
    assert "override-wrong" not in found
    ok = found["override-ok"]
    assert "no gfx1102 code" in ok["detail"] and "gfx1100" in ok["detail"]
    # without the override the same wheel has nothing for the card
    found = ids(replay(tmp_path / "b", machine,
                       torch=rocm_torch([], TORCH_25, available=False)))
    assert "torch-arch-missing" in found and "override-ok" not in found


def test_a_wrong_override_is_still_wrong_when_the_wheel_has_the_card(tmp_path: Path) -> None:
    with_1103 = [*TORCH_25, "gfx1101", "gfx1102", "gfx1103"]
    found = ids(replay(tmp_path, "phoenix-780m-arch-laptop",
                       torch=rocm_torch(["AMD Radeon 780M"], with_1103),
                       env={"HSA_OVERRIDE_GFX_VERSION": "11.0.0"}))
    assert "override-wrong" in found  # the wheel runs gfx1103 natively: posing is harmful


def test_the_card_to_train_on_is_the_usable_discrete_one(tmp_path: Path) -> None:
    """An official 780M before an RX 6700 XT that needs 10.3.0 (an 8700G with an RX 6700 XT):
    the doctor must speak about the 6700 XT."""
    facts = run_doctor(SnapshotSystem(MACHINES / "igpu-first-raphael-rx7900xtx")).facts
    igpu = next(g for g in facts.gpus.gpus if g.integrated)
    dgpu = next(g for g in facts.gpus.gpus if g.is_amd and not g.integrated)
    igpu = dataclasses.replace(igpu, gfx="gfx1103", name="AMD Radeon 780M")
    dgpu = dataclasses.replace(dgpu, gfx="gfx1031", name="AMD Radeon RX 6700 XT")
    gpus = dataclasses.replace(facts.gpus, gpus=tuple(
        igpu if g.integrated else dgpu if g.is_amd else g for g in facts.gpus.gpus))
    ctx = Context(dataclasses.replace(facts, gpus=gpus), load_knowledge())
    assert ctx.primary is not None and ctx.primary[0].name == "AMD Radeon RX 6700 XT"
    found = {f.id: f for f in diagnose(ctx)}
    assert found["gfx-needs-override"].title == (
        "AMD Radeon RX 6700 XT needs HSA_OVERRIDE_GFX_VERSION=10.3.0")


def test_a_card_past_support_that_the_wheel_runs_is_not_blocked(tmp_path: Path) -> None:
    """MI50/MI60 (gfx906): last official in ROCm 5.7, but torch 2.5's ROCm 6.2 wheel carries
    gfx906 and sees the cards: the doctor must not say 'Not supported'. An arch list is not
    proof of kernels (issue 32): no public listing shows that wheel's rocBLAS with gfx906, so the
    doctor says unverified, not "works as it is", and still names the pin that keeps it."""
    names = ["AMD Instinct MI60 / MI50"] * 8
    answer = replay(tmp_path, "vega20-x8-epyc-aspeed", torch=rocm_torch(names, TORCH_25))
    found = ids(answer)
    assert "gfx-unsupported" not in found and answer["verdict"] != NOT_SUPPORTED
    assert "gfx-legacy-works" not in found
    legacy = found["gfx-legacy-unverified"]
    assert legacy["severity"] == "warning" and "torch==2.5.1+rocm6.2" in legacy["fix"]
    # the same machine without a working PyTorch: still unsupported
    answer = replay(tmp_path / "b", "vega20-x8-epyc-aspeed")
    assert "gfx-unsupported" in ids(answer) and answer["verdict"] == NOT_SUPPORTED


def without_driver(tmp_path: Path, device: str) -> dict[str, Any]:
    """The recorded server with no amdgpu loaded (no /dev/kfd), its card's device id changed."""
    root = tmp_path / "m"
    shutil.copytree(MACHINES / "kfd-missing-ubuntu2204-server", root, symlinks=True)
    slot = root / "files/sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0"
    (slot / "device").write_text(f"0x{device}\n")
    lspci = root / "commands/lspci_-nn.txt"
    lspci.write_text(lspci.read_text().replace("744c", device))
    return run_doctor(SnapshotSystem(root)).to_json()


def test_a_card_not_in_the_table_without_a_driver_is_unknown_not_unsupported(
        tmp_path: Path) -> None:
    """No /dev/kfd and a device id rocmate's table lacks (74bc, an MI308X HF VF): the target
    cannot be read, which is not 'Not supported'."""
    answer = without_driver(tmp_path, "74bc")
    found = ids(answer)
    assert "gfx-unsupported" not in found and answer["verdict"] != NOT_SUPPORTED
    assert found["gfx-unknown"]["severity"] == "warning" and "kfd-missing" in found


def test_a_device_id_only_libhsakmt_knows_still_gives_its_target(tmp_path: Path) -> None:
    """73a0 (Navi 21) has no product name in libdrm's table but is in libhsakmt's device table:
    without a driver the doctor still knows it is gfx1030 (official), not an unknown card."""
    answer = without_driver(tmp_path, "73a0")
    [gpu] = [g for g in answer["gpus"] if g["vendor"] == "amd"]
    assert (gpu["gfx"], gpu["support"]["status"]) == ("gfx1030", "official")
    assert "gfx-unknown" not in ids(answer) and "kfd-missing" in ids(answer)
