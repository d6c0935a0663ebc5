"""Known-bad stacks (resources/data/known_bad.toml): the doctor's finding and the warning before a
benchmark, from the installed linux-firmware package, the kernel and ROCm (issue 32, item 6).

Machines (tests/fixtures/machines/, SOURCE.md in each):
- k32-strix-halo-fedora43-firmware-20251125: Strix Halo (gfx1151) on Fedora 43 with the recalled
  amd-gpu-firmware-20251125-1.fc43 (MES 0x83): ROCm/legacy-rocm-build#5724 (AMD: "FW 0x83 will
  not work with any kernel"), kyuz0/amd-strix-halo-toolboxes#37.
- strix-halo-8060s-fedora43: the same hardware, a snapshot without the firmware package's
  answer: unknown is not bad.
- wsl2-ubuntu2204-rx7900xtx-ready: WSL 2, where the Windows driver brings the firmware.
Package-manager answers below are in the formats the reports show: pacman's "name version"
(ROCm/legacy-rocm-build#5665: "linux-firmware-amdgpu 20260110-1"), Fedora's rpm names
(kyuz0/amd-strix-halo-toolboxes#37: "amd-gpu-firmware-20251111-1.fc43.noarch"), dpkg-query -W's
"name<TAB>version".
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.diagnose.known_bad import FINDING, stack_matches
from core.i18n import set_language
from core.knowledge.loader import load_knowledge
from core.operations.benchmark import known_bad_warnings
from core.operations.machine import check_machine, open_machine
from core.probe.firmware import (
    FirmwareFacts,
    parse_dpkg_query,
    parse_pacman_names,
    parse_rpm_query,
)

ROOT = Path(__file__).resolve().parents[2]
MACHINES = ROOT / "tests" / "fixtures" / "machines"
BAD = MACHINES / "k32-strix-halo-fedora43-firmware-20251125"
SAME_UNKNOWN = MACHINES / "strix-halo-8060s-fedora43"
WSL = MACHINES / "wsl2-ubuntu2204-rx7900xtx-ready"
THREAD = re.compile(r"[\w.-]+/[\w.-]+#\d+")


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    set_language("en")
    yield
    set_language(None)


def test_recalled_firmware_is_a_doctor_finding() -> None:
    report = check_machine(BAD, probe_torch=False)
    found = [f for f in report.findings if f.id == FINDING]
    assert len(found) == 1, [f.id for f in report.findings]
    finding = found[0]
    assert finding.severity == "warning" and finding.needs_action
    assert "20251125" in finding.title and "Radeon 8060S" in finding.title
    assert "MES firmware 0x83" in finding.detail
    assert "amd-gpu-firmware-20251111" in finding.fix
    assert "ROCm/legacy-rocm-build#5724" in finding.fix
    firmware = report.facts.driver.firmware
    assert firmware == FirmwareFacts("amd-gpu-firmware", "20251125-1.fc43", "rpm")


def test_unknown_firmware_is_not_bad() -> None:
    report = check_machine(SAME_UNKNOWN, probe_torch=False)
    assert report.facts.driver.firmware is None
    assert FINDING not in [f.id for f in report.findings]


def test_wsl_never_matches() -> None:
    report = check_machine(WSL, probe_torch=False)
    assert report.facts.driver.firmware is None
    assert stack_matches(report.facts, load_knowledge().known_bad) == []


def test_benchmark_warns_before_it_starts() -> None:
    warnings = known_bad_warnings(open_machine(BAD))
    assert len(warnings) == 1
    assert "20251125" in warnings[0] and "may hang the GPU" in warnings[0]
    assert known_bad_warnings(open_machine(SAME_UNKNOWN)) == []


def test_doctor_json_carries_the_firmware_package() -> None:
    out = subprocess.run([sys.executable, "-m", "core.cli", "doctor", "--root", str(BAD),
                          "--no-torch", "--json"], capture_output=True, text=True, cwd=ROOT,
                         check=False)
    data = json.loads(out.stdout)
    assert data["driver"]["linux_firmware"] == {
        "package": "amd-gpu-firmware", "version": "20251125-1.fc43", "manager": "rpm",
        "date": "20251125"}
    assert FINDING in [f["id"] for f in data["findings"]]
    # a snapshot without the answer: the key is absent (older outputs stay as they were)
    out = subprocess.run([sys.executable, "-m", "core.cli", "doctor", "--root",
                          str(SAME_UNKNOWN), "--no-torch", "--json"], capture_output=True,
                         text=True, cwd=ROOT, check=False)
    assert "linux_firmware" not in json.loads(out.stdout)["driver"]


def test_package_manager_answers() -> None:
    assert parse_pacman_names(["rocm-core-7.1.1-1", "linux-firmware-20260110-1",
                               "linux-firmware-amdgpu-20260110-1"]) == \
        FirmwareFacts("linux-firmware-amdgpu", "20260110-1", "pacman")
    assert parse_pacman_names(["linux-firmware-amdgpu-1:20260810-1"]).date == "20260810"
    rpm = parse_rpm_query("amd-gpu-firmware-20251111-1.fc43.noarch\n"
                          "package kernel-firmware-amdgpu is not installed\n"
                          "linux-firmware-20251111-1.fc43.noarch\n")
    assert rpm == FirmwareFacts("amd-gpu-firmware", "20251111-1.fc43", "rpm")
    ubuntu = parse_dpkg_query("dpkg-query: no packages found matching firmware-amd-graphics\n"
                              "linux-firmware\t20240318.git3b128b60-0ubuntu2.13\n")
    assert ubuntu is not None and ubuntu.date == "20240318" and ubuntu.distro_patched
    assert parse_dpkg_query("dpkg-query: no packages found matching linux-firmware\n") is None
    assert parse_rpm_query("package amd-gpu-firmware is not installed\n") is None


def test_ranges_and_exact_versions() -> None:
    rows = {row.id: row for row in load_knowledge().known_bad}
    kernel = rows["kernel-6.14-6.15-gfx8-kfd"]  # ROCm/legacy-rocm-build#4919, lamikr#257
    assert [kernel.covers(v) for v in ("6.14.0", "6.14.1", "6.15.1", "6.15.7", "6.15.8")] == \
        [False, True, True, True, False]
    rocm = rows["rocm-7.0-7.1-gfx1151-hang"]  # getsolus/packages#8065: 7.2.0 ends it
    assert rocm.covers("7.1.25424") and rocm.covers("7.0.2") and not rocm.covers("7.2.0")
    firmware = rows["linux-firmware-20251125-mes-0x83"]
    assert firmware.covers("20251125") and not firmware.covers("20251111")


def test_every_row_is_sourced_and_names_known_cards() -> None:
    kb = load_knowledge()
    known = {row.gfx for row in kb.gpus}
    assert len(kb.known_bad) >= 3
    for row in kb.known_bad:
        assert THREAD.search(row.source), row.id
        assert set(row.targets) & known, row.id
