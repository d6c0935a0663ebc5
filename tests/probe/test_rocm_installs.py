"""Where ROCm is installed: a recorded machine answers with what rpm said on it, as a live one
does (Fedora's own ROCm rpms went unseen on replay while the probe first looked for rpm's
database folder, which a recorded machine does not hold)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.probe.rocm import RocmInstall, probe_rocm
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"


@pytest.mark.parametrize("machine", [
    "strix-halo-8060s-fedora43",  # ROCm/ROCm#5807: Fedora 43's rocm-core 6.4.2 rpm
    "k32-strix-halo-fedora43-firmware-20251125",  # kyuz0/amd-strix-halo-toolboxes#37
])
def test_fedoras_rocm_rpms_are_found_on_replay(machine: str) -> None:
    facts = probe_rocm(SnapshotSystem(MACHINES / machine))
    assert RocmInstall("6.4.2", "rpm:rocm-core") in facts.installs
    assert facts.versions == ["6.4.2"]


def test_no_rpm_answer_no_install() -> None:
    # Fedora 42 with rpm's answer recorded: none of the packages is installed
    facts = probe_rocm(SnapshotSystem(MACHINES / "fedora42-rx7900xtx"))
    assert facts.installs == ()
    # a Debian machine recorded no rpm at all: nothing is asked of it
    facts = probe_rocm(SnapshotSystem(MACHINES / "rx6700xt-ubuntu2204-needs-override"))
    assert not any(i.where.startswith("rpm:") for i in facts.installs)
