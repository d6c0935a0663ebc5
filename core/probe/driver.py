"""Kernel-driver readiness: amdgpu loaded, kernels and headers, DKMS leftovers, Secure Boot.

Also the loaded GPU driver's version (amdgpu's DKMS version, NVIDIA's module version), read from
files only, for the benchmark report (core.bench.run_report).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.probe.firmware import FirmwareFacts, probe_firmware
from core.probe.parse.kernel_log import kernel_log_excerpt, log_refused
from core.probe.parse.platform_files import parse_mokutil_sb_state, parse_secure_boot_efivar
from core.system import System

if TYPE_CHECKING:
    from core.probe.gpus import GpuFacts

SECURE_BOOT_VAR = "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
AMDGPU_MODULE = "/sys/module/amdgpu"
NVIDIA_MODULE = "/sys/module/nvidia"
NVIDIA_PROC_VERSION = "/proc/driver/nvidia/version"

# A module version as the kernel shows it ("6.10.5", "580.159.03"); anything else is not kept.
_VERSION = re.compile(r"[0-9][0-9A-Za-z.+~_-]{0,63}")
# "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.03  Wed ...", also "... Open Kernel
# Module for x86_64  ..." of the open modules.
_NVRM = re.compile(r"^NVRM version:.*?Kernel Module(?: for \S+)?\s+([0-9][0-9.]*[0-9])\b",
                   re.MULTILINE)


@dataclass(frozen=True)
class KernelInfo:
    release: str
    headers: bool


DMESG = ("dmesg",)
JOURNAL_KERNEL = ("journalctl", "-k", "-b", "--no-pager", "-q")
KERNEL_LOG_COMMANDS = (DMESG, JOURNAL_KERNEL)
"""The kernel log, read only where a GPU has no driver or no KFD node (issue 32): snapshots keep
only amdgpu's and KFD's lines of it (core.probe.parse.kernel_log)."""


@dataclass(frozen=True)
class KernelLog:
    """amdgpu's and KFD's lines of the kernel log (at most 80, each at most 240 characters)."""

    source: str
    """"dmesg" or "journalctl"; "" when neither could be read (``refused`` says why)."""
    lines: tuple[str, ...] = ()
    refused: bool = False
    """The log exists but this user may not read it (kernel.dmesg_restrict, journal rights)."""

    def to_json(self) -> dict[str, object]:
        return {"source": self.source or None, "lines": list(self.lines),
                "refused": self.refused}


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
    dkms_module_in_use: bool = False
    """The running kernel's amdgpu comes from DKMS (modules.dep names updates/dkms/ or extra/):
    old rock-dkms builds have no version file, so the version alone does not tell."""
    firmware: FirmwareFacts | None = None
    """The installed linux-firmware package with amdgpu's firmware (core.probe.firmware); None
    when not known (WSL, no package found, a snapshot taken before rocmate asked)."""
    kernel_log: KernelLog | None = None
    """amdgpu's lines of the kernel log, read only where an AMD GPU has no bound driver or no
    KFD node while amdgpu is loaded (issue 32); None when not read."""

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
            "dkms_module_in_use": self.dkms_module_in_use,
            # added later, only where known
            **({"linux_firmware": self.firmware.to_json()} if self.firmware else {}),
            **({"kernel_log": self.kernel_log.to_json()} if self.kernel_log else {}),
        }


def probe_driver(system: System, wsl: int | None, gpus: GpuFacts | None = None) -> DriverFacts:
    uefi = system.is_dir("/sys/firmware/efi")
    loaded = amdgpu_loaded(system)
    return DriverFacts(
        amdgpu_loaded=loaded,
        amdgpu_dkms_version=amdgpu_dkms_version(system),
        kernels=tuple(_kernels(system)) if not wsl else (),
        dkms_trees=tuple(_entries(system, "/var/lib/dkms/amdgpu", lambda n: n[:1].isdigit())),
        crash_files=tuple(
            f"/var/crash/{n}"
            for n in _entries(system, "/var/crash", lambda n: n.startswith("amdgpu-dkms"))
        ),
        uefi=uefi,
        secure_boot=_secure_boot(system) if uefi else False,
        dkms_module_in_use=_dkms_module_in_use(system) if not wsl else False,
        firmware=probe_firmware(system, wsl),
        kernel_log=(read_kernel_log(system)
                    if not wsl and loaded and gpus is not None and gpus_not_started(gpus)
                    else None),
    )


def gpus_not_started(gpus: GpuFacts) -> bool:
    """Whether an AMD GPU that PCI sysfs lists has no bound amdgpu or no KFD node (the ones
    bound to vfio-pci or radeon are meant so, and not counted)."""
    return any(
        g.is_amd and "pci" in g.sources and g.driver not in ("vfio-pci", "radeon")
        and (g.driver != "amdgpu" or (gpus.kfd_present and g.kfd_node is None))
        for g in gpus.gpus
    )


def read_kernel_log(system: System) -> KernelLog | None:
    """amdgpu's and KFD's lines of ``dmesg``, else of ``journalctl -k -b`` (dmesg is refused to
    users where kernel.dmesg_restrict is set, as on Ubuntu and Debian); None when neither
    command ran (a snapshot recorded before rocmate read the log)."""
    refused = False
    ran = False
    for argv in KERNEL_LOG_COMMANDS:
        result = system.run(list(argv), timeout=5)
        if not result.found or result.timed_out:
            continue
        ran = True
        lines = kernel_log_excerpt(result.output)
        if lines:
            return KernelLog(source=argv[0], lines=tuple(lines))
        refused = refused or log_refused(result.output) or bool(result.returncode)
    return KernelLog(source="", refused=refused) if ran else None


def _dkms_module_in_use(system: System) -> bool:
    """Whether the running kernel's modules.dep takes amdgpu.ko from a DKMS folder."""
    release = (system.read_text("/proc/sys/kernel/osrelease", limit=256) or "").strip()
    if not release or "/" in release:
        return False
    for base in ("/lib/modules", "/usr/lib/modules"):
        text = system.read_text(f"{base}/{release}/modules.dep", limit=8 * 1024 * 1024)
        if text is not None:
            return any(line.startswith(("updates/dkms/amdgpu.ko", "updates/amdgpu.ko",
                                         "extra/amdgpu.ko", "extra/dkms/amdgpu.ko"))
                       for line in text.splitlines())
    return False


def amdgpu_loaded(system: System) -> bool:
    """Whether the amdgpu module is loaded (or built into the kernel)."""
    return system.is_dir(AMDGPU_MODULE)


def amdgpu_dkms_version(system: System) -> str | None:
    """The version of a DKMS-built amdgpu; None for the kernel's own driver (no version file)."""
    return (system.read_text(f"{AMDGPU_MODULE}/version") or "").strip() or None


def nvidia_loaded(system: System) -> bool:
    """Whether NVIDIA's kernel module is loaded."""
    return system.is_dir(NVIDIA_MODULE) or system.exists(NVIDIA_PROC_VERSION)


def nvidia_version(system: System) -> str | None:
    """The loaded NVIDIA module's version ("580.159.03"): /sys/module/nvidia/version, else the
    NVRM line of /proc/driver/nvidia/version; None when neither says."""
    version = version_text(system.read_text(f"{NVIDIA_MODULE}/version", limit=256) or "")
    if version:
        return version
    m = _NVRM.search(system.read_text(NVIDIA_PROC_VERSION, limit=4096) or "")
    return m.group(1) if m else None


def version_text(text: str) -> str | None:
    """``text`` when it is a plain version string, else None (a report keeps nothing else)."""
    text = text.strip()
    return text if _VERSION.fullmatch(text) else None


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
