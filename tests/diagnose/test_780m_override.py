"""HSA_OVERRIDE_GFX_VERSION=11.0.0 on a Radeon 780M/760M/740M (gfx1103) is harmful, not a fix.

Posing as gfx1100 on gfx1103 is reported to cause GPU page faults and hard system hangs
(pytorch/pytorch#179653, ROCm/MIOpen#3954), and the download.pytorch.org rocm7.1/rocm7.2 wheels
carry gfx1103 code from torch 2.13 on (pytorch/pytorch#179653; torch.toml arch_from). So the
doctor must call the override wrong on a 780M, whatever wheel is installed, say why, and point to
a wheel that carries gfx1103 instead. It used to approve it (override-ok) when the installed wheel
lacked gfx1103 (torch 2.5.1+rocm6.2 on k16a-780m-arch-torch251-rocm62).

The machines are the recorded ones with only the variable added; the card whose own target the
wheel lacks (an RX 7600, gfx1102, with torch 2.5's wheel) still keeps its documented override.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from core.knowledge.loader import load_knowledge

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
PHOENIX = ["k16a-780m-arch-torch251-rocm62", "phoenix-780m-arch-laptop"]
# torch 2.5.1's ROCm 6.2 wheel (pytorch/pytorch#132570, roc-obj-ls): RDNA3 only as gfx1100
TORCH_25 = ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100"]


def replay(tmp_path: Path, machine: str, env: dict[str, str],
           torch: dict[str, Any] | None = None) -> dict[str, Any]:
    from core.diagnose.doctor import run_doctor
    from core.system import SnapshotSystem

    root = tmp_path / machine
    shutil.copytree(MACHINES / machine, root, symlinks=True)
    recorded = json.loads((root / "env.json").read_text())
    (root / "env.json").write_text(json.dumps(recorded | env))
    if torch is not None:
        (root / "torch.json").write_text(json.dumps(torch))
    return run_doctor(SnapshotSystem(root)).to_json()


def findings(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["id"]: f for f in answer["findings"]}


def test_gfx1103_has_no_override_in_the_knowledge_base() -> None:
    kb = load_knowledge()
    assert kb.override_rule("gfx1103") is None
    row = kb.no_override("gfx1103")
    assert row is not None
    assert "hang" in row.reason and "gfx1103" in row.reason and "2.13" in row.reason
    assert "pytorch/pytorch#179653" in row.source and "ROCm/MIOpen#3954" in row.source


@pytest.mark.parametrize("machine", PHOENIX)
@pytest.mark.parametrize("variable", ["HSA_OVERRIDE_GFX_VERSION", "HSA_OVERRIDE_GFX_VERSION_1"])
def test_11_0_0_on_a_780m_is_called_wrong(tmp_path: Path, machine: str, variable: str) -> None:
    answer = replay(tmp_path, machine, {variable: "11.0.0"})
    found = findings(answer)
    assert "override-ok" not in found
    wrong = found["override-wrong"]
    assert wrong["severity"] == "error"
    assert f"{variable}=11.0.0" in wrong["title"]
    # why (the reports), and what to do instead (a wheel with gfx1103 code)
    assert "hang" in wrong["detail"] and "gfx1103" in wrong["detail"]
    assert "torch 2.13" in wrong["detail"]
    assert wrong["fix"].startswith(f"unset {variable}")
    assert answer["verdict"] != "Ready"


def test_the_780m_machine_without_the_override_is_unchanged(tmp_path: Path) -> None:
    """No variable set: the wheel lacks gfx1103, and the doctor says to install one that has it
    (torch-arch-missing), never to set an override."""
    found = findings(replay(tmp_path, "k16a-780m-arch-torch251-rocm62", {}))
    assert "torch-arch-missing" in found
    assert not {"override-ok", "override-wrong", "gfx-needs-override"} & set(found)


def test_an_rx7600_with_a_wheel_that_lacks_gfx1102_keeps_its_override(tmp_path: Path) -> None:
    """The rule that approved 11.0.0 on the 780M still serves the RX 7600 (gfx1102), for which
    11.0.0 with a wheel that lacks gfx1102 is the documented workaround (ROCm/ROCm#1880)."""
    torch = {"python": "/home/alice/venvs/torch/bin/python3", "version": "2.5.1+rocm6.2",
             "hip": "6.2.41133-dd7f95766", "cuda": None, "available": True,
             "device_count": 1, "devices": ["AMD Radeon RX 7600"], "arch_list": TORCH_25,
             "error": None}
    found = findings(replay(tmp_path, "k16a-rx7600-ubuntu2404-torch28-rocm64",
                            {"HSA_OVERRIDE_GFX_VERSION": "11.0.0"}, torch))
    assert "override-ok" in found and "override-wrong" not in found


def test_the_override_tester_never_tries_a_value_on_a_card_no_override_serves(
        tmp_path: Path) -> None:
    """11.0.0 set on a 780M is not tried (it can hang the machine): only "none" is."""
    from core.operations.machine import check_machine
    from core.operations.setup import override_candidates

    machine = "k16a-780m-arch-torch251-rocm62"
    root = tmp_path / machine
    shutil.copytree(MACHINES / machine, root, symlinks=True)
    recorded = json.loads((root / "env.json").read_text())
    (root / "env.json").write_text(json.dumps(recorded | {"HSA_OVERRIDE_GFX_VERSION": "11.0.0"}))
    report = check_machine(root, probe_torch=False)
    assert report.facts.environment.get("HSA_OVERRIDE_GFX_VERSION") == "11.0.0"
    assert override_candidates(report) == [None]
