"""Specific facts the doctor relies on: GPU lookups, releases, wheels, distros."""

from __future__ import annotations

import pytest

from core.knowledge.loader import Knowledge, load_knowledge


@pytest.fixture(scope="module")
def kb() -> Knowledge:
    return load_knowledge()


@pytest.mark.parametrize(
    ("pci", "rev", "name", "gfx", "vram"),
    [
        ("1002:744c", "c8", "Radeon RX 7900 XTX", "gfx1100", 24),
        ("1002:744c", "cc", "Radeon RX 7900 XT", "gfx1100", 20),
        ("1002:744c", "ce", "Radeon RX 7900 GRE", "gfx1100", 16),
        ("1002:73df", "c1", "Radeon RX 6700 XT", "gfx1031", 12),
        ("1002:73ff", "c1", "Radeon RX 6600 XT", "gfx1032", 8),
        ("1002:7550", "c0", "Radeon RX 9070 XT", "gfx1201", 16),
        ("1002:7590", "c0", "Radeon RX 9060 XT", "gfx1200", 16),
        ("1002:747e", "c8", "Radeon RX 7800 XT", "gfx1101", 16),
        ("1002:7480", "cf", "Radeon RX 7600", "gfx1102", 8),
        ("1002:74a1", "00", "Instinct MI300X", "gfx942", 192),
        ("1002:75a3", "00", "Instinct MI355X", "gfx950", 288),
        ("1002:66af", "c1", "Radeon VII", "gfx906", 16),
    ],
)
def test_discrete_cards(
    kb: Knowledge, pci: str, rev: str, name: str, gfx: str, vram: int
) -> None:
    row = kb.gpu_by_pci(pci, rev)
    assert row is not None
    assert (row.name, row.gfx, row.vram_gib, row.integrated, row.vendor) == (
        name, gfx, vram, False, "amd"
    )


def test_lookup_is_case_insensitive_and_takes_0x(kb: Knowledge) -> None:
    row = kb.gpu_by_pci("1002:744C", "0xC8")
    assert row is not None and row.name == "Radeon RX 7900 XTX"
    assert kb.gpu_by_pci("0x1002:0x744c", "C8") == row


def test_unknown_revision_falls_back_to_generic_row(kb: Knowledge) -> None:
    row = kb.gpu_by_pci("1002:744c", "ff")
    assert row is not None
    assert row.revisions == ()
    assert row.gfx == "gfx1100"
    assert "7900" in row.name and "series" in row.name
    assert kb.gpu_by_pci("1002:744c", None) == row


def test_unknown_device_is_none(kb: Knowledge) -> None:
    assert kb.gpu_by_pci("1002:ffff", "00") is None
    assert kb.gpu_by_pci("not-a-pci-id", None) is None


def test_strix_halo(kb: Knowledge) -> None:
    row = kb.gpu_by_pci("1002:1586", None)
    assert row is not None
    assert row.gfx == "gfx1151" and row.integrated and row.vram_gib is None
    named = kb.gpu_by_pci("1002:1586", "c1")
    assert named is not None and named.name == "Radeon 8060S Graphics"
    assert kb.gpu_by_pci("1002:1586", "d5") is not None
    assert kb.gpu_by_pci("1002:1586", "d5").name == "Radeon 8040S Graphics"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("pci", "rev", "gfx", "fragment"),
    [
        ("1002:15bf", "c1", "gfx1103", "780M"),
        ("1002:15bf", "c3", "gfx1103", "760M"),
        ("1002:1900", "01", "gfx1103", "780M"),
        ("1002:150e", "c1", "gfx1150", "890M"),
        ("1002:150e", "c4", "gfx1150", "880M"),
        ("1002:1114", "c2", "gfx1152", "860M"),
        ("1002:1681", "c8", "gfx1035", "680M"),
        ("1002:164e", "d8", "gfx1036", "610M"),
        ("1002:1506", "c1", "gfx1036", "610M"),
        ("1002:15dd", "c2", "gfx902", "Vega 8"),
        ("1002:15d8", "c8", "gfx902", "Vega 11"),
        ("1002:1638", None, "gfx90c", "Cezanne"),
        ("1002:163f", "ae", "gfx1033", "Custom GPU 0405"),
    ],
)
def test_apus(kb: Knowledge, pci: str, rev: str | None, gfx: str, fragment: str) -> None:
    row = kb.gpu_by_pci(pci, rev)
    assert row is not None
    assert row.gfx == gfx and row.integrated and fragment in row.name


@pytest.mark.parametrize(
    ("pci", "rev", "name"),
    [
        ("1002:67df", "c7", "Radeon RX 480 Graphics"),
        ("1002:67df", "e1", "Radeon RX 590 Series"),
        ("1002:687f", "c1", "Radeon RX Vega"),
        ("1002:6863", "00", "Radeon Vega Frontier Edition"),
        ("1002:6860", "00", "Radeon Instinct MI25"),
        ("1002:66a1", "02", "Instinct MI60 / MI50"),
        ("1002:738c", "01", "Instinct MI100"),
        ("1002:740f", "02", "Instinct MI210"),
        ("1002:7408", "00", "Instinct MI250X"),
        ("1002:74a0", "00", "Instinct MI300A"),
        ("1002:74a2", "00", "Instinct MI308X"),
        ("1002:74a5", "00", "Instinct MI325X"),
        ("1002:75a0", "00", "Instinct MI350X"),
        ("1002:731f", "c1", "Radeon RX 5700 XT"),
        ("1002:7340", "c5", "Radeon RX 5500 XT"),
        ("1002:7551", "c0", "Radeon AI PRO R9700"),
        ("1002:7448", "00", "Radeon Pro W7900"),
    ],
)
def test_older_and_datacenter_cards(kb: Knowledge, pci: str, rev: str, name: str) -> None:
    row = kb.gpu_by_pci(pci, rev)
    assert row is not None and row.name == name


def test_nvidia_and_intel_get_names(kb: Knowledge) -> None:
    h200 = kb.gpu_by_pci("10de:2335", "a1")
    assert h200 is not None
    assert (h200.name, h200.vendor, h200.gfx) == ("H200", "nvidia", None)
    assert h200.peak_tflops_bf16 == 989.4 and h200.mem_bandwidth_gbs == 4800
    for pci, name in [
        ("10de:2330", "H100 SXM5 80GB"),
        ("10de:2331", "H100 PCIe"),
        ("10de:20b0", "A100 SXM4 40GB"),
        ("10de:20b2", "A100 SXM4 80GB"),
        ("10de:2684", "GeForce RTX 4090"),
        ("10de:2204", "GeForce RTX 3090"),
    ]:
        row = kb.gpu_by_pci(pci, None)
        assert row is not None and row.name == name and row.vendor == "nvidia"
    igpu = kb.gpu_by_pci("8086:9a49", "01")
    assert igpu is not None and igpu.vendor == "intel" and igpu.integrated


def test_peaks_where_sourced(kb: Knowledge) -> None:
    xtx = kb.gpu_by_pci("1002:744c", "c8")
    assert xtx is not None
    assert (xtx.peak_tflops_fp16, xtx.peak_tflops_fp32, xtx.mem_bandwidth_gbs) == (122.8, 61.4, 960)
    mi300x = kb.gpu_by_pci("1002:74a1", "00")
    assert mi300x is not None and mi300x.peak_tflops_fp16 == 1307.4
    for row in kb.gpus:
        for peak in (row.peak_tflops_fp16, row.peak_tflops_bf16, row.peak_tflops_fp32):
            if peak is not None:
                assert "peaks:" in row.source, row  # the page each peak was read from


def test_gpus_by_gfx(kb: Knowledge) -> None:
    names = {row.name for row in kb.gpus_by_gfx("gfx1100")}
    assert {"Radeon RX 7900 XTX", "Radeon Pro W7900"} <= names
    assert kb.gpus_by_gfx("gfx90a:sramecc+:xnack-")


# ---- releases and wheels ---------------------------------------------------------------------


def test_releases(kb: Knowledge) -> None:
    versions = [r.version for r in kb.releases]
    for wanted in ("5.7", "6.0", "6.1", "6.2", "6.3", "6.4", "7.0", "7.1", "7.2"):
        assert wanted in versions
    r62 = kb.release("6.2.4")
    assert r62 is not None and r62.version == "6.2"
    assert r62.ubuntu == ("24.04", "22.04")
    assert r62.ubuntu_kernels["22.04"] == ("5.15", "6.5", "6.8")
    assert r62.amdgpu_install_deb == "amdgpu-install_6.2.60200-1_all.deb"
    assert r62.repo_dir == "6.2" and r62.min_kernel == "5.15"
    r64 = kb.release("6.4")
    assert r64 is not None and r64.targets_from["gfx1201"] == "6.4.1"
    assert kb.release("99.9") is None


def test_current_releases_newest_first(kb: Knowledge) -> None:
    current = kb.current_releases()
    assert [r.version for r in current] == ["10.1", "10.0", "7.14", "7.2", "7.1"]
    newest = kb.newest_release()
    assert newest is not None and newest.version == "10.1"
    for release in current:
        assert kb.torch_index_for(release.version) is not None, release.version


def test_repository_key(kb: Knowledge) -> None:
    assert kb.repository.key_fingerprint == "CA8BB4727A47B4D09B4EE8969386B48A1A693C5C"
    assert kb.repository.key_id == "9386B48A1A693C5C"
    assert kb.repository.key_url == "https://repo.radeon.com/rocm/rocm.gpg.key"


def test_torch_indexes(kb: Knowledge) -> None:
    i62 = kb.torch_index_for("6.2")
    assert i62 is not None and i62.name == "rocm6.2.4"  # the 6.2 index with the newest torch
    exact = kb.torch_index_for("6.2.4")
    assert exact is not None and exact.url == "https://download.pytorch.org/whl/rocm6.2.4"
    i72 = kb.torch_index_for("7.2")
    assert i72 is not None and i72.url == "https://download.pytorch.org/whl/rocm7.2"
    assert "2.14.0" in i72.torch
    i61 = kb.torch_index_for("6.1")
    assert i61 is not None and "gfx1030" in i61.arch_list and "gfx1031" not in i61.arch_list
    amd = kb.torch_index_for("10.0")
    assert amd is not None and amd.vendor == "amd" and amd.device_extra
    assert "gfx1151" in amd.arch_list
    assert kb.torch_index_for("4.2") is None


def test_therock(kb: Knowledge) -> None:
    t = kb.therock_for("gfx1100")
    assert t is not None and t.family == "whl-multi-arch" and t.device_extra and not t.frozen
    assert t.url == "https://rocm.nightlies.amd.com/whl-multi-arch/"
    s = kb.therock_for("gfx1150")
    assert s is not None and s.family == "whl-multi-arch"
    assert kb.therock_for("gfx803") is None
    legacy = next(r for r in kb.therock if r.family == "gfx110X-all")
    assert legacy.frozen and legacy.url == "https://rocm.nightlies.amd.com/v2/gfx110X-all/"


# ---- distros ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("codename", "version"),
    [("xenial", "16.04"), ("focal", "20.04"), ("jammy", "22.04"), ("noble", "24.04"),
     ("questing", "25.10"), ("resolute", "26.04"), ("Jammy", "22.04")],
)
def test_ubuntu_codenames(kb: Knowledge, codename: str, version: str) -> None:
    assert kb.ubuntu_version_for(codename) == version
    assert kb.ubuntu_codename_for(version) == codename.lower()


def test_unknown_codename(kb: Knowledge) -> None:
    assert kb.ubuntu_version_for("vera") is None
    assert kb.ubuntu_version_for(None) is None


def test_derivatives_and_families(kb: Knowledge) -> None:
    for distro_id in ("linuxmint", "pop", "zorin", "elementary", "neon", "kde-neon", "tuxedo"):
        derivative = kb.derivative(distro_id)
        assert derivative is not None and derivative.base == "ubuntu"
    assert kb.derivative("fedora") is None
    rocky = kb.family_for("rocky", ["rhel", "centos", "fedora"])
    assert rocky is not None and rocky.package_manager == "dnf"
    assert kb.family_for("endeavouros", ["arch"]) is not None
    unknown = kb.family_for("frobnix", ["arch"])
    assert unknown is not None and unknown.package_manager == "pacman"
    suse = kb.family_for("opensuse-tumbleweed", ["opensuse", "suse"])
    assert suse is not None and suse.package_manager == "zypper"
    mint = kb.family_for("linuxmint", ["ubuntu", "debian"])
    assert mint is not None and mint.package_manager == "apt"
    assert kb.family_for("gentoo") is None
