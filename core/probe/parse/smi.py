"""rocm-smi and amd-smi outputs -> the GPUs they list, tool versions, and failure lines.

`parse_rocm_smi` reads --json, --csv, the 'GPU[0] : key: value' text sections and the
concise default table (ROCm 3.x to 6.x layouts). `parse_amd_smi` reads `version`, the
default table, and `list` / `static` / `metric` as text or --json. Both merge several
commands' output in one text, never raise, and put failure lines ("ERROR: No DRM devices",
"No AMD GPUs specified", Python exceptions) into `error` and `problems`. `amd_smi_failure`
sorts an amd-smi answer that lists no GPU: the driver not found (its start-up check), an
AMDSMI_STATUS_* error of its library, or nothing listed.

Conventions: amd-smi "MB" are MiB; rocm-smi's lower-case 'Card model' (ROCm <= 6.0) is
a subsystem id or a product name, the capitalised 'Card Model' (6.1+) the device id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.probe.parse._amd_smi import read_amd_smi
from core.probe.parse._rocm_smi import read_rocm_smi
from core.probe.parse._smi_collect import Collected, size_to_bytes
from core.probe.parse._text import (
    clean_lines,
    non_empty,
    normalise_gfx,
    normalise_hex_id,
    normalise_pci_slot,
    strip_ansi,
    unwrap_quoted_printable,
)


@dataclass(frozen=True)
class SmiGpu:
    """One GPU as an SMI tool lists it."""

    index: int
    name: str | None = None  # product / marketing name
    vendor: str | None = None
    gfx: str | None = None
    pci_bus: str | None = None  # normalised "0000:03:00.0"
    vram_total_bytes: int | None = None
    vram_used_bytes: int | None = None
    device_id: str | None = None  # "744c", lower-case hex
    revision: str | None = None  # PCI revision, "c8"


@dataclass(frozen=True)
class SmiReport:
    """Everything read from one rocm-smi or amd-smi output."""

    gpus: tuple[SmiGpu, ...]
    tool_version: str | None
    error: str | None
    problems: tuple[str, ...]
    driver_version: str | None = None  # amdgpu / kernel driver version as the tool prints it
    rocm_version: str | None = None  # amd-smi only


# amd-smi's words when its own start-up check finds no amdgpu: the CLI's check of
# /sys/module/amdgpu/initstate (ROCm/amdsmi#172: "driver not initialized (amdgpu not found in
# modules)") and the library's AMDSMI_STATUS_DRIVER_NOT_LOADED (error code 34, "Driver not
# loaded": gpustack/gpustack#4338; PyTorch's "Can't initialize amdsmi - Error code: 34",
# ROCm/legacy-rocm-build#5000).
_DRIVER_MISSING = re.compile(
    r"driver not initiali[sz]ed|amdgpu not found in modules|AMDSMI_STATUS_DRIVER_NOT_LOADED"
    r"|Driver not loaded|Error code:?\s*34\b",
    re.IGNORECASE,
)
_AMDSMI_STATUS = re.compile(r"AMDSMI_STATUS_(?!SUCCESS)[A-Z0-9_]+")
_HEX_VALUE = re.compile(r"^0x[0-9a-fA-F]+$")
_AMD_UUID = re.compile(r"^[0-9a-f]{4}([0-9a-f]{4})-0000-1000-", re.IGNORECASE)

# Record keys per field, best first (see _smi_collect for where each comes from).
_ROCM_NAME = ("card model", "device name", "card series", "_concise name")
_ROCM_DEVICE = ("device id", "gpu id", "_concise device id", "_card model device id")
_ROCM_REVISION = ("device rev", "_concise revision")
_AMD_NAME = ("asic.market_name", "market_name", "board.product_name", "table.name")
_AMD_VENDOR = ("asic.vendor_name", "vendor_name", "asic.vendor_id", "vendor_id")
_AMD_GFX = ("asic.target_graphics_version", "target_graphics_version")
_AMD_BUS = ("bus.bdf", "bdf", "table.bdf", "asic.pci_bdf", "pci_bdf")
_AMD_TOTAL = ("vram.size", "vram.vram_size", "mem_usage.total_vram", "table.vram_total")
_AMD_USED = ("mem_usage.used_vram", "table.vram_used")
_AMD_DEVICE = ("asic.device_id", "device_id")
_AMD_REVISION = ("asic.rev_id", "rev_id")


def parse_rocm_smi(text: str) -> SmiReport:
    """Parse any rocm-smi output (one or several commands); never raises."""
    found = Collected()
    text = unwrap_quoted_printable(text)
    read_rocm_smi(_smi_lines(text), strip_ansi(text), found)
    gpus = tuple(_rocm_gpu(index, found.records[index]) for index in sorted(found.records))
    return _report(gpus, found, "rocm-smi")


def parse_amd_smi(text: str) -> SmiReport:
    """Parse any amd-smi output (one or several commands); never raises."""
    found = Collected()
    text = unwrap_quoted_printable(text)
    read_amd_smi(_smi_lines(text), strip_ansi(text), found)
    gpus = tuple(_amd_gpu(index, found.records[index]) for index in sorted(found.records))
    return _report(gpus, found, "amd-smi")


def _smi_lines(text: str) -> list[str]:
    return [line.replace("`", "") for line in clean_lines(text)]


def _report(gpus: tuple[SmiGpu, ...], found: Collected, tool: str) -> SmiReport:
    failures = sorted(found.failures)
    problems = [line for _, _, line in found.failures] + found.problems
    if not gpus and not failures and not found.info:
        problems.append(f"no GPUs found in the {tool} output")
    return SmiReport(
        gpus=gpus,
        tool_version=found.info.get("tool_version"),
        error=failures[0][2] if failures else None,
        problems=tuple(dict.fromkeys(problems)),
        driver_version=found.info.get("driver_version"),
        rocm_version=found.info.get("rocm_version"),
    )


def _first(record: dict[str, str], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = non_empty(record.get(key))
        if value is not None:
            return value
    return None


def _rocm_gpu(index: int, record: dict[str, str]) -> SmiGpu:
    return SmiGpu(
        index=index,
        name=_rocm_name(record),
        vendor=non_empty(record.get("card vendor")),
        gfx=normalise_gfx(record.get("gfx version", "")),
        pci_bus=normalise_pci_slot(record.get("pci bus", "")),
        vram_total_bytes=size_to_bytes(record.get("vram total memory (b)")),
        vram_used_bytes=size_to_bytes(record.get("vram total used memory (b)")),
        device_id=_hex_id(_first(record, _ROCM_DEVICE)),
        revision=_revision(_first(record, _ROCM_REVISION)),
    )


def _rocm_name(record: dict[str, str]) -> str | None:
    """The first candidate that is a name, not a hex id ('Card model: 0x0c34')."""
    for key in _ROCM_NAME:
        value = non_empty(record.get(key))
        if value is not None and not _HEX_VALUE.match(value):
            return value
    return None


def _amd_gpu(index: int, record: dict[str, str]) -> SmiGpu:
    return SmiGpu(
        index=index,
        name=_first(record, _AMD_NAME),
        vendor=_first(record, _AMD_VENDOR),
        gfx=normalise_gfx(_first(record, _AMD_GFX) or ""),
        pci_bus=normalise_pci_slot(_first(record, _AMD_BUS) or ""),
        vram_total_bytes=size_to_bytes(_first(record, _AMD_TOTAL), "MB"),
        vram_used_bytes=size_to_bytes(_first(record, _AMD_USED), "MB"),
        device_id=_hex_id(_first(record, _AMD_DEVICE)) or _uuid_device_id(record.get("uuid")),
        revision=_revision(_first(record, _AMD_REVISION)),
    )


def _hex_id(value: str | None) -> str | None:
    return normalise_hex_id(value) if value else None


def _revision(value: str | None) -> str | None:
    """'0xc1' -> 'c1', '0x0' -> '00'."""
    if value is None:
        return None
    digits = value.strip().lower().removeprefix("0x")
    if not digits or len(digits) > 2 or any(c not in "0123456789abcdef" for c in digits):
        return None
    return digits.zfill(2)


def _uuid_device_id(uuid: str | None) -> str | None:
    """amd-smi UUIDs carry the device id: '00ff150e-0000-1000-8000-...' -> '150e'."""
    match = _AMD_UUID.match(uuid or "")
    return match.group(1).lower() if match else None


@dataclass(frozen=True)
class SmiFailure:
    """Why an amd-smi answer lists no GPU."""

    kind: str
    """"driver": amd-smi found no amdgpu (its start-up check, or AMDSMI_STATUS_DRIVER_NOT_LOADED);
    "status": another AMDSMI_STATUS_* error or failure line; "no-gpus": it ran and listed none."""
    line: str
    """The telling line as amd-smi printed it ("" for "no-gpus")."""
    status: str | None = None
    """The AMDSMI_STATUS_* name where one was printed."""


def amd_smi_failure(report: SmiReport | None) -> SmiFailure | None:
    """Why amd-smi listed no GPU; None where it listed one or more (or did not run). Pure,
    never raises."""
    if report is None or report.gpus:
        return None
    lines = [line for line in (report.error, *report.problems) if line]
    status = next((m.group(0) for line in lines if (m := _AMDSMI_STATUS.search(line))), None)
    driver = next((line for line in lines if _DRIVER_MISSING.search(line)), None)
    if driver is not None:
        return SmiFailure("driver", driver, status)
    if report.error:
        return SmiFailure("status", report.error, status)
    if report.tool_version is None and not report.problems:
        return None  # nothing printed at all: not an answer
    return SmiFailure("no-gpus", "", status)
