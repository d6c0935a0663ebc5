"""Which gfx targets the ROCm PyTorch wheels carry, by torch version and index, and what the
planner makes of it (issue 16, items 2 and 4).

* download.pytorch.org's wheels carry gfx1102 from torch 2.7 on (pytorch/pytorch#147761),
  gfx950/gfx1150/gfx1151 in every ROCm build from torch 2.10 on, the first torch of the rocm7.x
  indexes (pytorch/pytorch#167299), and gfx1103 from torch 2.13 on (pytorch/pytorch#179653):
  an RX 7600 or a Radeon 890M owner gets the standard wheel, no override and no other index.
* TheRock's per-family nightly indexes (``v2/<family>/``) are frozen (ROCm/TheRock#5954); the
  therock strategy installs ``torch[device-gfxNNNN]`` from the multi-arch index
  (ROCm/TheRock RELEASES.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.diagnose.doctor import run_doctor
from core.install import planner
from core.install.plan import Plan
from core.install.planner import Choices, PlanError, make_plan
from core.knowledge.loader import load_knowledge
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
RX7600 = "k16b-rx7600-ubuntu2404-fresh"
STRIX_POINT = "k16b-strix-point-890m-laptop-ubuntu2404"
PYTORCH_72 = "https://download.pytorch.org/whl/rocm7.2"
PYTORCH_71 = "https://download.pytorch.org/whl/rocm7.1"
MULTI_ARCH = "https://rocm.nightlies.amd.com/whl-multi-arch/"
OVERRIDE = "HSA_OVERRIDE_GFX_VERSION"


def plan_for(name: str, **choices: object) -> Plan:
    facts = run_doctor(SnapshotSystem(MACHINES / name), probe_torch=False).facts
    return make_plan(facts, load_knowledge(), Choices(**choices))  # type: ignore[arg-type]


def dry_run_json(name: str, *args: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "core.cli", "install", "--dry-run", "--json",
         "--root", str(MACHINES / name), *args],
        capture_output=True, text=True, check=False, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def dry_run_text(name: str, *args: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "core.cli", "install", "--dry-run",
         "--root", str(MACHINES / name), *args],
        capture_output=True, text=True, check=False, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


# ---- the wheels' targets, as data ------------------------------------------------------------


def test_the_rocm7_indexes_carry_gfx1102_gfx1150_gfx1151_in_every_torch() -> None:
    kb = load_knowledge()
    for name in ("rocm7.0", "rocm7.1", "rocm7.2"):
        index = next(i for i in kb.torch_indexes if i.name == name)
        for gfx in ("gfx1102", "gfx1150", "gfx1151", "gfx1100", "gfx1030", "gfx1201"):
            assert index.torch_for(gfx) == index.newest_torch, (name, gfx)
        assert index.torch_for("gfx1031") is None  # RX 6700: only through the 10.3.0 override
        assert "pytorch/pytorch" in index.source


def test_gfx1103_is_in_the_wheels_from_torch_2_13_on() -> None:
    kb = load_knowledge()
    rocm70 = next(i for i in kb.torch_indexes if i.name == "rocm7.0")
    rocm71 = next(i for i in kb.torch_indexes if i.name == "rocm7.1")
    rocm72 = next(i for i in kb.torch_indexes if i.name == "rocm7.2")
    assert rocm70.torch_for("gfx1103") is None  # torch 2.10 only
    assert rocm71.torch_for("gfx1103") == "2.13.0"  # not 2.10 or 2.11
    assert rocm72.torch_for("gfx1103") == "2.14.0"
    assert dict(rocm72.arch_from) == {"gfx1103": "2.13.0"}


# ---- the planner: the standard wheel when it carries the card --------------------------------


@pytest.mark.parametrize(("machine", "gfx"), [(RX7600, "gfx1102"), (STRIX_POINT, "gfx1150")])
def test_the_standard_wheel_without_an_override(machine: str, gfx: str) -> None:
    plan = plan_for(machine)
    assert plan.blocked is None
    assert plan.strategy == "pip-only" and not plan.preview
    assert plan.rocm == "7.2"
    assert plan.torch_index == PYTORCH_72
    assert list(plan.torch_packages) == ["torch==2.14.0+rocm7.2", "torchvision"]
    assert not any(key.startswith(OVERRIDE) for key in plan.env)
    text = json.dumps(plan.to_json())
    assert "stable.repo.amd.com" not in text and "device-" not in text and OVERRIDE not in text


@pytest.mark.parametrize("machine", [RX7600, STRIX_POINT])
def test_install_dry_run_json(machine: str) -> None:
    data = dry_run_json(machine)
    assert data["schema"] == "rocmate.plan/1"
    assert (data["strategy"], data["rocm"], data["torch_index"]) == ("pip-only", "7.2", PYTORCH_72)
    assert data["torch_packages"] == ["torch==2.14.0+rocm7.2", "torchvision"]
    assert data["env"] == {"PYTORCH_HIP_ALLOC_CONF": "expandable_segments:True"}
    pip = next(s for s in data["steps"] if s["id"] == "pip-torch")["argv"]
    assert pip[-2:] == ["--index-url", PYTORCH_72]
    env_file = next(s for s in data["steps"] if s["id"] == "env-file")["file"]["content"]
    assert OVERRIDE not in env_file


@pytest.mark.parametrize("machine", [RX7600, STRIX_POINT])
def test_install_dry_run_text(machine: str) -> None:
    out = dry_run_text(machine)
    assert out.startswith("Set-up plan: pip-only, ROCm 7.2\n")
    assert f"PyTorch from {PYTORCH_72}: torch==2.14.0+rocm7.2 torchvision" in out
    assert OVERRIDE not in out


def test_an_older_series_by_name_pins_a_torch_that_carries_the_card() -> None:
    plan = plan_for(STRIX_POINT, rocm="7.1")
    assert plan.torch_index == PYTORCH_71
    assert list(plan.torch_packages) == ["torch==2.13.0+rocm7.1", "torchvision"]
    assert not any(key.startswith(OVERRIDE) for key in plan.env)


def test_a_series_whose_wheels_lack_the_card_is_refused() -> None:
    # rocm7.0 has torch 2.10 only, which does not carry gfx1103 (a Radeon 780M)
    with pytest.raises(PlanError, match=r"ROCm 7\.0 has code for gfx1103"):
        plan_for("phoenix-780m-arch-laptop", rocm="7.0")


# ---- the therock strategy: TheRock's current (multi-arch) index -----------------------------


@pytest.mark.parametrize(
    ("machine", "gfx"),
    [(RX7600, "gfx1102"), (STRIX_POINT, "gfx1150"), ("rx7900xtx-ubuntu2404-ready", "gfx1100"),
     ("strix-halo-8060s-fedora43", "gfx1151")],
)
def test_therock_uses_the_multi_arch_index_with_a_device_extra(machine: str, gfx: str) -> None:
    data = dry_run_json(machine, "--strategy", "therock")
    assert data["strategy"] == "therock" and data["preview"] is True
    assert data["torch_index"] == MULTI_ARCH
    assert data["torch_packages"] == [f"torch[device-{gfx}]", f"torchvision[device-{gfx}]"]
    pip = next(s for s in data["steps"] if s["id"] == "pip-torch")["argv"]
    assert pip[-2:] == ["--index-url", MULTI_ARCH]
    assert "/v2/" not in json.dumps(data)


def test_frozen_per_family_indexes_are_never_planned() -> None:
    kb = load_knowledge()
    frozen = [t for t in kb.therock if "/v2/" in t.url]
    assert frozen and all(t.frozen for t in frozen)
    current = [t for t in kb.therock if not t.frozen]
    assert [t.url for t in current] == [MULTI_ARCH]
    for row in kb.targets:
        if row.therock is not None:
            index = next(t for t in kb.therock if t.family == row.therock)
            assert not index.frozen, row.gfx
        if row.status in ("official", "override"):
            found = planner.therock_index(kb, row.gfx)
            assert found is not None and found.url == MULTI_ARCH, row.gfx


# ---- notes that said the wheels lack these targets --------------------------------------------


@pytest.mark.parametrize("gfx", ["gfx1102", "gfx1150", "gfx1151"])
def test_no_note_says_the_standard_wheels_lack_a_target_they_carry(gfx: str) -> None:
    kb = load_knowledge()
    texts = [str(kb.support_for(gfx).note)]  # type: ignore[union-attr]
    rule = kb.override_rule(gfx)
    if rule is not None:
        texts.append(str(rule.caveat))
    reason = kb.no_override(gfx)
    if reason is not None:
        texts.append(str(reason.reason))
    for text in texts:
        lowered = text.lower()
        assert "nothing works" not in lowered, text
        if f"lack {gfx}" in lowered or f"lacks {gfx}" in lowered:
            assert "older" in lowered, text  # only older wheels lack it
        assert "no override works with the pytorch.org wheels" not in lowered, text
        assert "when you use the download.pytorch.org wheels" not in lowered, text
