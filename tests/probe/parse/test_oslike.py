"""os-release, lsb-release, kernel release, WSL detection, dpkg status, Secure Boot."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.probe.parse.platform_files import (
    DpkgPackage,
    kernel_version_tuple,
    parse_dpkg_status,
    parse_kernel_release,
    parse_lsb_release,
    parse_mokutil_sb_state,
    parse_os_release,
    parse_secure_boot_efivar,
    wsl_version,
)

Loader = Callable[[str], str]
KEYS = ("ID", "VERSION_ID", "VERSION_CODENAME", "UBUNTU_CODENAME", "ID_LIKE", "PRETTY_NAME")

# file -> (number of keys, {key: value} for the keys in KEYS that the file has)
OS_RELEASE: dict[str, tuple[int, dict[str, str]]] = {
    "os/os-release-ubuntu24.txt": (
        13,
        {
            "ID": "ubuntu",
            "VERSION_ID": "24.04",
            "VERSION_CODENAME": "noble",
            "UBUNTU_CODENAME": "noble",
            "ID_LIKE": "debian",
            "PRETTY_NAME": "Ubuntu 24.04.3 LTS",
        },
    ),
    "os/os-release-ubuntu2504.txt": (
        13,
        {
            "ID": "ubuntu",
            "VERSION_ID": "25.04",
            "VERSION_CODENAME": "plucky",
            "UBUNTU_CODENAME": "plucky",
            "ID_LIKE": "debian",
            "PRETTY_NAME": "Ubuntu 25.04",
        },
    ),
    "os/os-release-ubuntu2510.txt": (
        13,
        {
            "ID": "ubuntu",
            "VERSION_ID": "25.10",
            "VERSION_CODENAME": "questing",
            "UBUNTU_CODENAME": "questing",
            "ID_LIKE": "debian",
            "PRETTY_NAME": "Ubuntu 25.10",
        },
    ),
    "os/os-release-ubuntu16.txt": (
        10,
        {
            "ID": "ubuntu",
            "VERSION_ID": "16.04",
            "UBUNTU_CODENAME": "xenial",
            "ID_LIKE": "debian",
            "PRETTY_NAME": "Ubuntu 16.04.1 LTS",
        },
    ),
    "os/os-release-ubuntu2204-via-ssh-server.txt": (
        12,
        {
            "ID": "ubuntu",
            "VERSION_ID": "22.04",
            "VERSION_CODENAME": "jammy",
            "UBUNTU_CODENAME": "jammy",
            "ID_LIKE": "debian",
            "PRETTY_NAME": "Ubuntu 22.04.4 LTS",
        },
    ),
    "os/os-release-ubuntu2204-wsl2-zsh-prompt.txt": (
        12,
        {
            "ID": "ubuntu",
            "VERSION_ID": "22.04",
            "VERSION_CODENAME": "jammy",
            "UBUNTU_CODENAME": "jammy",
            "ID_LIKE": "debian",
            "PRETTY_NAME": "Ubuntu 22.04.4 LTS",
        },
    ),
    "os/os-release-ubuntu2410-development-branch-partial.txt": (
        5,
        {
            "VERSION_ID": "24.10",
            "VERSION_CODENAME": "oracular",
            "PRETTY_NAME": "Ubuntu Oracular Oriole (development branch)",
        },
    ),
    "os/os-release-ubuntu2410-oracular-osboxes-vm.txt": (
        13,
        {
            "ID": "ubuntu",
            "VERSION_ID": "24.10",
            "VERSION_CODENAME": "oracular",
            "UBUNTU_CODENAME": "oracular",
            "ID_LIKE": "debian",
            "PRETTY_NAME": "Ubuntu 24.10",
        },
    ),
    "os/os-release-ansible-ubuntu_18_04.txt": (
        12,
        {
            "ID": "ubuntu",
            "VERSION_ID": "18.04",
            "VERSION_CODENAME": "bionic",
            "UBUNTU_CODENAME": "bionic",
            "ID_LIKE": "debian",
            "PRETTY_NAME": "Ubuntu 18.04.3 LTS",
        },
    ),
    "os/os-release-linuxmint17.txt": (
        9,
        {
            "ID": "ubuntu",
            "VERSION_ID": "14.04",
            "ID_LIKE": "debian",
            "PRETTY_NAME": "Ubuntu 14.04.3 LTS",
        },
    ),
    "os/os-release-linuxmint-211-vera.txt": (
        12,
        {
            "ID": "linuxmint",
            "VERSION_ID": "21.1",
            "VERSION_CODENAME": "vera",
            "UBUNTU_CODENAME": "jammy",
            "ID_LIKE": "ubuntu debian",
            "PRETTY_NAME": "Linux Mint 21.1",
        },
    ),
    "os/os-release-linuxmint-212-hand-edited-ODDITY.txt": (
        5,
        {
            "VERSION_CODENAME": "victoria",
            "UBUNTU_CODENAME": "jammy",
            "ID_LIKE": "ubuntu debian",
            "PRETTY_NAME": "Linux Mint 21.2",
        },
    ),
    "os/os-release-ansible-linux_mint_19_1.txt": (
        12,
        {
            "ID": "linuxmint",
            "VERSION_ID": "19.1",
            "VERSION_CODENAME": "tessa",
            "UBUNTU_CODENAME": "bionic",
            "ID_LIKE": "ubuntu",
            "PRETTY_NAME": "Linux Mint 19.1",
        },
    ),
    "os/os-release-ansible-kde_neon_16_04.txt": (
        11,
        {
            "ID": "neon",
            "VERSION_ID": "16.04",
            "VERSION_CODENAME": "xenial",
            "UBUNTU_CODENAME": "xenial",
            "ID_LIKE": "ubuntu debian",
            "PRETTY_NAME": "KDE neon User Edition 5.8",
        },
    ),
    "os/os-release-ansible-pop_os_20_04.txt": (
        13,
        {
            "ID": "pop",
            "VERSION_ID": "20.04",
            "VERSION_CODENAME": "focal",
            "UBUNTU_CODENAME": "focal",
            "ID_LIKE": "ubuntu debian",
            "PRETTY_NAME": "Pop!_OS 20.04",
        },
    ),
    "os/etc-release-glob-popos-2204-lsb-plus-os-release.txt": (
        17,
        {
            "ID": "pop",
            "VERSION_ID": "22.04",
            "VERSION_CODENAME": "jammy",
            "UBUNTU_CODENAME": "jammy",
            "ID_LIKE": "ubuntu debian",
            "PRETTY_NAME": "Pop!_OS 22.04 LTS",
        },
    ),
    "os/os-release-debian10.txt": (
        9,
        {
            "ID": "debian",
            "VERSION_ID": "10",
            "VERSION_CODENAME": "buster",
            "PRETTY_NAME": "Debian GNU/Linux 10 (buster)",
        },
    ),
    "os/os-release-debian12-raspberry-pi-os.txt": (
        9,
        {
            "ID": "debian",
            "VERSION_ID": "12",
            "VERSION_CODENAME": "bookworm",
            "PRETTY_NAME": "Debian GNU/Linux 12 (bookworm)",
        },
    ),
    "os/os-release-debian13.txt": (
        10,
        {
            "ID": "debian",
            "VERSION_ID": "13",
            "VERSION_CODENAME": "trixie",
            "PRETTY_NAME": "Debian GNU/Linux 13 (trixie)",
        },
    ),
    "os/uname-a-and-os-release-debian12-vm.txt": (
        9,
        {
            "ID": "debian",
            "VERSION_ID": "12",
            "VERSION_CODENAME": "bookworm",
            "PRETTY_NAME": "Debian GNU/Linux 12 (bookworm)",
        },
    ),
    "os/uname-a-os-release-ubuntu2410-riscv64.txt": (
        13,
        {
            "ID": "ubuntu",
            "VERSION_ID": "24.10",
            "VERSION_CODENAME": "oracular",
            "UBUNTU_CODENAME": "oracular",
            "ID_LIKE": "debian",
            "PRETTY_NAME": "Ubuntu 24.10",
        },
    ),
    "os/os-release-ansible-steamos_2_0.txt": (
        9,
        {
            "ID": "steamos",
            "VERSION_ID": "2",
            "ID_LIKE": "debian",
            "PRETTY_NAME": "SteamOS GNU/Linux 2.0 (brewmaster)",
        },
    ),
    "os/os-release-fedora42.txt": (
        20,
        {
            "ID": "fedora",
            "VERSION_ID": "42",
            "VERSION_CODENAME": "",
            "PRETTY_NAME": "Fedora Linux 42 (Forty Two)",
        },
    ),
    "os/os-release-ansible-fedora_31.txt": (
        21,
        {
            "ID": "fedora",
            "VERSION_ID": "31",
            "VERSION_CODENAME": "",
            "PRETTY_NAME": "Fedora 31 (Workstation Edition)",
        },
    ),
    "os/etc-release-glob-fedora40-workstation.txt": (
        22,
        {
            "ID": "fedora",
            "VERSION_ID": "40",
            "VERSION_CODENAME": "",
            "PRETTY_NAME": "Fedora Linux 40 (Workstation Edition)",
        },
    ),
    "os/os-release-rhel9.txt": (
        17,
        {
            "ID": "rhel",
            "VERSION_ID": "9.6",
            "ID_LIKE": "fedora",
            "PRETTY_NAME": "Red Hat Enterprise Linux 9.6 (Plow)",
        },
    ),
    "os/os-release-rocky9.txt": (
        17,
        {
            "ID": "rocky",
            "VERSION_ID": "9.3",
            "ID_LIKE": "rhel centos fedora",
            "PRETTY_NAME": "Rocky Linux 9.3 (Blue Onyx)",
        },
    ),
    "os/os-release-opensuse15.txt": (
        10,
        {
            "ID": "opensuse-leap",
            "VERSION_ID": "15.2",
            "ID_LIKE": "suse opensuse",
            "PRETTY_NAME": "openSUSE Leap 15.2",
        },
    ),
    "os/os-release-opensuse-tumbleweed-20231114-container.txt": (
        12,
        {
            "ID": "opensuse-tumbleweed",
            "VERSION_ID": "20231114",
            "ID_LIKE": "opensuse suse",
            "PRETTY_NAME": "openSUSE Tumbleweed",
        },
    ),
    "os/os-release-ansible-opensuse_tumbleweed_20160917.txt": (
        9,
        {
            "ID": "opensuse",
            "VERSION_ID": "20160917",
            "ID_LIKE": "suse",
            "PRETTY_NAME": "openSUSE Tumbleweed",
        },
    ),
    "os/alsa-info-tumbleweed-steamdeck-os-release-flattened.txt": (
        9,
        {
            "ID": "opensuse-tumbleweed",
            "ID_LIKE": "opensuse suse",
            "PRETTY_NAME": "openSUSE Tumbleweed",
        },
    ),
    "os/os-release-arch.txt": (11, {"ID": "arch", "PRETTY_NAME": "Arch Linux"}),
    "os/os-release-ansible-archlinux_rolling.txt": (
        10,
        {"ID": "arch", "PRETTY_NAME": "Arch Linux"},
    ),
    "os/os-release-manjaro1512.txt": (7, {"ID": "manjaro", "PRETTY_NAME": "Manjaro Linux"}),
    "os/issue-template-os-cpu-gpu-grep-fedora43-strix-halo.txt": (2, {}),
    "os/env-summary-printf-ubuntu2204-uname-r-custom-kernel.txt": (
        1,
        {"PRETTY_NAME": "Ubuntu 22.04.4 LTS"},
    ),
}


@pytest.mark.parametrize("name", sorted(OS_RELEASE))
def test_os_release(name: str, load_output: Loader) -> None:
    count, expected = OS_RELEASE[name]
    values = parse_os_release(load_output(name))
    assert len(values) == count
    assert {key: values[key] for key in KEYS if key in values} == expected
    assert all(key == key.upper() for key in values)


def test_os_release_odd_values(load_output: Loader) -> None:
    mint = parse_os_release(load_output("os/os-release-linuxmint-212-hand-edited-ODDITY.txt"))
    assert mint["VERSION"] == "21.2 (Victoria)"
    flattened = parse_os_release(
        load_output("os/alsa-info-tumbleweed-steamdeck-os-release-flattened.txt")
    )
    assert flattened["CPE_NAME"] == "cpe:2.3:o:opensuse:tumbleweed:20240209:*:*:*:*:*:*:*"
    assert flattened["DOCUMENTATION_URL"] == "https://en.opensuse.org/Portal:Tumbleweed"
    tumbleweed = parse_os_release(
        load_output("os/os-release-opensuse-tumbleweed-20231114-container.txt")
    )
    assert "VERSION" not in tumbleweed  # '# VERSION="20231114"' is a comment
    fedora = parse_os_release(load_output("os/os-release-fedora42.txt"))
    assert "CODENAME" not in fedora  # python-distro's derived key is not in the file


def test_os_release_shell_syntax() -> None:
    text = (
        '# comment\n\nNAME=\'Single Quoted\'\nPRETTY_NAME="Say \\"hi\\" \\$HOME \\\\ \\`x\\`"\n'
        'ID=plain\nVERSION="multi\nline"\n'
    )
    assert parse_os_release(text) == {
        "NAME": "Single Quoted",
        "PRETTY_NAME": 'Say "hi" $HOME \\ `x`',
        "ID": "plain",
        "VERSION": "multi\nline",
    }


def test_os_release_survives_unbalanced_quotes() -> None:
    text = 'ID=ubuntu\nbob\'s junk line\nVERSION_ID="24.04"\nNAME="Ubuntu\n'
    assert parse_os_release(text) == {"ID": "ubuntu", "VERSION_ID": "24.04", "NAME": "Ubuntu"}


def test_lsb_release(load_output: Loader) -> None:
    pop = parse_lsb_release(load_output("os/etc-release-glob-popos-2204-lsb-plus-os-release.txt"))
    assert pop == {
        "DISTRIB_ID": "Pop",
        "DISTRIB_RELEASE": "22.04",
        "DISTRIB_CODENAME": "jammy",
        "DISTRIB_DESCRIPTION": "Pop!_OS 22.04 LTS",
    }
    dump = parse_lsb_release(
        load_output("amd-smi/diag-dump-2x-r9700-metric-json-head-table-rocm720.txt")
    )
    assert dump == {
        "DISTRIB_ID": "Ubuntu",
        "DISTRIB_DESCRIPTION": "Ubuntu 24.04.3 LTS",
        "DISTRIB_RELEASE": "24.04",
        "DISTRIB_CODENAME": "noble",
    }


# file -> (kernel release, version tuple, WSL version)
KERNELS = {
    "os/proc-version-wsl1-4.4.0-18362-build1049.txt": ("4.4.0-18362-Microsoft", (4, 4, 0), 1),
    "os/proc-version-wsl1-4.4.0-19041-build1-2019.txt": ("4.4.0-19041-Microsoft", (4, 4, 0), 1),
    "os/proc-version-wsl1-4.4.0-43-2014.txt": ("4.4.0-43-Microsoft", (4, 4, 0), 1),
    "os/proc-version-wsl2-5.10.60.1.txt": ("5.10.60.1-microsoft-standard-WSL2", (5, 10, 60), 2),
    "os/proc-version-wsl2-5.15.153.1.txt": ("5.15.153.1-microsoft-standard-WSL2", (5, 15, 153), 2),
    "os/dmesg-linux-version-wsl2-6.18.33.2.txt": (
        "6.18.33.2-microsoft-standard-WSL2",
        (6, 18, 33),
        2,
    ),
    "os/sar-header-wsl2-5.15.90.1.txt": ("5.15.90.1-microsoft-standard-WSL2", (5, 15, 90), 2),
    "os/proc-version-alpine-hardened.txt": ("4.9.32-0-hardened", (4, 9, 32), None),
    "os/proc-version-debian7-686-pae.txt": ("3.2.0-4-686-pae", (3, 2, 0), None),
    "os/uname-a-and-os-release-debian12-vm.txt": ("6.1.0-47-amd64", (6, 1, 0), None),
    "os/uname-a-fedora44-kernel-7.0.4.txt": ("7.0.4-200.fc44.x86_64", (7, 0, 4), None),
    "os/uname-a-os-release-ubuntu2410-riscv64.txt": ("6.11.0-8-generic", (6, 11, 0), None),
    "os/os-release-opensuse-tumbleweed-20231114-container.txt": (
        "6.2.0-1015-azure",
        (6, 2, 0),
        None,
    ),
    "os/env-summary-printf-ubuntu2204-uname-r-custom-kernel.txt": (
        "5.15.86-051586-generic",
        (5, 15, 86),
        None,
    ),
}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_kernel_release_and_wsl(name: str, load_output: Loader) -> None:
    release, version, wsl = KERNELS[name]
    text = load_output(name)
    assert parse_kernel_release(text) == release
    assert kernel_version_tuple(release) == version
    assert wsl_version(release, text) == wsl
    assert wsl_version(None, text) == wsl


@pytest.mark.parametrize(
    ("text", "release"),
    [
        ("6.8.0-45-generic\n", "6.8.0-45-generic"),
        ("6.10-rc1\n", "6.10-rc1"),
        ("", None),
        ("12.9\n", None),  # /etc/debian_version, not a kernel
        ("Linux version \n", None),
    ],
)
def test_kernel_release_small(text: str, release: str | None) -> None:
    assert parse_kernel_release(text) == release


@pytest.mark.parametrize(
    ("release", "version"),
    [
        ("6.8.0-45-generic", (6, 8, 0)),
        ("6.10-rc1", (6, 10, 0)),
        ("5.15.153.1-microsoft-standard-WSL2", (5, 15, 153)),
        ("garbage", None),
        ("", None),
    ],
)
def test_kernel_version_tuple(release: str, version: tuple[int, int, int] | None) -> None:
    assert kernel_version_tuple(release) == version


@pytest.mark.parametrize(
    ("release", "proc", "wsl"),
    [
        ("4.19.104-microsoft-standard", None, 2),
        ("5.15.167.4-microsoft-standard-WSL2+", None, 2),
        ("6.6.36.3-custom-WSL2", None, 2),
        ("4.4.0-22621-Microsoft", None, 1),
        ("6.8.0-45-generic", "Linux version 6.8.0-45-generic (buildd@lcy02)", None),
        (None, None, None),
        ("6.8.0-45-generic", None, None),
    ],
)
def test_wsl_version(release: str | None, proc: str | None, wsl: int | None) -> None:
    assert wsl_version(release, proc) == wsl


def test_wsl_windows_side_kernel_version_is_not_a_linux_release(load_output: Loader) -> None:
    text = load_output("os/wsl-version-windows-chinese-locale.txt")
    assert parse_kernel_release(text) is None


DPKG_STATUS = """\
Package: rocm-core
Status: install ok installed
Priority: optional
Section: devel
Installed-Size: 120
Maintainer: ROCm Dev Support <rocm-dev.support@amd.com>
Architecture: amd64
Version: 6.4.1.60401-83~24.04
Description: ROCm Runtime software stack
 Multi-line description
 .
 Version: not this one

Package: amdgpu-dkms
Status: deinstall ok config-files
Version: 1:6.12.12.60401-2164967.24.04
Depends: dkms

Package: hip-runtime-amd
Status: install ok half-configured
Version: 6.4.43483.60401-83~24.04

Priority: optional
Section: junk-without-package
"""


def test_dpkg_status() -> None:
    packages = parse_dpkg_status(DPKG_STATUS)
    assert packages == (
        DpkgPackage("rocm-core", "6.4.1.60401-83~24.04", "install ok installed"),
        DpkgPackage("amdgpu-dkms", "1:6.12.12.60401-2164967.24.04", "deinstall ok config-files"),
        DpkgPackage("hip-runtime-amd", "6.4.43483.60401-83~24.04", "install ok half-configured"),
    )
    assert [package.installed for package in packages] == [True, False, False]
    assert parse_dpkg_status(DPKG_STATUS.replace("\n", "\r\n")) == packages
    assert parse_dpkg_status("") == ()


@pytest.mark.parametrize(
    ("data", "state"),
    [
        (b"\x06\x00\x00\x00\x01", True),
        (b"\x06\x00\x00\x00\x00", False),
        (b"\x16\x00\x00\x00\x01\x00", True),
        (b"\x06\x00\x00\x00\x02", None),
        (b"\x06\x00\x00\x00", None),
        (b"", None),
    ],
)
def test_secure_boot_efivar(data: bytes, state: bool | None) -> None:
    assert parse_secure_boot_efivar(data) is state


@pytest.mark.parametrize(
    ("text", "state"),
    [
        ("SecureBoot enabled\n", True),
        ("SecureBoot enabled\nSecureBoot validation is disabled in shim\n", True),
        ("SecureBoot disabled\n", False),
        ("This system doesn't support Secure Boot\n", False),
        ("EFI variables are not supported on this system\n", False),
        ("Failed to read SecureBoot\n", None),
        ("", None),
    ],
)
def test_mokutil(text: str, state: bool | None) -> None:
    assert parse_mokutil_sb_state(text) is state


ALL_OS = sorted(set(OS_RELEASE) | set(KERNELS))


@settings(max_examples=150, deadline=None)
@given(text=st.text())
def test_never_raises_on_text(text: str) -> None:
    _check_all(text)


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=2000))
def test_never_raises_on_bytes(data: bytes) -> None:
    _check_all(data.decode("utf-8", errors="replace"))
    assert parse_secure_boot_efivar(data) in (True, False, None)


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(ALL_OS), fraction=st.floats(0, 1))
def test_never_raises_on_prefixes(name: str, fraction: float, load_output: Loader) -> None:
    text = load_output(name)
    _check_all(text[: int(len(text) * fraction)])


def _check_all(text: str) -> None:
    for parse in (parse_os_release, parse_lsb_release):
        values = parse(text)
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in values.items())
    release = parse_kernel_release(text)
    assert release is None or release[:1].isdigit()
    version = kernel_version_tuple(text)
    assert version is None or len(version) == 3
    assert wsl_version(release, text) in (1, 2, None)
    assert all(isinstance(package, DpkgPackage) for package in parse_dpkg_status(text))
    assert parse_mokutil_sb_state(text) in (True, False, None)
