"""ROCm facts: installed releases (side by side too) and what the ROCm tools print.

Releases are found in /opt/rocm-*/.info/version and, for the ROCm Core SDK (7.14 on, built by
TheRock), in /opt/rocm/core-X.Y/.info/version; in dpkg's status file (AMD's rocm-core and
amdrocm-* packages and the distribution's own), in pacman's database and through rpm.
``rocminfo`` and ``rocm-smi`` (or ``amd-smi`` where rocm-smi is gone) run concurrently, each
with a timeout.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from core.probe.parse.platform_files import DpkgPackage, parse_dpkg_status
from core.probe.parse.rocminfo import RocminfoReport, parse_rocminfo
from core.probe.parse.smi import SmiReport, parse_amd_smi, parse_rocm_smi
from core.system import CommandResult, System

TOOL_TIMEOUT = 10.0
ROCMINFO = ("rocminfo",)
ROCM_SMI = ("rocm-smi", "--showproductname")
AMD_SMI = ("amd-smi", "static")
RPM_QUERY = ("rpm", "-q", "rocm-core", "rocminfo", "hip-runtime-amd")
# Packages whose version is the ROCm release they belong to.
_CORE_PACKAGES = re.compile(r"^rocm-core(\d[\d.]*)?$")
_DISTRO_HIP = re.compile(r"^libamdhip64-\d+$")
_VERSION = re.compile(r"(\d+\.\d+(?:\.\d+)?)")
# The ROCm Core SDK's layout (TheRock build_tools/packaging/linux/build_package.py: install prefix
# /opt/rocm/core-X.Y, core-asan-X.Y for ASAN builds; the amdrocm-core postinst links /opt/rocm/core
# and /opt/rocm/core-X to it through update-alternatives) and its versioned package names
# (amdrocm10.0, amdrocm-core-sdk10.0-gfx1151, amdrocm-base10.0: name, X.Y, optional -gfx suffix).
CORE_SDK_ROOT = "/opt/rocm"
_CORE_SDK_DIR = re.compile(r"^core-(?:asan-)?(\d+\.\d+)$")
_CORE_SDK_PACKAGE = re.compile(r"^amdrocm(?:-[a-z][a-z0-9-]*?)?(\d+\.\d+)(?:-gfx[0-9a-z]+)?$")


@dataclass(frozen=True)
class RocmInstall:
    version: str
    """"6.2.0" (major.minor.patch as far as known)."""
    where: str
    """Where: "/opt/rocm-6.2.0", "/opt/rocm/core-10.0", "dpkg:rocm-core",
    "dpkg:amdrocm10.0", "pacman:rocm-core", "distro:libamdhip64-5"."""
    stream: str = "legacy"
    """"core-sdk" for the ROCm Core SDK (amdrocm-* packages, /opt/rocm/core-X.Y), else
    "legacy" (rocm.toml's release streams)."""


@dataclass(frozen=True)
class RocmFacts:
    installs: tuple[RocmInstall, ...]
    rocminfo: RocminfoReport | None
    rocminfo_run: CommandResult | None
    smi: SmiReport | None
    smi_tool: str | None
    dpkg_packages: tuple[DpkgPackage, ...]

    @property
    def versions(self) -> list[str]:
        """Distinct releases, newest first."""
        seen = {install.version for install in self.installs}
        return sorted(seen, key=_version_key, reverse=True)

    @property
    def series(self) -> list[str]:
        """Distinct major.minor series, newest first (6.2.0 and 6.2.4 are one series)."""
        seen = {".".join(v.split(".")[:2]) for v in self.versions}
        return sorted(seen, key=_version_key, reverse=True)

    def to_json(self) -> dict[str, object]:
        return {
            "versions": self.versions,
            "installs": [{"version": i.version, "where": i.where} for i in self.installs],
            "rocminfo": _tool_json(self.rocminfo_run, self.rocminfo),
            "smi": None
            if self.smi is None
            else {
                "tool": self.smi_tool,
                "gpus": [g.name for g in self.smi.gpus],
                "error": self.smi.error,
            },
        }


def _tool_json(run: CommandResult | None, report: RocminfoReport | None) -> object:
    if run is None or not run.found:
        return None
    return {
        "ok": run.ok,
        "timed_out": run.timed_out,
        "returncode": run.returncode,
        "error": report.error if report else None,
        "gpu_agents": [a.gfx for a in report.agents if (a.device_type or "").upper() == "GPU"]
        if report
        else [],
    }


def probe_rocm(system: System) -> RocmFacts:
    """Installed ROCm releases and the ROCm tools' answers."""
    with ThreadPoolExecutor(max_workers=3) as pool:
        rocminfo_job = pool.submit(system.run, list(ROCMINFO), TOOL_TIMEOUT)
        smi_job = pool.submit(system.run, list(ROCM_SMI), TOOL_TIMEOUT)
        installs, packages = _installs(system)
        rocminfo_run = rocminfo_job.result()
        smi_run = smi_job.result()
    smi_tool: str | None = "rocm-smi"
    smi: SmiReport | None = parse_rocm_smi(smi_run.output) if smi_run.found else None
    if not smi_run.found:
        amd_run = system.run(list(AMD_SMI), TOOL_TIMEOUT)
        smi_tool = "amd-smi" if amd_run.found else None
        smi = parse_amd_smi(amd_run.output) if amd_run.found else None
    return RocmFacts(
        installs=tuple(installs),
        rocminfo=parse_rocminfo(rocminfo_run.output) if rocminfo_run.found else None,
        rocminfo_run=rocminfo_run,
        smi=smi,
        smi_tool=smi_tool,
        dpkg_packages=tuple(packages),
    )


def _installs(system: System) -> tuple[list[RocmInstall], list[DpkgPackage]]:
    installs = _opt_installs(system)
    packages = [
        p
        for p in parse_dpkg_status(system.read_text("/var/lib/dpkg/status") or "")
        if (p.status or "").endswith("installed")
    ]
    installs += _dpkg_installs(packages)
    installs += _pacman_installs(system)
    installs += _rpm_installs(system)
    return _dedupe(installs), packages


def _opt_installs(system: System) -> list[RocmInstall]:
    found = []
    for name in system.list_dir("/opt") or []:
        if not name.startswith("rocm"):
            continue
        path = f"/opt/{name}"
        if system.readlink(path) is not None:
            continue  # /opt/rocm -> rocm-6.2.0: the link is not a second install
        text = system.read_text(f"{path}/.info/version") or ""
        match = _VERSION.search(text) or _VERSION.search(name)
        if match:
            found.append(RocmInstall(_full(match.group(1)), path))
        if path == CORE_SDK_ROOT:
            found += _core_sdk_dirs(system)
    return found


def _core_sdk_dirs(system: System) -> list[RocmInstall]:
    """Core SDK releases side by side under /opt/rocm: core-10.0, core-10.1 (real folders; the
    core and core-X links point at one of them)."""
    found = []
    for name in system.list_dir(CORE_SDK_ROOT) or []:
        named = _CORE_SDK_DIR.match(name)
        path = f"{CORE_SDK_ROOT}/{name}"
        if named is None or system.readlink(path) is not None:
            continue
        text = system.read_text(f"{path}/.info/version") or ""
        match = _VERSION.search(text)
        version = match.group(1) if match and _series(match.group(1)) == named.group(1) else None
        found.append(RocmInstall(_full(version or named.group(1)), path, "core-sdk"))
    return found


def _dpkg_installs(packages: list[DpkgPackage]) -> list[RocmInstall]:
    found = []
    for package in packages:
        if _CORE_PACKAGES.match(package.name):
            match = _VERSION.search(package.version or "")
            if match:
                found.append(RocmInstall(_full(match.group(1)), f"dpkg:{package.name}"))
        elif _DISTRO_HIP.match(package.name):
            # Ubuntu/Debian's own ROCm: versions like 5.7.1-3 (noble) or 5.2.3-3 (bookworm)
            match = _VERSION.search(package.version or "")
            if match:
                found.append(RocmInstall(_full(match.group(1)), f"distro:{package.name}"))
    return found + _dpkg_core_sdk(packages)


def _dpkg_core_sdk(packages: list[DpkgPackage]) -> list[RocmInstall]:
    """Core SDK releases from their versioned amdrocm-* packages: one per X.Y series, named by
    its shortest package (amdrocm10.0 before amdrocm-core-sdk10.0-gfx1151)."""
    by_series: dict[str, DpkgPackage] = {}
    for package in packages:
        named = _CORE_SDK_PACKAGE.match(package.name)
        if named is None:
            continue
        known = by_series.get(named.group(1))
        if known is None or (len(package.name), package.name) < (len(known.name), known.name):
            by_series[named.group(1)] = package
    found = []
    for series, package in by_series.items():
        match = _VERSION.search(package.version or "")
        version = match.group(1) if match and _series(match.group(1)) == series else series
        found.append(RocmInstall(_full(version), f"dpkg:{package.name}", "core-sdk"))
    return found


def _pacman_installs(system: System) -> list[RocmInstall]:
    found = []
    for name in system.list_dir("/var/lib/pacman/local") or []:
        if name.startswith("rocm-core-"):
            match = _VERSION.search(name[len("rocm-core-") :])
            if match:
                found.append(RocmInstall(_full(match.group(1)), "pacman:rocm-core"))
    return found


def _rpm_installs(system: System) -> list[RocmInstall]:
    # asked without looking for rpm's database first (as the firmware probe does): where there
    # is no rpm the command is not found, and a recorded machine holds rpm's answer but not
    # the database's folder (Fedora's own ROCm rpms went unseen on replay)
    result = system.run(list(RPM_QUERY), timeout=5)
    found = []
    for line in result.output.splitlines() if result.ok or result.output else []:
        if line.startswith("rocm-core-"):
            match = _VERSION.search(line[len("rocm-core-") :])
            if match:
                found.append(RocmInstall(_full(match.group(1)), "rpm:rocm-core"))
    return found


def _dedupe(installs: list[RocmInstall]) -> list[RocmInstall]:
    """One entry per release; /opt beats the package database as the place to name."""
    by_version: dict[str, RocmInstall] = {}
    for install in installs:
        by_version.setdefault(install.version, install)
    return list(by_version.values())


def _series(version: str) -> str:
    return ".".join(version.split(".")[:2])


def _full(version: str) -> str:
    parts = version.split(".")
    while len(parts) < 3:
        parts.append("0")
    return ".".join(parts[:3])


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else 0 for p in version.split("."))
