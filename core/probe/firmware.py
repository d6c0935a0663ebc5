"""The installed linux-firmware package that carries amdgpu's firmware, from the package database.

The GPU's firmware (MES, SMU, PSP, DMCUB...) comes from the distribution's linux-firmware package,
whose version is the upstream release date (``20251125``): what the known-bad stacks
(resources/data/known_bad.toml) are matched against. Asked of the package manager through the
machine's one door (:class:`core.system.System`, so a snapshot records the answer as a command):
``dpkg-query -W`` (Debian, Ubuntu), the pacman database folder names (Arch), ``rpm -q`` (Fedora,
openSUSE). Where a distribution splits the AMD files into their own
package (amd-gpu-firmware, linux-firmware-amdgpu, kernel-firmware-amdgpu, firmware-amd-graphics),
that package is the one named. Never raises; None when no package is found (or under WSL, where
the Windows driver brings the firmware).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from core.system import System

# The package names, AMD's own split first: the first one installed is the one named.
DPKG_NAMES = ("firmware-amd-graphics", "linux-firmware-amd-graphics", "linux-firmware")
PACMAN_NAMES = ("linux-firmware-amdgpu", "linux-firmware")
RPM_NAMES = ("amd-gpu-firmware", "kernel-firmware-amdgpu", "linux-firmware")
DPKG_QUERY = ("dpkg-query", "-W", *DPKG_NAMES)
RPM_QUERY = ("rpm", "-q", *RPM_NAMES)
PACMAN_DB = "/var/lib/pacman/local"

_DATE = re.compile(r"^(?:\d+:)?(\d{8})(?!\d)")
# "linux-firmware-amdgpu-20251125-2" (pacman folder), "amd-gpu-firmware-20251125-1.fc43.noarch"
_NAME_VERSION = re.compile(
    r"^(?P<name>[a-z0-9][a-z0-9+._-]*?)-(?P<version>(?:\d+:)?\d[^-\s]*-[^-\s]+)$")


@dataclass(frozen=True)
class FirmwareFacts:
    package: str
    """The package name ("linux-firmware", "amd-gpu-firmware", ...)."""
    version: str
    """Its version as the package manager gives it ("20251125-1.fc43", "1:20260810-1",
    "20240318.git3b128b60-0ubuntu2.13")."""
    manager: str
    """"dpkg", "pacman" or "rpm"."""

    @property
    def date(self) -> str | None:
        """The upstream linux-firmware release the package is built from ("20251125"); None when
        the version does not start with a date."""
        m = _DATE.match(self.version)
        return m.group(1) if m else None

    @property
    def distro_patched(self) -> bool:
        """Ubuntu's packages are a git snapshot of that date with Ubuntu's own changes on top:
        the date alone does not say which firmware files it has."""
        return "ubuntu" in self.version

    def to_json(self) -> dict[str, object]:
        return {"package": self.package, "version": self.version, "manager": self.manager,
                "date": self.date}


def probe_firmware(system: System, wsl: int | None) -> FirmwareFacts | None:
    """The AMD firmware package installed: dpkg, else pacman, else rpm."""
    if wsl:
        return None
    return (_from_dpkg(system) or parse_pacman_names(system.list_dir(PACMAN_DB) or [])
            or _from_rpm(system))


def parse_dpkg_query(output: str) -> FirmwareFacts | None:
    """``dpkg-query -W NAME...``'s lines ("linux-firmware\t20240318.git3b128b60-0ubuntu2.13";
    "dpkg-query: no packages found matching ..." for the others; an empty version: known to dpkg
    but not installed)."""
    found: dict[str, str] = {}
    for line in output.splitlines():
        name, tab, version = line.partition("\t")
        name = name.split(":")[0].strip()  # "linux-firmware:amd64" on some systems
        if tab and name in DPKG_NAMES and version.strip():
            found.setdefault(name, version.strip())
    return next((FirmwareFacts(name, found[name], "dpkg") for name in DPKG_NAMES
                 if name in found), None)


def _from_dpkg(system: System) -> FirmwareFacts | None:
    if not system.exists("/var/lib/dpkg/status"):
        return None
    result = system.run(list(DPKG_QUERY), timeout=5)
    return parse_dpkg_query(result.output) if result.output else None


def parse_pacman_names(entries: Iterable[str]) -> FirmwareFacts | None:
    """The firmware package among pacman's database folders ("linux-firmware-amdgpu-20251125-2")."""
    found: dict[str, str] = {}
    for entry in entries:
        m = _NAME_VERSION.match(entry.strip())
        if m and m.group("name") in PACMAN_NAMES:
            found[m.group("name")] = m.group("version")
    return next((FirmwareFacts(name, found[name], "pacman") for name in PACMAN_NAMES
                 if name in found), None)


def parse_rpm_query(output: str) -> FirmwareFacts | None:
    """``rpm -q NAME...``'s lines ("amd-gpu-firmware-20251125-1.fc43.noarch"; "package X is not
    installed" for the others)."""
    found: dict[str, str] = {}
    for line in output.splitlines():
        line = line.strip()
        for name in RPM_NAMES:
            if line.startswith(name + "-") and line[len(name) + 1:][:1].isdigit():
                version = line[len(name) + 1:]
                version = re.sub(r"\.(noarch|x86_64|aarch64)$", "", version)
                found.setdefault(name, version)
    return next((FirmwareFacts(name, found[name], "rpm") for name in RPM_NAMES
                 if name in found), None)


def _from_rpm(system: System) -> FirmwareFacts | None:
    # asked without looking for rpm's database first: where there is no rpm the command is not
    # found (at once), and a snapshot that did not record the question answers the same
    result = system.run(list(RPM_QUERY), timeout=5)
    return parse_rpm_query(result.output) if result.output else None
