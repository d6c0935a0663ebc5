"""Kernel-driver readiness: amdgpu loaded, kernels and headers, DKMS leftovers, Secure Boot."""

from __future__ import annotations

from dataclasses import dataclass

from core.probe.parse.oslike import parse_mokutil_sb_state, parse_secure_boot_efivar
from core.system import System

SECURE_BOOT_VAR = "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"


@dataclass(frozen=True)
class KernelInfo:
    release: str
    headers: bool


@dataclass(frozen=True)
class DriverFacts:
    amdgpu_loaded: bool
    amdgpu_dkms_version: str | None
    """The version of a DKMS-built amdgpu (the in-kernel driver has no version file)."""
    kernels: tuple[KernelInfo, ...]
    dkms_trees: tuple[str, ...]
    """Versions under /var/lib/dkms/amdgpu/."""
    crash_files: tuple[str, ...]
    uefi: bool
    secure_boot: bool | None

    def kernels_without_headers(self) -> list[str]:
        return [k.release for k in self.kernels if not k.headers]

    def to_json(self) -> dict[str, object]:
        return {
            "amdgpu_loaded": self.amdgpu_loaded,
            "amdgpu_dkms_version": self.amdgpu_dkms_version,
            "kernels": [{"release": k.release, "headers": k.headers} for k in self.kernels],
            "dkms_trees": list(self.dkms_trees),
            "crash_files": list(self.crash_files),
            "uefi": self.uefi,
            "secure_boot": self.secure_boot,
        }


def probe_driver(system: System, wsl: int | None) -> DriverFacts:
    version = (system.read_text("/sys/module/amdgpu/version") or "").strip() or None
    uefi = system.is_dir("/sys/firmware/efi")
    return DriverFacts(
        amdgpu_loaded=system.is_dir("/sys/module/amdgpu"),
        amdgpu_dkms_version=version,
        kernels=tuple(_kernels(system)) if not wsl else (),
        dkms_trees=tuple(_entries(system, "/var/lib/dkms/amdgpu", lambda n: n[:1].isdigit())),
        crash_files=tuple(
            f"/var/crash/{n}"
            for n in _entries(system, "/var/crash", lambda n: n.startswith("amdgpu-dkms"))
        ),
        uefi=uefi,
        secure_boot=_secure_boot(system) if uefi else False,
    )


def _kernels(system: System) -> list[KernelInfo]:
    kernels = []
    for release in system.list_dir("/lib/modules") or system.list_dir("/usr/lib/modules") or []:
        headers = (
            system.exists(f"/lib/modules/{release}/build")
            and system.is_dir(f"/lib/modules/{release}/build")
        ) or system.is_dir(f"/usr/src/linux-headers-{release}")
        kernels.append(KernelInfo(release, headers))
    return kernels


def _entries(system: System, folder: str, keep: object) -> list[str]:
    names = system.list_dir(folder) or []
    return [n for n in names if callable(keep) and keep(n)]


def _secure_boot(system: System) -> bool | None:
    data = system.read_bytes(SECURE_BOOT_VAR, limit=64)
    if data is not None:
        state = parse_secure_boot_efivar(data)
        if state is not None:
            return state
    result = system.run(["mokutil", "--sb-state"], timeout=5)
    return parse_mokutil_sb_state(result.output) if result.found else None
