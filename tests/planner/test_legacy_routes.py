"""Issue 33 item 1: cards past AMD's support get the last route that may still run them (a
pinned pytorch.org wheel, or TheRock's device extra), with its problems and source in the plan's
notes, instead of a refusal; Instinct owners get AMD's own words about the end of support.

Every machine here is a recorded one (tests/fixtures/machines/<name>/SOURCE.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.diagnose.doctor import run_doctor
from core.install.plan import Plan
from core.install.planner import Choices, PlanError, make_plan
from core.knowledge.loader import load_knowledge
from core.knowledge.math_libraries import load_math_libraries, parse_math_libraries
from core.knowledge.retired import load_retired, parse_retired
from core.knowledge.rows import KnowledgeError
from core.resources import data_dir
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
PINNED = ["torch==2.5.1+rocm6.2", "torchvision==0.20.1+rocm6.2"]
MULTI_ARCH = "https://rocm.nightlies.amd.com/whl-multi-arch/"


def plan_for(name: str, **choices: object) -> Plan:
    facts = run_doctor(SnapshotSystem(MACHINES / name), probe_torch=False).facts
    return make_plan(facts, load_knowledge(), Choices(**choices))  # type: ignore[arg-type]


def pip_argv(plan: Plan) -> list[str]:
    return next(list(s.argv or ()) for s in plan.steps if s.id == "pip-torch")


@pytest.mark.parametrize(("machine", "gfx", "source"), [
    ("vega20-x8-epyc-aspeed", "gfx906", "ROCm/legacy-rocm-build#4625"),
    ("mi25-x7-gfx900", "gfx900", "pytorch/pytorch#132570"),
    ("vega56-torch212-rocm72-nightly", "gfx900", "ROCm/legacy-rocm-build#3015"),
])
def test_vega_cards_get_the_pinned_torch_25_wheel(machine: str, gfx: str, source: str) -> None:
    plan = plan_for(machine)
    assert plan.blocked is None and plan.strategy == "pip-only" and plan.rocm == "6.2"
    assert plan.torch_index == "https://download.pytorch.org/whl/rocm6.2"
    assert list(plan.torch_packages) == PINNED
    assert pip_argv(plan)[-2:] == ["--index-url", "https://download.pytorch.org/whl/rocm6.2"]
    assert not any(k.startswith("HSA_OVERRIDE_GFX_VERSION") for k in plan.env)
    notes = "\n".join(plan.notes)
    assert f"({gfx}) is past AMD's support" in plan.notes[0]
    assert "Known problems: No public output shows this wheel's matrix product" in notes
    assert "Source: " in notes and source in notes
    assert plan.steps[-1].id == "verify"


def test_rx5700_gets_therock_device_wheel_without_override() -> None:
    plan = plan_for("rx5700xt-gfx1010")
    assert plan.blocked is None and plan.strategy == "therock" and plan.preview
    assert plan.torch_index == MULTI_ARCH
    assert list(plan.torch_packages) == ["torch[device-gfx1010]", "torchvision[device-gfx1010]"]
    assert not any(k.startswith("HSA_OVERRIDE_GFX_VERSION") for k in plan.env)
    notes = "\n".join(plan.notes)
    assert "unverified" in notes and "rocmate does not plan it" in notes
    assert "ROCm/legacy-rocm-build#887" in notes and "xuhuisheng/rocm-build#36" in notes


@pytest.mark.parametrize("machine", ["vega20-x8-epyc-aspeed", "mi25-x7-gfx900"])
def test_strategy_therock_is_honoured(machine: str) -> None:
    plan = plan_for(machine, strategy="therock")
    gfx = "gfx906" if "vega20" in machine else "gfx900"
    assert plan.torch_index == MULTI_ARCH
    assert list(plan.torch_packages) == [f"torch[device-{gfx}]", f"torchvision[device-{gfx}]"]
    assert any("not sanity-tested" in n and "unverified" in n for n in plan.notes)


def test_rocm_honoured_where_a_row_exists_and_refused_in_words_elsewhere() -> None:
    assert list(plan_for("mi25-x7-gfx900", rocm="6.2").torch_packages) == PINNED
    with pytest.raises(PlanError) as refused:
        plan_for("vega20-x8-epyc-aspeed", rocm="6.4")
    words = str(refused.value)
    assert "--strategy pip-only --rocm 6.2" in words and "--strategy therock" in words
    assert "no Tensile files for gfx906" in words  # why 6.4 is no route, from the coverage row
    with pytest.raises(PlanError, match="--strategy therock"):
        plan_for("rx5700xt-gfx1010", strategy="pip-only")
    with pytest.raises(PlanError, match="past AMD's support"):
        plan_for("mi25-x7-gfx900", strategy="rocm-apt")


def test_a_card_with_no_route_stays_refused() -> None:
    plan = plan_for("lucienne-5700u-proxmox")  # gfx90c: no route row
    assert plan.blocked and not plan.steps


def test_instinct_owners_get_amds_words_not_a_supported_card() -> None:
    for machine, words in [("vega20-x8-epyc-aspeed", "maintenance with ROCm 5.7"),
                           ("mi25-x7-gfx900", "ROCm 6.0's system requirements")]:
        answer = run_doctor(SnapshotSystem(MACHINES / machine), probe_torch=False)
        finding = next(f for f in answer.findings if f.id == "gfx-unsupported")
        assert words in finding.detail
        assert "Use a supported card" not in finding.fix and "Instinct)" not in finding.fix
        assert "rocmate install plans the last route" in finding.fix
        assert "torch==2.5.1 from https://download.pytorch.org/whl/rocm6.2" in finding.fix
        assert "from the MI100 (gfx908) on" in finding.fix
        assert any(words in n for n in plan_for(machine).notes)
    # a Radeon of the same era is told the route, without the Instinct words
    answer = run_doctor(SnapshotSystem(MACHINES / "rx5700xt-gfx1010"), probe_torch=False)
    finding = next(f for f in answer.findings if f.id == "gfx-unsupported")
    assert "rocmate install plans the last route" in finding.fix and "MI100" not in finding.fix


def test_every_older_card_row_has_a_source_and_problems() -> None:
    routes = load_math_libraries().routes
    for gfx in ("gfx900", "gfx906", "gfx1010", "gfx1011", "gfx1012"):
        planned = [r for r in routes if r.gfx == gfx and r.kind in ("wheel", "therock")]
        assert planned, gfx
        for route in planned:
            assert route.source.strip() and route.problems.strip() and route.requirement
    for row in load_retired():
        assert row.source.strip() and row.products


def test_retired_rows_are_checked() -> None:
    import tomllib

    data = tomllib.loads((data_dir() / "retired.toml").read_text())
    data["instinct"][0]["products"] = []
    with pytest.raises(KnowledgeError, match="products"):
        parse_retired(data)
    data = tomllib.loads((data_dir() / "math_libraries.toml").read_text())
    parse_math_libraries(data)  # the new route rows load


@pytest.mark.parametrize("machine", ["vega20-x8-epyc-aspeed", "mi25-x7-gfx900", "rx5700xt-gfx1010",
                                     "vega56-torch212-rocm72-nightly"])
def test_the_doctor_names_the_route_the_plan_takes(machine: str) -> None:
    answer = run_doctor(SnapshotSystem(MACHINES / machine), probe_torch=False)
    fix = next(f.fix for f in answer.findings
               if f.id in ("gfx-unsupported", "gfx-legacy-no-kernels"))
    plan = plan_for(machine)
    assert f"from {plan.torch_index}" in fix
    requirement = plan.torch_packages[0].split("+")[0]  # torch==2.5.1 / torch[device-gfx1010]
    assert f"{requirement} from" in fix


def test_the_kernel_preflight_judges_against_the_routes_own_release() -> None:
    """vega20's route is ROCm 6.2's wheel: its Ubuntu 18.04 kernel 4.15 is judged against 6.2's
    tested kernels (5.15 and newer, rocm.toml), not against the newest release's."""
    plan = plan_for("vega20-x8-epyc-aspeed")
    old = next(p for p in plan.preflight if p.id == "kernel-old")
    assert plan.rocm == "6.2" and not old.ok
    assert "older than ROCm 6.2 supports" in old.title and "10.1" not in old.title
    assert "5.15" in old.detail
