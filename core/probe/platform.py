"""Platform facts: distribution (and its Ubuntu base), kernel, WSL 1 / WSL 2, /dev/dxg."""

from __future__ import annotations

from dataclasses import dataclass

from core.probe.parse.platform_files import (
    kernel_version_tuple,
    parse_kernel_release,
    parse_lsb_release,
    parse_os_release,
    wsl_version,
)
from core.system import System

OS_RELEASE_FILES = ("/etc/os-release", "/usr/lib/os-release")
WSL_INTEROP_FILE = "/proc/sys/fs/binfmt_misc/WSLInterop"


@dataclass(frozen=True)
class PlatformFacts:
    distro_id: str
    """os-release ID ("ubuntu", "linuxmint", "pop", "fedora", ...), "unknown" when unreadable."""
    distro_name: str
    distro_version: str
    codename: str
    ubuntu_codename: str
    """The Ubuntu release a derivative is built on (UBUNTU_CODENAME), "" when none."""
    id_like: tuple[str, ...]
    kernel: str
    kernel_version: tuple[int, int, int] | None
    wsl: int | None
    dxg: bool
    wsl_interop: bool

    @property
    def is_ubuntu_family(self) -> bool:
        return bool(self.ubuntu_codename) or self.distro_id == "ubuntu" or "ubuntu" in self.id_like

    def to_json(self) -> dict[str, object]:
        return {
            "distro_id": self.distro_id,
            "distro_name": self.distro_name,
            "distro_version": self.distro_version,
            "codename": self.codename,
            "ubuntu_codename": self.ubuntu_codename,
            "id_like": list(self.id_like),
            "kernel": self.kernel,
            "wsl": self.wsl,
            "dxg": self.dxg,
            "wsl_interop": self.wsl_interop,
        }


def probe_platform(system: System) -> PlatformFacts:
    """Read the distribution, kernel and WSL facts through ``system``."""
    fields = _os_release(system)
    lsb = parse_lsb_release(system.read_text("/etc/lsb-release") or "")
    distro_id = (fields.get("ID") or lsb.get("DISTRIB_ID", "") or "unknown").strip().lower()
    ubuntu_codename = fields.get("UBUNTU_CODENAME", "").strip().lower()
    codename = (fields.get("VERSION_CODENAME") or lsb.get("DISTRIB_CODENAME") or "").strip().lower()
    if distro_id == "ubuntu" and not ubuntu_codename:
        ubuntu_codename = codename
    proc_version = system.read_text("/proc/version")
    release_text = system.read_text("/proc/sys/kernel/osrelease")
    kernel = parse_kernel_release(release_text or "") or parse_kernel_release(proc_version or "")
    kernel = kernel or ""
    return PlatformFacts(
        distro_id=distro_id,
        distro_name=(fields.get("NAME") or lsb.get("DISTRIB_ID") or distro_id).strip(),
        distro_version=(fields.get("VERSION_ID") or lsb.get("DISTRIB_RELEASE") or "").strip(),
        codename=codename,
        ubuntu_codename=ubuntu_codename,
        id_like=tuple(fields.get("ID_LIKE", "").lower().split()),
        kernel=kernel,
        kernel_version=kernel_version_tuple(kernel) if kernel else None,
        wsl=wsl_version(kernel or None, proc_version),
        dxg=system.device("/dev/dxg").exists,
        wsl_interop=system.exists(WSL_INTEROP_FILE),
    )


def _os_release(system: System) -> dict[str, str]:
    for path in OS_RELEASE_FILES:
        text = system.read_text(path)
        if text:
            fields = parse_os_release(text)
            if fields:
                return fields
    return {}
