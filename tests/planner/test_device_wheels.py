"""AMD's per-device wheels on the override cards, and the release pin on AMD's shared index
(issue 33, item 1).

* An override card (RX 6700 XT gfx1031, RX 6600 gfx1032, Steam Deck gfx1033) never gets its own
  device extra together with ``HSA_OVERRIDE_GFX_VERSION``: the override makes the runtime look
  for the target it poses as (gfx1030), whose code the gfx1031 extra lacks.
  - AMD's stable index for 10.0/10.1 offers no gfx1031..gfx1036 extra on Linux (AMD's PyTorch
    install page for ROCm 10.0; the 10.1 Core SDK package table, torch.toml rows amd-rocm10.0/
    amd-rocm10.1): ``torch[device-gfx1030]`` with the override.
  - TheRock's multi-arch index builds device packages for gfx1031..gfx1036 and gfx1010..gfx1012
    (ROCm/TheRock RELEASES.md; ROCm/pytorch#3518's pip list shows amd-torch-device-gfx1031 ...
    ==2.12.0+rocm7.14.0): the card's own extra and no override, marked untested publicly.
* ``--rocm 10.0`` pins ``==<version>+rocm10.0.0`` (AMD's 10.0 page pins
  'torch[device-gfxNNNN]==2.13.0+rocm10.0.0'): the index is shared with 10.1, so an unpinned
  requirement would install 10.1's wheels.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.diagnose.doctor import run_doctor
from core.install.plan import Plan
from core.install.planner import Choices, make_plan
from core.knowledge.loader import load_knowledge
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
AMD_INDEX = "https://stable.repo.amd.com/rocm/whl-next/"
MULTI_ARCH = "https://rocm.nightlies.amd.com/whl-multi-arch/"
OVERRIDE = "HSA_OVERRIDE_GFX_VERSION"

# (recorded machine, its own target)
OVERRIDE_CARDS = [
    ("rx6700xt-ubuntu2204-needs-override", "gfx1031"),
    ("rx6600-ubuntu2404-fresh", "gfx1032"),
    ("steamdeck-steamos", "gfx1033"),
    ("steamdeck-opensuse-tumbleweed", "gfx1033"),
]


def plan_for(name: str, **choices: object) -> Plan:
    facts = run_doctor(SnapshotSystem(MACHINES / name), probe_torch=False).facts
    return make_plan(facts, load_knowledge(), Choices(**choices))  # type: ignore[arg-type]


def extras(plan: Plan) -> set[str]:
    """The device targets the plan's requirements name."""
    found = set()
    for package in plan.torch_packages:
        if "[device-" in package:
            found.add(package.split("[device-", 1)[1].split("]", 1)[0])
    return found


def overridden(plan: Plan) -> str | None:
    return next((v for k, v in plan.env.items() if k.startswith(OVERRIDE)), None)


@pytest.mark.parametrize(("machine", "own"), OVERRIDE_CARDS)
@pytest.mark.parametrize("rocm", ["10.0", "10.1"])
def test_amd_stable_index_gets_the_override_targets_wheel(
    machine: str, own: str, rocm: str
) -> None:
    plan = plan_for(machine, rocm=rocm)
    assert plan.torch_index == AMD_INDEX
    assert overridden(plan) == "10.3.0"
    assert extras(plan) == {"gfx1030"}, plan.torch_packages  # not the card's own
    assert own not in " ".join(plan.torch_packages)
    assert any(own in n and "[device-gfx1030]" in n for n in plan.notes), plan.notes


@pytest.mark.parametrize(("machine", "own"), OVERRIDE_CARDS)
def test_therock_gets_the_cards_own_wheel_and_no_override(machine: str, own: str) -> None:
    plan = plan_for(machine, strategy="therock")
    assert plan.torch_index == MULTI_ARCH
    assert extras(plan) == {own}
    assert overridden(plan) is None, plan.env
    for shell_file in (s for s in plan.steps if s.id.startswith("env-file")):
        assert shell_file.file is not None and OVERRIDE not in (shell_file.file.content or "")
    assert any("untested publicly" in n for n in plan.notes), plan.notes
    # the way back to the publicly tested route is named
    assert any("10.3.0" in n and "pip-only" in n for n in plan.notes), plan.notes


def test_the_untested_targets_come_from_a_source() -> None:
    kb = load_knowledge()
    multi = next(t for t in kb.therock if t.family == "whl-multi-arch")
    assert set(multi.untested) >= {"gfx1031", "gfx1032", "gfx1033", "gfx1010"}
    assert "ROCm/pytorch#3518" in multi.source
    assert "gfx1030" not in multi.untested and "gfx1100" not in multi.untested


def test_a_tested_override_takes_the_override_targets_wheel_on_therock() -> None:
    """The override tester found 10.3.0 working: the wheel follows the override, never both."""
    plan = plan_for("rx6700xt-ubuntu2204-needs-override", strategy="therock", override="10.3.0")
    assert overridden(plan) == "10.3.0"
    assert extras(plan) == {"gfx1030"}


def test_never_both_on_any_recorded_machine_and_route() -> None:
    """Across every recorded machine that plans: a device extra for the card's own target
    and an override are never in one plan."""
    kb = load_knowledge()
    checked = 0
    for folder in sorted(p for p in MACHINES.iterdir() if (p / "SOURCE.md").exists()):
        facts = run_doctor(SnapshotSystem(folder), probe_torch=False).facts
        for choices in (Choices(), Choices(rocm="10.0"), Choices(rocm="10.1"),
                        Choices(strategy="therock")):
            try:
                plan = make_plan(facts, kb, choices)
            except ValueError:
                continue
            value = overridden(plan)
            if plan.blocked or value is None or not extras(plan):
                continue
            checked += 1
            own = {g.gfx for g in facts.gpus.gpus if g.gfx}
            assert not extras(plan) & own, (folder.name, choices, plan.torch_packages)
    assert checked >= 4


@pytest.mark.parametrize(
    ("machine", "rocm", "device", "torch", "vision"),
    [
        ("rx6700xt-ubuntu2204-needs-override", "10.0", "gfx1030", "2.13.0", "0.28.0"),
        ("k16b-rx7600-ubuntu2404-fresh", "10.0", "gfx1102", "2.13.0", "0.28.0"),
        ("k16b-rx7600-ubuntu2404-fresh", "10.1", "gfx1102", "2.14.0", "0.29.0a0"),
    ],
)
def test_amd_index_requirements_pin_the_chosen_release(
    machine: str, rocm: str, device: str, torch: str, vision: str
) -> None:
    plan = plan_for(machine, rocm=rocm)
    label = f"rocm{rocm}.0"
    assert list(plan.torch_packages) == [
        f"torch[device-{device}]=={torch}+{label}",
        f"torchvision[device-{device}]=={vision}+{label}",
    ]
    pip = next(s for s in plan.steps if s.id == "pip-torch")
    assert pip.argv is not None and list(plan.torch_packages) == list(pip.argv[4:6])
    row = next(i for i in load_knowledge().torch_indexes if i.rocm == rocm and i.vendor == "amd")
    assert row.local == label and "rocm" in row.source


def test_a_local_label_needs_paired_torchvision_versions() -> None:
    from core.knowledge.rows import KnowledgeError
    from core.knowledge.wheels import parse_torch

    row = {"name": "x", "url": "https://example.org/", "rocm": "10.0", "torch": ["2.13.0"],
           "torchvision": [], "stable": True, "local": "rocm10.0.0",
           "source": "ROCm/rocm-docs docs/index.md"}
    with pytest.raises(KnowledgeError, match="pair"):
        parse_torch({"index": [row]})
