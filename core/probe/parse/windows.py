"""Windows-side outputs read through WSL interop: video controllers, `wsl.exe --version` and the
AMD Adrenalin version the registry holds (``RadeonSoftwareVersion``).

`powershell.exe ... Get-CimInstance Win32_VideoController | Select-Object Name,
DriverVersion,AdapterCompatibility | ConvertTo-Json` prints one object or a list, maybe
with a BOM and CRLF. `wsl.exe --version` writes UTF-16LE, which shows up as text with NUL
characters when its bytes were decoded as Latin-1 or UTF-8, and its labels are localised.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from core.probe.parse._text import non_empty, strip_ansi


@dataclass(frozen=True)
class WinGpu:
    """One Win32_VideoController."""

    name: str
    driver_version: str | None  # "32.0.11037.4004"
    vendor: str | None  # AdapterCompatibility: "Advanced Micro Devices, Inc."


_OBJECT = re.compile(r"\{[^{}]*\}?", re.DOTALL)
_JSON_FIELD = r'"{}"\s*:\s*"((?:[^"\\]|\\.)*)"'
_ADRENALIN = re.compile(r"^\s*(\d{2}\.\d{1,2}(?:\.\d{1,3})?)\s*$", re.MULTILINE)
_VERSION_VALUE = re.compile(r"^[0-9]+(?:\.[0-9]+)+(?:[-+.][0-9A-Za-z.-]*)?$")
# `wsl --version` lines, in the order the tool prints them.
_WSL_ORDER = ("wsl", "kernel", "wslg", "msrdc", "direct3d", "dxcore", "windows")
_WSL_LABELS = (
    ("wslg", "wslg"),
    ("msrdc", "msrdc"),
    ("direct3d", "direct3d"),
    ("dxcore", "dxcore"),
    ("windows", "windows"),
    ("kernel", "kernel"),
    ("wsl", "wsl"),
)


def parse_video_controllers(text: str) -> tuple[WinGpu, ...]:
    """ConvertTo-Json output of Win32_VideoController -> one WinGpu per controller."""
    text = recover_utf16(text).lstrip("\ufeff")
    items = _json_items(text)
    if items is None:
        items = _salvaged_items(text)
    return tuple(gpu for gpu in (_win_gpu(item) for item in items) if gpu is not None)


def _json_items(text: str) -> list[dict[str, Any]] | None:
    start = min((i for i in (text.find("["), text.find("{")) if i >= 0), default=-1)
    if start < 0:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text, start)
    except (ValueError, RecursionError):
        return None
    values = value if isinstance(value, list) else [value]
    return [item for item in values if isinstance(item, dict)]


def _salvaged_items(text: str) -> list[dict[str, Any]]:
    """Fields of each '{...}' in JSON that does not decode (cut short, mangled)."""
    items = []
    for chunk in _OBJECT.findall(text):
        item = {}
        for key in ("Name", "DriverVersion", "AdapterCompatibility"):
            match = re.search(_JSON_FIELD.format(key), chunk)
            if match:
                item[key] = _unescape(match.group(1))
        if item:
            items.append(item)
    return items


def _unescape(value: str) -> str:
    try:
        return str(json.loads(f'"{value}"'))
    except ValueError:
        return value


def _win_gpu(item: dict[str, Any]) -> WinGpu | None:
    name = non_empty(_text(item.get("Name")))
    if name is None:
        return None
    return WinGpu(
        name=name,
        driver_version=non_empty(_text(item.get("DriverVersion"))),
        vendor=non_empty(_text(item.get("AdapterCompatibility"))),
    )


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def recover_utf16(text: str) -> str:
    """Undo UTF-16 bytes that were decoded as Latin-1 (or UTF-8): 'W\\x00S\\x00L\\x00'."""
    if "\x00" not in text:
        return text
    odd = text[1::2].count("\x00")
    even = text[0::2].count("\x00")
    codec = "utf-16-le" if odd >= even else "utf-16-be"
    try:
        raw = text.encode("latin-1")
    except UnicodeEncodeError:
        return text.replace("\x00", "")
    if len(raw) % 2:
        raw += b"\x00"
    return raw.decode(codec, errors="replace").lstrip("\ufeff")


def parse_wsl_version(text: str) -> dict[str, str]:
    """`wsl.exe --version` -> {"wsl", "kernel", "wslg", "windows", ...: version}.

    Labels are matched by the product names they contain; a label in another language
    ("内核版本") is placed by its position among the version lines.
    """
    result: dict[str, str] = {}
    versions = _version_lines(strip_ansi(recover_utf16(text)))
    for position, (label, value) in enumerate(versions):
        key = _wsl_key(label)
        if key is None and position < len(_WSL_ORDER):
            key = _WSL_ORDER[position]
        if key is not None:
            result.setdefault(key, value)
    return result


def _version_lines(text: str) -> list[tuple[str, str]]:
    """(label, value) for each 'label: version' line (ASCII or full-width colon)."""
    lines = []
    for line in text.replace("\uff1a", ":").splitlines():
        label, colon, value = line.rpartition(":")
        value = value.strip()
        if colon and label.strip() and len(value) < 100 and _VERSION_VALUE.match(value):
            lines.append((label.strip(), value))
    return lines


def _wsl_key(label: str) -> str | None:
    lowered = label.lower()
    for word, key in _WSL_LABELS:
        if word in lowered:
            return key
    return None


def parse_adrenalin(text: str) -> str | None:
    """PowerShell's answer for the registry's RadeonSoftwareVersion ("26.2.2", maybe with a
    byte-order mark and CRLF) -> the version; None for anything else (an error, a WDDM version
    "32.0.12033.1030", nothing)."""
    match = _ADRENALIN.search(recover_utf16(text or "").replace("\ufeff", ""))
    return match.group(1) if match else None
