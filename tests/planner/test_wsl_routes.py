"""WSL 2 plans per AMD's WSL route for each release (resources/data/wsl.toml, issue 33 item 3) on
recorded WSL machines with Ubuntu 22.04, 24.04 and 26.04 guests: each plan names its row's
source, asks for librocdxg and HSA_ENABLE_DXG_DETECTION only where the release needs them, and
swaps the wheel's runtime only where AMD's page does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.diagnose.doctor import run_doctor
from core.install.plan import Plan
from core.install.planner import Choices, PlanError, make_plan
from core.knowledge.loader import load_knowledge
from core.knowledge.wsl_routes import load_wsl_table
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
U2204 = "k33-wsl2-ubuntu2204-rx7700xt-adrenalin-24"
U2404 = "k33-wsl2-ubuntu2404-strix-halo-8060s"
U2604 = "k33-wsl2-ubuntu2604-rx9060xt-win10-igpu"
NOT_LISTED = "k33-wsl2-ubuntu2204-rx6800s-laptop"


def plan_for(name: str, **choices: object) -> Plan:
    facts = run_doctor(SnapshotSystem(MACHINES / name), probe_torch=False).facts
    return make_plan(facts, load_knowledge(), Choices(**choices))  # type: ignore[arg-type]


def ids(plan: Plan) -> list[str]:
    return [s.id for s in plan.steps]


def step(plan: Plan, step_id: str) -> dict:  # type: ignore[type-arg]
    return next(s.to_json() for s in plan.steps if s.id == step_id)


@pytest.mark.parametrize(("machine", "ubuntu", "gfx"), [
    (U2204, "2204", "gfx1101"), (U2404, "2404", "gfx1151"), (U2604, "2604", "gfx1200")])
def test_rocm_101_in_wsl_on_each_guest(machine: str, ubuntu: str, gfx: str) -> None:
    plan = plan_for(machine)
    assert plan.strategy == "wsl" and plan.rocm == "10.1"
    source = step(plan, "apt-source")["file"]["content"]
    assert f"https://stable.repo.amd.com/rocm/core/packages/ubuntu{ubuntu}/" in source
    assert step(plan, "apt-install")["argv"][-1] == f"amdrocm10.1-{gfx}"
    assert "Windows driver" in step(plan, "apt-install")["explain"]  # not "the kernel's amdgpu"
    assert plan.torch_packages[0].startswith(f"torch[device-{gfx}]==")
    assert "wsl-hsa-swap" not in ids(plan) and "amdgpu-install-wsl" not in ids(plan)
    assert "HSA_ENABLE_DXG_DETECTION" not in plan.env
    route = load_wsl_table().route("10.1")
    assert route is not None
    # the row's source is in the plan's words (its first address)
    assert any("https://github.com/ROCm/rocm-docs/blob/9bcf25db" in n for n in plan.notes)
    assert any("26.2.2" in n for n in plan.notes)


@pytest.mark.parametrize(("machine", "codename"), [(U2204, "jammy"), (U2404, "noble")])
def test_rocm_72_in_wsl_is_the_rocdxg_route(machine: str, codename: str) -> None:
    plan = plan_for(machine, rocm="7.2")
    assert plan.rocm == "7.2"
    assert step(plan, "apt-source")["file"]["content"].endswith(f"rocm/apt/7.2 {codename} main\n")
    order = ids(plan)
    assert order.index("pip-torch") < order.index("wsl-hsa-swap") < order.index("verify")
    assert "same source" in step(plan, "wsl-hsa-swap")["explain"]
    assert plan.env["HSA_ENABLE_DXG_DETECTION"] == "1"
    assert any("-DWIN_SDK=" in n and "sudo make install" in n for n in plan.notes)
    assert any("howto_wsl.html" in n for n in plan.notes)
    shadowed = any("libhsa-runtime64-1" in n for n in plan.notes)
    assert shadowed == (codename == "noble")  # Ubuntu 24.04's own ROCm 5.7 runtime


def test_rocm_72_refuses_an_ubuntu_2604_guest() -> None:
    with pytest.raises(PlanError) as caught:
        plan_for(U2604, rocm="7.2")
    assert str(caught.value) == (
        "ROCm 7.2 for WSL is made for Ubuntu 22.04 and 24.04, not Ubuntu 26.04: use one of "
        "those in WSL (for example wsl --install -d Ubuntu-24.04)")


def test_what_only_windows_can_fix_is_in_the_notes() -> None:
    notes = plan_for(U2604).notes
    assert any(n.startswith("On Windows: Windows 10.0.19045.6456 is Windows 10") for n in notes)
    assert any("integrated GPU" in n for n in notes)
    old = plan_for(U2204).notes
    assert any("Adrenalin 24.12.1" in n and "26.2.2" in n for n in old)


def test_a_card_on_no_wsl_list_gets_no_plan() -> None:
    """The doctor's wsl-gpu-unsupported (Not supported) blocks the plan, in its words."""
    plan = plan_for(NOT_LISTED)
    assert not plan.steps and plan.blocked is not None
    assert plan.blocked.startswith("Radeon RX 6800S (gfx1032) is not on AMD's list for ROCm on "
                                   "WSL 2")


def test_the_plan_json_keeps_its_form() -> None:
    data = plan_for(U2404).to_json()
    json.dumps(data)
    assert data["schema"] == "rocmate.plan/1" and data["strategy"] == "wsl"
    assert data["rocm"] == "10.1" and data["notes"]
