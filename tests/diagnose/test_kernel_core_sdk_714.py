"""The kernel check runs against ROCm 7.14, the release the plan installs on Strix Halo.

On the recorded Strix Halo Ubuntu machines (k16c-strix-halo-ubuntu2404-coresdk100,
k35-strix-halo-128g-*) a plan with no choices installs the 7.14 wheels (pip-only, ROCm 7.14), and
the doctor's kernel-old judges that release (core.diagnose.release_choice.planned_release). The
7.14 row of rocm.toml listed no Ubuntu versions or kernels, so neither the doctor nor the plan's
preflight could judge the kernel there at all: any kernel passed. The row now carries the lists
AMD states for 7.14 (those of os-support.yaml of 10.0, which the 10.0.0 release notes say left
the operating system support unchanged): Ubuntu 24.04 from 6.8, 22.04 from 5.15, 26.04 from 7.0.

The machine's own kernel (6.14) is newer than 24.04's 6.8; a copy made to run an older one
(6.5, Ubuntu 22.04's HWE kernel) must now get kernel-old, judged against 7.14, in the doctor and
in the plan's preflight alike.
"""

from __future__ import annotations

from pathlib import Path

from core.diagnose.context import Context
from core.diagnose.doctor import run_doctor
from core.diagnose.release_choice import planned_release
from core.install.planner import Choices, make_plan
from core.knowledge.loader import load_knowledge
from core.system import SnapshotSystem
from tests.diagnose.test_kernel_and_group_rules import MACHINES, copy_machine, set_kernel

STRIX_HALO = "k16c-strix-halo-ubuntu2404-coresdk100"


def test_the_714_row_has_kernels_for_the_strix_halo_ubuntu() -> None:
    row = load_knowledge().release("7.14")
    assert row is not None
    assert "24.04" in row.ubuntu
    assert min(row.ubuntu_kernels["24.04"], key=lambda k: tuple(map(int, k.split(".")))) == "6.8"
    assert row.min_kernel == "5.15"


def test_the_recorded_kernel_passes_the_check() -> None:
    report = run_doctor(SnapshotSystem(MACHINES / STRIX_HALO), probe_torch=False)
    assert planned_release(Context(report.facts, load_knowledge())) == "7.14"
    assert "kernel-old" not in {f.id for f in report.findings}  # 6.14 >= 24.04's 6.8


def test_an_older_kernel_gets_kernel_old_against_714(tmp_path: Path) -> None:
    root = copy_machine(tmp_path, STRIX_HALO)
    set_kernel(root, "6.5.0-45-generic")
    report = run_doctor(SnapshotSystem(root), probe_torch=False)
    found = [f for f in report.findings if f.id == "kernel-old"]
    assert len(found) == 1
    assert found[0].title == "Kernel 6.5.0-45-generic is older than ROCm 7.14 supports"
    assert "Judged against ROCm 7.14, the release rocmate install plans" in found[0].detail
    assert "Ubuntu 24.04 with kernels 6.8 and newer" in found[0].detail
    plan = make_plan(report.facts, load_knowledge(), Choices())
    assert plan.rocm == "7.14"
    assert [c.title for c in plan.preflight if c.id == "kernel-old"] == [found[0].title]
