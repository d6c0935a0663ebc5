"""The ROCm Core SDK (7.14 on, 10.x): its installs are found, and AMD's per-GPU system lists
(os-support.yaml) are applied to the card the user has.

Machines: tests/fixtures/machines/k16c-strix-halo-ubuntu2404-coresdk100 (Ryzen AI MAX+ 395 on
Ubuntu 24.04.3 with the 6.14 HWE kernel and the Core SDK 10.0 from AMD's apt repository) and
k16c-rx7600-rhel96 (RX 7600 on RHEL 9.6). Variants are copies of them with one file changed.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import tomllib

from core.diagnose.doctor import run_doctor
from core.knowledge.loader import Knowledge, load_knowledge
from core.knowledge.releases import parse_rocm
from core.knowledge.rows import KnowledgeError, read_table
from core.probe.rocm import probe_rocm
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
STRIX_HALO = MACHINES / "k16c-strix-halo-ubuntu2404-coresdk100"
RX7600_RHEL = MACHINES / "k16c-rx7600-rhel96"
CORE_SDK_KEY = "D0F004A0025A1145C7807FCD0701EAC4D5E02107"

UBUNTU_2204 = """PRETTY_NAME="Ubuntu 22.04.5 LTS"
NAME="Ubuntu"
VERSION_ID="22.04"
VERSION="22.04.5 LTS (Jammy Jellyfish)"
VERSION_CODENAME=jammy
ID=ubuntu
ID_LIKE=debian
UBUNTU_CODENAME=jammy
"""


@pytest.fixture(scope="module")
def kb() -> Knowledge:
    return load_knowledge()


def _doctor(machine: Path) -> dict[str, Any]:
    return run_doctor(SnapshotSystem(machine)).to_json()


def _finding(answer: dict[str, Any], finding_id: str) -> dict[str, Any] | None:
    return next((f for f in answer["findings"] if f["id"] == finding_id), None)


def _copy(machine: Path, tmp_path: Path) -> Path:
    target = tmp_path / machine.name
    shutil.copytree(machine, target, symlinks=True)
    return target


def _set_kernel(machine: Path, release: str) -> None:
    files = machine / "files"
    (files / "proc/sys/kernel/osrelease").write_text(release + "\n")
    (files / "proc/version").write_text(f"Linux version {release} (buildd@host) #1 SMP\n")


# -- item 5: the Core SDK install is found ------------------------------------------------------
def test_core_sdk_install_in_opt_rocm_core() -> None:
    facts = probe_rocm(SnapshotSystem(STRIX_HALO))
    assert facts.versions == ["10.0.0"]
    assert [(i.version, i.where, i.stream) for i in facts.installs] == [
        ("10.0.0", "/opt/rocm/core-10.0", "core-sdk")]
    assert _doctor(STRIX_HALO)["rocm"]["versions"] == ["10.0.0"]


def test_core_sdk_install_from_dpkg_alone(tmp_path: Path) -> None:
    """Without the /opt tree (another prefix, or a snapshot without it) the amdrocm packages
    still name the release: one install per X.Y series, named by its shortest package."""
    machine = _copy(STRIX_HALO, tmp_path)
    shutil.rmtree(machine / "files/opt")
    shutil.rmtree(machine / "files/etc/alternatives")
    facts = probe_rocm(SnapshotSystem(machine))
    assert [(i.version, i.where, i.stream) for i in facts.installs] == [
        ("10.0.0", "dpkg:amdrocm-base10.0", "core-sdk")]


def test_core_sdk_side_by_side_and_links_not_counted(tmp_path: Path) -> None:
    """/opt/rocm/core-10.0 and core-10.1 are two releases (rocm-multiple); the core and core-10
    alternatives links are not installs of their own."""
    machine = _copy(STRIX_HALO, tmp_path)
    second = machine / "files/opt/rocm/core-10.1/.info"
    second.mkdir(parents=True)
    (second / "version").write_text("10.1.0\n")
    facts = probe_rocm(SnapshotSystem(machine))
    assert facts.versions == ["10.1.0", "10.0.0"]
    assert {i.where for i in facts.installs} == {"/opt/rocm/core-10.0", "/opt/rocm/core-10.1"}
    assert _finding(_doctor(machine), "rocm-multiple") is not None


def test_legacy_install_still_found() -> None:
    facts = probe_rocm(SnapshotSystem(MACHINES / "strix-point-890m-ubuntu2404"))
    assert [(i.version, i.where, i.stream) for i in facts.installs] == [
        ("7.2.0", "/opt/rocm-7.2.0", "legacy")]


# -- item 3: Ryzen APUs and Radeon cards only on the systems AMD lists for them -----------------
def test_ryzen_apu_on_an_unlisted_kernel() -> None:
    """Ubuntu 24.04 with the 6.14 HWE kernel: ROCm 10.0 (and 7.14, whose systems 10.0 left
    unchanged) wants the OEM 6.17 kernel, 10.1 the HWE 7.0 kernel (os-support.yaml); the GPU
    still runs with this kernel's driver."""
    answer = _doctor(STRIX_HALO)
    finding = _finding(answer, "gpu-os-unsupported")
    assert finding is not None and finding["severity"] == "info"
    assert "HWE 7.0 (ROCm 10.1)" in finding["title"]
    assert "OEM 6.17 (ROCm 10.0 and 7.14)" in finding["title"]
    assert "Ubuntu 26.04.1 with the GA 7.0 kernel" in finding["detail"]
    assert "Ubuntu 24.04.5 with the HWE 7.0 kernel" in finding["detail"]
    assert "6.14.0-29-generic" in finding["detail"]
    assert "22.04" not in finding["detail"]  # never for Ryzen APUs
    assert "already runs the GPU" in finding["detail"]
    assert "linux-generic-hwe-24.04" in finding["fix"]
    assert "rocmate install --strategy pip-only" in finding["fix"]
    assert answer["gpus"][0]["support"]["status"] == "official"


@pytest.mark.parametrize(
    ("kernel", "listed"),
    [
        ("6.17.0-1012-oem", True),      # 10.0: Ubuntu 24.04.4 with the OEM 6.17 kernel
        ("7.0.0-14-generic", True),     # 10.1: Ubuntu 24.04.5 with the HWE 7.0 kernel
        ("6.17.0-14-generic", False),   # HWE 6.17 is Radeon's kernel, not the Ryzen APUs'
        ("6.8.0-90-generic", False),    # the GA kernel of 24.04
    ],
)
def test_ryzen_apu_kernels(tmp_path: Path, kernel: str, listed: bool) -> None:
    machine = _copy(STRIX_HALO, tmp_path)
    _set_kernel(machine, kernel)
    found = _finding(_doctor(machine), "gpu-os-unsupported")
    assert (found is None) == listed, found


def test_ryzen_apu_on_ubuntu_2204(tmp_path: Path) -> None:
    """Ubuntu 22.04 stays in ROCm 10.1 for Instinct and Radeon, never for Ryzen APUs."""
    machine = _copy(STRIX_HALO, tmp_path)
    (machine / "files/etc/os-release").write_text(UBUNTU_2204)
    _set_kernel(machine, "6.8.0-90-generic")
    answer = _doctor(machine)
    finding = _finding(answer, "gpu-os-unsupported")
    assert finding is not None
    # 7.14 too: its systems are 10.0's (the 10.0.0 release notes: unchanged), no 22.04 for Ryzen
    assert finding["title"] == ("AMD does not support the Radeon 8060S Graphics with ROCm 10.1, "
                                "10.0 and 7.14 on Ubuntu 22.04")
    assert _finding(answer, "distro-unsupported") is None  # AMD's packages are made for 22.04


def test_radeon_on_rhel_96() -> None:
    """RX 7600 (official only through the Core SDK): Radeon GPUs only on RHEL 10.2 and 9.8."""
    answer = _doctor(RX7600_RHEL)
    finding = _finding(answer, "gpu-os-unsupported")
    assert finding is not None
    assert "Red Hat Enterprise Linux 9.6" in finding["title"]
    assert "RHEL 10.2; RHEL 9.8" in finding["detail"]
    assert "Ubuntu 22.04.5 with the HWE 6.8 kernel" in finding["detail"]
    assert "rocmate install --strategy pip-only" in finding["fix"]
    assert _finding(answer, "distro-unsupported") is None
    assert answer["verdict"] == "Ready after these fixes"  # torch-missing, not this info


def test_radeon_on_rhel_98(tmp_path: Path) -> None:
    machine = _copy(RX7600_RHEL, tmp_path)
    release = machine / "files/etc/os-release"
    release.write_text(release.read_text().replace("9.6", "9.8"))
    assert _finding(_doctor(machine), "gpu-os-unsupported") is None


@pytest.mark.parametrize(("kernel", "listed"), [("6.8.0-90-generic", True),
                                                ("5.15.0-139-generic", False)])
def test_radeon_on_ubuntu_2204(tmp_path: Path, kernel: str, listed: bool) -> None:
    """Item 8: Ubuntu 22.04 stays in ROCm 10.1 (os-support.yaml 10.1: 22.04.5 with the HWE 6.8
    kernel for Radeon): the RX 7600 there is on AMD's list with 6.8, not with the GA 5.15."""
    machine = _copy(RX7600_RHEL, tmp_path)
    (machine / "files/etc/os-release").write_text(UBUNTU_2204)
    _set_kernel(machine, kernel)
    found = _finding(_doctor(machine), "gpu-os-unsupported")
    assert (found is None) == listed, found
    if found is not None:
        assert "Ubuntu 22.04 only with the HWE 6.8 (ROCm 10.1 and 10.0) kernel" in found["title"]


def test_wsl_is_left_to_its_own_lists(tmp_path: Path) -> None:
    machine = _copy(STRIX_HALO, tmp_path)
    _set_kernel(machine, "6.6.87.2-microsoft-standard-WSL2")
    assert _finding(_doctor(machine), "gpu-os-unsupported") is None


def test_distro_unsupported_names_the_family_systems() -> None:
    """On a distribution AMD makes nothing for, the APU owner reads the Ryzen list, not every
    Instinct distribution."""
    finding = _finding(_doctor(MACHINES / "strix-halo-8060s-fedora43"), "distro-unsupported")
    assert finding is not None
    assert "Ubuntu 24.04.5 with the HWE 7.0 kernel" in finding["detail"]
    assert "sles" not in finding["detail"].lower()


# -- the knowledge behind it --------------------------------------------------------------------
def test_ubuntu_2204_stays_in_10_1(kb: Knowledge) -> None:
    """Item 8, settled from os-support.yaml 10.1: 22.04.5 stays (GA 5.15 for Instinct, HWE 6.8
    for Radeon); so do the other distributions of 10.0."""
    release = kb.release("10.1")
    assert release is not None
    assert "22.04" in release.ubuntu
    assert release.ubuntu_kernels["22.04"] == ("5.15", "6.8")
    assert {"rhel-9.8", "rhel-10.2", "debian-13", "sles-16.0"} <= set(release.other_distros)
    radeon = release.platform_for("gfx1102")
    ryzen = release.platform_for("gfx1151")
    assert radeon is not None and ryzen is not None
    assert [f"{u.version} {u.flavour} {u.kernel}" for u in radeon.ubuntu] == [
        "26.04.1 GA 7.0", "24.04.5 HWE 7.0", "22.04.5 HWE 6.8"]
    assert [u.ubuntu for u in ryzen.ubuntu] == ["26.04", "24.04"]
    assert release.platform_for("gfx942") is None  # Instinct: the release-wide lists


def test_core_sdk_key_is_pinned(kb: Knowledge) -> None:
    for version in ("10.0", "10.1"):
        release = kb.release(version)
        assert release is not None
        assert release.key_url == "https://stable.repo.amd.com/rocm/gpg/packages.gpg"
        assert release.key_fingerprint == CORE_SDK_KEY
        assert "build_repo_package.py" in release.source
    # trusted by the helper now that the planner writes the Core SDK apt route
    assert CORE_SDK_KEY in kb.repository.trusted


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace('gpus = "ryzen"', 'gpus = "apu"', 1), "must be one of"),
        (lambda t: t.replace('targets = ["gfx1153", "gfx1152", "gfx1151", "gfx1150", "gfx1103"]',
                             'targets = ["gfx1153", "gfx1152", "gfx1151", "gfx1150", "gfx90c"]',
                             1), "not one of the release's targets"),
        (lambda t: t.replace('"24.04.4 OEM 6.17"', '"24.04.4 oem 6.17"', 1), "is not like"),
        (lambda t: t.replace('"24.04.4 OEM 6.17"', '"20.04 GA 5.4"', 1),
         "not in the release's ubuntu list"),
        (lambda t: t.replace('key_fingerprint = "D0F0', 'key_fingerprint = "d0f0', 1),
         "40 uppercase"),
    ],
)
def test_bad_platform_rows_are_refused(edit: Any, message: str) -> None:
    data_dir = Path(__file__).resolve().parents[2] / "resources" / "data"
    text = (data_dir / "rocm.toml").read_text(encoding="utf-8")
    changed = edit(text)
    assert changed != text
    with pytest.raises(KnowledgeError, match=message):
        parse_rocm(tomllib.loads(changed))
    assert read_table(data_dir, "rocm.toml")  # the shipped file itself loads


def test_a_list_of_three_reads_as_a_sentence_in_both_languages() -> None:
    """"10.1 and 10.0 and 7.14" read as one "and" too many; Chinese lists take 、."""
    from core import i18n
    from core.diagnose.rules_system import _listed
    assert _listed(["10.1"]) == "10.1"
    assert _listed(["10.1", "10.0"]) == "10.1 and 10.0"
    assert _listed(["10.1", "10.0", "7.14"]) == "10.1, 10.0 and 7.14"
    i18n.set_language("zh_CN")
    try:
        assert _listed(["10.1", "10.0", "7.14"]) == "10.1、10.0和7.14"
    finally:
        i18n.set_language(None)
