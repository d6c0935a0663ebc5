"""`lspci` output -> PCI devices (slot, class, ids, revision, name, driver, subsystem).

Formats: plain `lspci`, `-nn`, `-k`, `-nnk`, `-v`, `-nnv`, `-mm` / `-nnmm`, `-vmm`, and the
ways people paste them: mail quoting ('> '), hard-wrapped lines, quoted-printable soft
breaks, forum markup ([COLOR=...], **bold**), ANSI colours. The `-tv` tree carries no
bus numbers for nested devices and yields nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from core.probe.parse._text import (
    normalise_pci_slot,
    strip_ansi,
    strip_bbcode,
    strip_tmux_marker,
    unwrap_quoted_printable,
)


@dataclass(frozen=True)
class PciDevice:
    """One PCI function."""

    slot: str  # "0000:03:00.0"
    class_code: str | None  # "0300"
    class_name: str | None  # "VGA compatible controller"
    vendor_id: str | None  # "1002"
    device_id: str | None  # "744c"
    revision: str | None  # "c8"
    name: str  # "Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 [Radeon RX 7900 XT/7900 XTX]"
    driver: str | None = None  # "Kernel driver in use:"
    subsystem: str | None = None  # "Subsystem:" text without its id
    subsystem_id: str | None = None  # "1002:0e3b"
    kernel_modules: tuple[str, ...] = ()


_SLOT = r"(?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"
_SLOT_START = re.compile(rf"^.{{0,3}}?({_SLOT})[ \t]+")
_CLASS_CODE = re.compile(r"\[([0-9a-fA-F]{4})\]$")
_MM_LINE = re.compile(rf'^({_SLOT})\s+"([^"]*)"\s+"([^"]*)"\s+"([^"]*)"(.*)$')
_MM_REVISION = re.compile(r"\s-r([0-9a-fA-F]{2})\b")
_MM_TRAILING_ID = re.compile(r"\[([0-9a-fA-F]{4})\]\s*$")
_VMM_LINE = re.compile(r"^(Slot|Class|Vendor|Device|SVendor|SDevice|Rev|Driver|Module):\s*(.*)$")
_PROG_IF = re.compile(r"\(prog-if [^)]*\)")
_REVISION = re.compile(r"\(rev ([0-9a-fA-F]{2})\)")
_IDS = re.compile(r"\[([0-9a-fA-F]{4}):([0-9a-fA-F]{4})\]\s*$")
_ANY_IDS = re.compile(r"\[[0-9a-fA-F]{4}:[0-9a-fA-F]{4}\]")
_QUOTE_PREFIX = re.compile(r"^(?:[ \t]*>)+[ \t]?")
_VENDOR_WORDS = (
    ("[AMD/ATI]", "1002"),
    ("ATI Technologies", "1002"),
    ("Advanced Micro Devices, Inc. [AMD]", "1022"),
    ("Advanced Micro Devices", "1002"),
    ("NVIDIA", "10de"),
    ("Intel", "8086"),
    ("ASPEED Technology", "1a03"),
)


def parse_lspci(text: str) -> tuple[PciDevice, ...]:
    """Parse lspci output of any of the formats above; never raises."""
    devices: dict[str, PciDevice] = {}
    current: str | None = None
    vmm: dict[str, str] = {}
    for line in _lspci_lines(text):
        current = _read_line(line, devices, current, vmm)
    _flush_vmm(vmm, devices)
    return tuple(devices.values())


def is_display_class(dev: PciDevice) -> bool:
    """A display controller: class 03xx, or a VGA / 3D / Display controller class name."""
    if dev.class_code is not None and dev.class_code.startswith("03"):
        return True
    name = (dev.class_name or "").lower()
    return name.startswith("vga") or "3d controller" in name or "display controller" in name


def _lspci_lines(text: str) -> list[str]:
    text = unwrap_quoted_printable(strip_ansi(text).replace("\x00", ""))
    lines = [_clean_line(line) for line in text.splitlines()]
    return _join_wrapped(lines)


def _clean_line(line: str) -> str:
    return strip_tmux_marker(strip_bbcode(_QUOTE_PREFIX.sub("", line))).rstrip()


def _join_wrapped(lines: list[str]) -> list[str]:
    """Join a device line that a mail client wrapped before its '[vendor:device]' ids."""
    joined: list[str] = []
    for line in lines:
        previous = joined[-1] if joined else ""
        if _is_wrapped_tail(previous, line):
            joined[-1] = f"{previous.rstrip()} {line.strip()}"
        else:
            joined.append(line)
    return joined


def _is_wrapped_tail(previous: str, line: str) -> bool:
    device = _device_parts(previous.lstrip())
    return (
        device is not None
        and device[2] is not None
        and not _ANY_IDS.search(previous)
        and bool(line.strip())
        and not line[:1].isspace()
        and _device_parts(line.lstrip()) is None
    )


def _read_line(
    line: str, devices: dict[str, PciDevice], current: str | None, vmm: dict[str, str]
) -> str | None:
    """Read one line; returns the slot that following detail lines belong to."""
    vmm_field = _VMM_LINE.match(line)
    if vmm_field:
        _read_vmm_field(vmm_field.group(1), vmm_field.group(2).strip(), vmm, devices)
        return None
    device = _device_from_line(line.lstrip())
    if device is not None:
        devices.setdefault(device.slot, device)
        return device.slot
    if current is not None and line[:1].isspace():
        devices[current] = _with_detail(devices[current], line.strip())
        return current
    return None if not line.strip() else current


def _device_from_line(line: str) -> PciDevice | None:
    mm = _MM_LINE.match(line)
    if mm:
        return _device_from_mm(mm)
    parts = _device_parts(line)
    if parts is None:
        return None
    slot_text, class_name, class_code, rest = parts
    slot = normalise_pci_slot(slot_text)
    if slot is None:
        return None
    return _device(slot, class_name, class_code, rest)


def _device_parts(line: str) -> tuple[str, str, str | None, str] | None:
    """'03:00.0 VGA compatible controller [0300]: rest' -> (slot, class, code, rest)."""
    start = _SLOT_START.match(line)
    if start is None:
        return None
    class_text, colon, rest = line[start.end() :].partition(":")
    class_text = class_text.strip()
    if not colon or not rest[:1].isspace() or '"' in class_text:
        return None
    code = _CLASS_CODE.search(class_text)
    if code is None:
        return start.group(1), class_text, None, rest.strip()
    return start.group(1), class_text[: code.start()].rstrip(), code.group(1), rest.strip()


def _device(slot: str, class_name: str, class_code: str | None, rest: str) -> PciDevice:
    rest = _PROG_IF.sub("", rest)
    revision = _REVISION.search(rest)
    rest = _REVISION.sub("", rest).rstrip()
    ids = _IDS.search(rest)
    name = (rest[: ids.start()] if ids else rest).strip()
    vendor = ids.group(1).lower() if ids else _vendor_from_name(name)
    return PciDevice(
        slot=slot,
        class_code=class_code.lower() if class_code else None,
        class_name=class_name or None,
        vendor_id=vendor,
        device_id=ids.group(2).lower() if ids else None,
        revision=revision.group(1).lower() if revision else None,
        name=name,
    )


def _vendor_from_name(name: str) -> str | None:
    head = name[:48]
    for word, vendor in _VENDOR_WORDS:
        if word in head and (word.startswith("[") or head.startswith(word)):
            return vendor
    return None


def _with_detail(device: PciDevice, detail: str) -> PciDevice:
    key, _, value = detail.partition(":")
    value = value.strip()
    if key == "Kernel driver in use":
        return replace(device, driver=value or None)
    if key == "Kernel modules":
        modules = tuple(item.strip() for item in value.split(",") if item.strip())
        return replace(device, kernel_modules=modules)
    if key == "Subsystem":
        ids = _IDS.search(value)
        subsystem_id = f"{ids.group(1)}:{ids.group(2)}".lower() if ids else None
        subsystem = (value[: ids.start()] if ids else value).strip() or None
        return replace(device, subsystem=subsystem, subsystem_id=subsystem_id)
    return device


def _device_from_mm(match: re.Match[str]) -> PciDevice | None:
    revision = _MM_REVISION.search(match.group(5))
    fields = match.group(1), match.group(2), match.group(3), match.group(4)
    return _device_from_fields(*fields, revision.group(1) if revision else None)


def _device_from_fields(
    slot_text: str, class_text: str, vendor_text: str, device_text: str, revision: str | None
) -> PciDevice | None:
    """One device from the separate fields of `-mm` / `-vmm` output."""
    slot = normalise_pci_slot(slot_text)
    if slot is None:
        return None
    class_name, class_code = _split_trailing_id(class_text)
    vendor_name, vendor_id = _split_trailing_id(vendor_text)
    device_name, device_id = _split_trailing_id(device_text)
    name = f"{vendor_name} {device_name}".strip()
    return PciDevice(
        slot=slot,
        class_code=class_code,
        class_name=class_name or None,
        vendor_id=vendor_id or _vendor_from_name(name),
        device_id=device_id,
        revision=revision.lower() if revision else None,
        name=name,
    )


def _split_trailing_id(value: str) -> tuple[str, str | None]:
    """'Navi 31 [Radeon RX 7900 XT] [744c]' -> ('Navi 31 [Radeon RX 7900 XT]', '744c')."""
    match = _MM_TRAILING_ID.search(value)
    if match is None:
        return value.strip(), None
    return value[: match.start()].strip(), match.group(1).lower()


def _read_vmm_field(
    key: str, value: str, vmm: dict[str, str], devices: dict[str, PciDevice]
) -> None:
    """`lspci -vmm` blocks: 'Slot:' starts one, the other keys fill it."""
    if key == "Slot":
        _flush_vmm(vmm, devices)
    vmm.setdefault(key, value)


def _flush_vmm(vmm: dict[str, str], devices: dict[str, PciDevice]) -> None:
    slot, klass, vendor, name = (vmm.get(key, "") for key in ("Slot", "Class", "Vendor", "Device"))
    device = _device_from_fields(slot, klass, vendor, name, vmm.get("Rev") or None)
    if device is not None:
        modules = (vmm["Module"],) if vmm.get("Module") else ()
        device = replace(device, driver=vmm.get("Driver") or None, kernel_modules=modules)
        devices.setdefault(device.slot, device)
    vmm.clear()
