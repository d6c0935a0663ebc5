"""On NixOS a pip-installed PyTorch fails at 'import torch' with 'libstdc++.so.6: cannot open
shared object file' (kavehtehrani/speech2text-extension#20, tests/fixtures/errors/): the plan
warns before anything runs and names the explain command, whose row gives the fix. The NixOS
machine is a real one (k35-strix-point-890m-nixos-64g-default-gtt: noamsto/nix-amd-ai)."""

from __future__ import annotations

from pathlib import Path

from core.diagnose.doctor import run_doctor
from core.install.planner import Choices, make_plan
from core.install.preflight import NIXOS_ERROR
from core.knowledge.loader import load_knowledge
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
NIXOS = "k35-strix-point-890m-nixos-64g-default-gtt"


def _plan(machine: str):  # type: ignore[no-untyped-def]
    facts = run_doctor(SnapshotSystem(MACHINES / machine), probe_torch=False).facts
    return make_plan(facts, load_knowledge(), Choices())


def test_the_nixos_plan_warns_before_the_wheels_are_installed() -> None:
    plan = _plan(NIXOS)
    [check] = [c for c in plan.preflight if c.id == "nixos-libraries"]
    assert not check.ok and not check.stops  # a warning: the plan can still be carried out
    assert "libstdc++.so.6" in check.title and "'import torch' fails" in check.title
    assert f'rocmate explain "{NIXOS_ERROR}"' in check.detail
    assert not plan.stopped_by


def test_the_command_it_names_explains_the_error_first() -> None:
    found = load_knowledge().match_errors(NIXOS_ERROR)
    assert found and found[0].id == "libstdcxx-not-found"
    assert "python3Packages.torchWithRocm" in found[0].fix
    assert "nix-store -qR /run/current-system/sw" in found[0].fix


def test_no_such_warning_elsewhere() -> None:
    for machine in ("rx6700xt-ubuntu2204-needs-override", "phoenix-780m-arch-laptop"):
        assert not any(c.id == "nixos-libraries" for c in _plan(machine).preflight)


def test_in_chinese(chinese: None) -> None:
    [check] = [c for c in _plan(NIXOS).preflight if c.id == "nixos-libraries"]
    assert check.title.startswith("在NixOS上，PyTorch的pip wheel包自己找不到C++运行库")
