"""The doctor's kernel-old judges the release the plan installs (issue 33, "a plan that agrees
with the doctor").

The doctor judged the running kernel against the newest ROCm release (10.1), while
``rocmate install`` plans an older one: ROCm 7.2 (pytorch.org's wheels) for the RX 7900 XTX on
Ubuntu 20.04's kernel 5.4 (ubuntu2004-kernel54-rx7900xtx), the pinned ROCm 6.2 wheel of the
MI50/MI60's last route on kernel 4.15 (vega20-x8-epyc-aspeed). The doctor said "older than ROCm
10.1 supports", the plan's preflight "older than ROCm 7.2" (or 6.2). Now both take the release
from core.diagnose.release_choice.planned_release, which the planner's own choice is made of
(stable_indexes, legacy_routes), and the finding says which release it judged.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.diagnose.context import Context
from core.diagnose.doctor import run_doctor
from core.diagnose.release_choice import planned_release
from core.install.planner import Choices, PlanError, make_plan
from core.knowledge.loader import load_knowledge
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
ALL = sorted(p.name for p in MACHINES.iterdir() if (p / "SOURCE.md").exists())


@pytest.mark.parametrize(
    ("machine", "release"),
    [("ubuntu2004-kernel54-rx7900xtx", "7.2"), ("vega20-x8-epyc-aspeed", "6.2")],
)
def test_kernel_old_names_the_planned_release(machine: str, release: str) -> None:
    report = run_doctor(SnapshotSystem(MACHINES / machine), probe_torch=False)
    found = [f for f in report.findings if f.id == "kernel-old"]
    assert len(found) == 1
    assert f"older than ROCm {release} supports" in found[0].title
    assert f"Judged against ROCm {release}, the release rocmate install plans" in found[0].detail
    plan = make_plan(report.facts, load_knowledge(), Choices())
    assert plan.rocm == release
    preflight = [c for c in plan.preflight if c.id == "kernel-old"]
    assert [c.title for c in preflight] == [found[0].title]


@pytest.mark.parametrize("machine", ALL)
def test_doctor_and_plan_judge_one_release(machine: str) -> None:
    """On every recorded machine a plan with no choices installs the release the doctor's
    planned_release names, and its kernel-old preflight is the doctor's finding."""
    kb = load_knowledge()
    report = run_doctor(SnapshotSystem(MACHINES / machine), probe_torch=False)
    try:
        plan = make_plan(report.facts, kb, Choices())
    except PlanError:
        return  # refused: there is no plan to agree with
    if plan.blocked or plan.strategy == "wsl":
        return  # no plan, or WSL's own route (the doctor judges no kernel there)
    assert planned_release(Context(report.facts, kb)) == plan.rocm
    if plan.rocm is None:
        return  # TheRock's nightly wheels: no release to judge a kernel against
    doctor = [f.title for f in report.findings if f.id == "kernel-old"]
    assert doctor == [c.title for c in plan.preflight if c.id == "kernel-old"]
