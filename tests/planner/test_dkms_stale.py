"""One rule for a "stale" amdgpu-dkms, shared by the plan's preflight and the doctor (issue 30,
item 3).

An amdgpu-dkms whose module the running kernel uses is AMD's supported driver (the Instinct
machines, the Radeon PRO R9700 on ROCm 7.2), not a leftover. Stale is a build under
/var/lib/dkms/amdgpu that the running kernel does not use, or a crash report of a DKMS build
while the kernel's own driver serves (core.diagnose.rules_system.dkms_leftovers). Before, the
preflight called every tree under /var/lib/dkms/amdgpu stale, in use or not, while the doctor
stayed silent about the same machines.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.operations.machine import check_machine
from core.operations.setup import plan_setup
from tests.conftest import MACHINES, machine_dirs

IN_USE = [
    "r9700-x2-aspeed-ubuntu2404-rocm720",
    "mi210-x4-ubuntu2204",
    "mi300x-x4-ubuntu2204",
    "mi325x-vf-x8-ubuntu2404",
    "rocm-multiple-2x-rx7900xtx",
    "rx6700xt-fish-override-ubuntu2204",
    "rx6700xt-ubuntu2204-needs-override",
    "rx9070xt-torch-arch-missing",
    "rx9070xt-x2-ubuntu2404-rocm711",
]
"""The recorded machines whose running amdgpu is the DKMS-built one (a version under
/sys/module/amdgpu/version, a tree under /var/lib/dkms/amdgpu)."""
FAILED_BUILD = "dkms-build-failed-rx7800xt"


def _preflight(machine: Path) -> dict[str, tuple[bool, str, str]]:
    plan = plan_setup(machine)
    return {c.id: (c.ok, c.title, c.detail) for c in plan.preflight}


def _doctor_stale(machine: Path) -> bool:
    """Whether the doctor warns of a stale amdgpu-dkms build."""
    report = check_machine(machine, probe_torch=False)
    return any(f.id == "dkms-leftovers" and f.severity == "warning" for f in report.findings)


def test_the_r9700s_dkms_driver_is_not_stale() -> None:
    """The issue's machine: ``rocmate install --dry-run`` called its driver stale."""
    machine = MACHINES / IN_USE[0]
    ok, title, detail = _preflight(machine)["dkms-leftovers"]
    assert (ok, title, detail) == (True, "No stale amdgpu-dkms builds", "")
    assert not _doctor_stale(machine)


@pytest.mark.parametrize("name", IN_USE)
def test_an_amdgpu_dkms_in_use_is_not_stale(name: str) -> None:
    machine = MACHINES / name
    assert (machine / "files/sys/module/amdgpu/version").is_file()
    checks = _preflight(machine)
    if "dkms-leftovers" in checks:  # only where the plan checks the kernel driver
        assert checks["dkms-leftovers"][0], checks["dkms-leftovers"]
    assert not _doctor_stale(machine)


def test_a_failed_build_is_stale_for_both() -> None:
    machine = MACHINES / FAILED_BUILD
    ok, title, detail = _preflight(machine)["dkms-leftovers"]
    assert not ok and title == "Stale amdgpu-dkms builds found"
    assert "/var/crash/amdgpu-dkms.0.crash" in detail
    assert _doctor_stale(machine)


@pytest.mark.parametrize("machine", machine_dirs(), ids=lambda p: p.name)
def test_the_plan_and_the_doctor_agree(machine: Path) -> None:
    """Every recorded machine: the preflight fails exactly where the doctor warns."""
    checks = _preflight(machine)
    if "dkms-leftovers" not in checks:
        return
    assert checks["dkms-leftovers"][0] == (not _doctor_stale(machine)), checks["dkms-leftovers"]
