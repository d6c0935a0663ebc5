"""Readers for every rocm-smi output layout; they file raw facts into a Collected.

Layouts: --json (any flags, also cut short), the 'GPU[0] : key: value' text sections
(--showproductname, --showmeminfo vram, --showallinfo, old and new spacing), --csv
blocks, and the concise default table in its four generations (ROCm 3.x 'GPU Temp AvgPwr',
5.x 'GPU Temp (DieEdge)', 6.0 'Device [Model : Revision]' with a name line, 6.1+
'Device Node IDs (DID, GUID)').
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass

from core.probe.parse._smi_collect import Collected, json_documents

_CARD = re.compile(r"^card([0-9]{1,9})$", re.IGNORECASE)
_JSON_TOKEN = re.compile(
    r'"(card[0-9]+|system)"\s*:\s*\{|"((?:[^"\\\n]|\\.)*)"\s*:\s*"((?:[^"\\\n]|\\.)*)"'
)
_GPU_LINE = re.compile(r"^\s*(ERROR:\s*)?GPU\[([0-9]{1,9})\]\s*:\s*(.*)$")
_SYSTEM_LINE = re.compile(r"^\s*(Driver version|ROCM-SMI version|ROCM-SMI-LIB version)\s*:\s*(.+)$")
_TABLE_HEADER = re.compile(r"^\s*(?:GPU|Device)\s")
_TABLE_ROW = re.compile(r"^\s*([0-9]{1,9})\s+(.*)$")
_MODEL_REVISION = re.compile(r"^\[\s*(0x[0-9a-fA-F]+)\s*:\s*(0x[0-9a-fA-F]+)\s*\]")
_NODE_DID = re.compile(r"^([0-9]+)\s+(0x[0-9a-fA-F]+)\s*,")
_HEX = re.compile(r"^0x[0-9a-fA-F]+$")

# Lines that mean rocm-smi failed (rank: lower = more telling) or that something is off.
_FATAL: tuple[re.Pattern[str], ...] = (
    re.compile(r"^ERROR:?\s+(?!GPU\[)"),
    re.compile(r"No AMD GPUs specified", re.IGNORECASE),
    re.compile(r"No DRM devices", re.IGNORECASE),
    re.compile(r"^[\w.]*(?:Error|Exception)\b.*:"),
    re.compile(r"rocm-smi\S*: .*(?:not found|No such file)", re.IGNORECASE),
)
_PROBLEM = re.compile(r"^(?:WARNING|Unable to (?!open /dev/kfd))", re.IGNORECASE)


def read_rocm_smi(lines: list[str], text: str, found: Collected) -> None:
    """File everything rocm-smi printed into `found`."""
    _read_json(text, found)
    _read_csv(lines, found)
    _read_table(lines, found)
    for line in lines:
        _read_line(line, found)


def _read_json(text: str, found: Collected) -> None:
    for document, complete in json_documents(text):
        if complete and isinstance(document, dict):
            _read_json_dict(document, found)
        elif not complete:
            _read_json_tokens(str(document), found)
            found.problems.append("rocm-smi JSON is cut short; read what was there")


def _read_json_dict(document: dict[object, object], found: Collected) -> None:
    for key, value in document.items():
        card = _CARD.match(str(key))
        if card and isinstance(value, dict):
            for name, item in value.items():
                _put_card(found, int(card.group(1)), str(name), item)
        elif str(key).lower() == "system" and isinstance(value, dict):
            _put_system(found, value)


def _read_json_tokens(text: str, found: Collected) -> None:
    """Key/value pairs of a JSON document that does not decode (cut short)."""
    card: int | None = None
    for match in _JSON_TOKEN.finditer(text):
        section, key, value = match.groups()
        if section is not None:
            number = _CARD.match(section)
            card = int(number.group(1)) if number else None
        elif card is not None and key is not None:
            _put_card(found, card, key, value)
        elif key is not None and key.lower() == "driver version":
            found.put_info("driver_version", value)


def _put_card(found: Collected, index: int, key: str, value: object) -> None:
    found.put(index, key, value)
    if key == "Card Model" and isinstance(value, str) and _HEX.match(value.strip()):
        # From ROCm 6.1 'Card Model' (capital M) is the PCI device id; before, the
        # lower-case 'Card model' was the subsystem id or a product name.
        found.put(index, "_card model device id", value)


def _put_system(found: Collected, system: dict[object, object]) -> None:
    for key, value in system.items():
        if str(key).lower() == "driver version":
            found.put_info("driver_version", str(value))


def _read_line(line: str, found: Collected) -> None:
    system = _SYSTEM_LINE.match(line)
    if system:
        _put_system_line(found, system.group(1), system.group(2))
        return
    gpu = _GPU_LINE.match(line)
    if gpu:
        _read_gpu_line(found, int(gpu.group(2)), gpu.group(3), bool(gpu.group(1)))
        return
    _read_failure(line.strip(), found)


def _put_system_line(found: Collected, key: str, value: str) -> None:
    names = {
        "Driver version": "driver_version",
        "ROCM-SMI version": "tool_version",
        "ROCM-SMI-LIB version": "library_version",
    }
    found.put_info(names[key], value.strip())


def _read_gpu_line(found: Collected, index: int, rest: str, is_error: bool) -> None:
    key, colon, value = rest.partition(":")
    if is_error or (not colon and "unable to" in rest.lower()):
        found.gpu(index)
        found.problems.append(f"GPU[{index}]: {rest.strip()}")
        return
    if colon and key.strip() and "\t" not in key.strip():
        _put_card(found, index, key.strip(), value.strip())
    else:
        found.gpu(index)


def _read_failure(line: str, found: Collected) -> None:
    for rank, pattern in enumerate(_FATAL):
        if pattern.search(line):
            found.fail(rank, line)
            return
    if _PROBLEM.search(line):
        found.problems.append(line)


def _read_csv(lines: list[str], found: Collected) -> None:
    header: list[str] | None = None
    for line in lines:
        stripped = line.strip()
        if stripped.lower().startswith("device,"):
            header = _csv_fields(stripped)
        elif header is not None and stripped.lower().startswith("card"):
            _read_csv_row(header, _csv_fields(stripped), found)
        else:
            header = None


def _csv_fields(line: str) -> list[str]:
    try:
        return next(csv.reader([line]), [])
    except csv.Error:
        return line.split(",")


def _read_csv_row(header: list[str], row: list[str], found: Collected) -> None:
    if not row:
        return
    card = _CARD.match(row[0].strip())
    for key, value in zip(header[1:], row[1:], strict=False):
        if card:
            _put_card(found, int(card.group(1)), key.strip(), value.strip())
        elif row[0].strip().lower() == "cardsystem" and key.strip().lower() == "driver version":
            found.put_info("driver_version", value)


@dataclass
class _Table:
    """The concise table while its rows are read."""

    layout: str  # "old" | "model" | "ids"
    last_row: int | None = None


def _read_table(lines: list[str], found: Collected) -> None:
    table: _Table | None = None
    for line in lines:
        if _TABLE_HEADER.match(line) and "Temp" in line:
            table = _Table(layout=_layout(line))
        elif table is not None:
            table = _read_table_line(table, line, found)


def _layout(header: str) -> str:
    if "Model" in header:
        return "model"
    if "IDs" in header or "Node" in header:
        return "ids"
    return "old"


def _read_table_line(table: _Table, line: str, found: Collected) -> _Table | None:
    """Read one line of the table; None once the table has ended."""
    stripped = line.strip()
    if not stripped or stripped.startswith("=") or "End of ROCm SMI Log" in stripped:
        return None if table.last_row is not None else table
    row = _TABLE_ROW.match(line)
    if row:
        table.last_row = int(row.group(1))
        _read_table_row(table, table.last_row, row.group(2), found)
    elif table.layout == "model" and table.last_row is not None and line[:1].isspace():
        _read_name_line(table.last_row, stripped, found)
    return table


def _read_table_row(table: _Table, index: int, rest: str, found: Collected) -> None:
    found.gpu(index)
    if table.layout == "model":
        model = _MODEL_REVISION.match(rest)
        if model:
            found.put(index, "_concise revision", model.group(2))
    elif table.layout == "ids":
        ids = _NODE_DID.match(rest)
        if ids:
            found.put(index, "_concise device id", ids.group(2))


def _read_name_line(index: int, name: str, found: Collected) -> None:
    """The 'Name (20 chars)' line under a ROCm 6.0 row: a product name or a device id."""
    if _HEX.match(name):
        found.put(index, "_concise device id", name)
    else:
        found.put(index, "_concise name", name)
