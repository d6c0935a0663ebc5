"""What no set-up step changes is said before anything runs (issue 32's findings in the plan):
ROCm's runtime failing on a supported card, amd-smi failing beside a working driver. Recorded
machines built from the public outputs their SOURCE.md names."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.diagnose.doctor import run_doctor
from core.install.planner import UNCHANGED_BY_A_PLAN, Choices, make_plan
from core.knowledge.loader import load_knowledge
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
RUNTIME_FAILS = "k32-strix-point-840m-mint223-rocminfo-fails"  # ROCm/TheRock#7952
AMD_SMI_FAILS = "rx7900xtx-debian13-amdgpu-builtin-amdsmi-fails"  # amdsmi#170/#172


def _plan(machine: str):  # type: ignore[no-untyped-def]
    facts = run_doctor(SnapshotSystem(MACHINES / machine), probe_torch=False).facts
    return make_plan(facts, load_knowledge(), Choices())


@pytest.mark.parametrize(("machine", "said"), [
    (RUNTIME_FAILS, "ROCm's runtime does not start on Radeon 840M Graphics (gfx1152)"),
    (AMD_SMI_FAILS,
     "amd-smi does not see Radeon RX 7900 XTX (0000:2f:00.0), which the driver runs"),
])
def test_the_plan_says_first_what_it_cannot_change(machine: str, said: str) -> None:
    notes = _plan(machine).notes
    assert notes and notes[0].startswith(f"Not changed by this plan: {said}. ")


def test_the_runtime_note_carries_the_doctors_fix() -> None:
    note = _plan(RUNTIME_FAILS).notes[0]
    assert "Boot another kernel" in note and "ROCm/TheRock#7952" in note


def test_in_chinese(chinese: None) -> None:
    note = _plan(RUNTIME_FAILS).notes[0]
    assert note.startswith(
        "ROCm 运行时无法在 Radeon 840M Graphics (gfx1152) 上启动，这个计划改变不了。")


def test_no_such_note_where_the_doctor_finds_neither() -> None:
    for machine in ("rx6700xt-ubuntu2204-needs-override", "debian12-w7900-ready"):
        doctor = run_doctor(SnapshotSystem(MACHINES / machine), probe_torch=False)
        assert not {f.id for f in doctor.findings} & set(UNCHANGED_BY_A_PLAN)
        assert not any(n.startswith("Not changed by this plan") for n in _plan(machine).notes)
