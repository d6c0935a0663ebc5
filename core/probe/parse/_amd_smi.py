"""Readers for amd-smi outputs; they file raw facts into a Collected.

Layouts: `version` (one line, ' | ' separated), the default table (nvidia-smi-like box),
the indented 'GPU: N' text of `list`, `static`, `metric` (sections become key paths such
as "asic.market_name"), and --json of those commands (a list, {"gpu_data": [...]}, or one
object), also cut short.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from core.probe.parse._smi_collect import Collected, flatten, json_documents

_TABLE_TOOL = re.compile(r"AMD-SMI\s+(\S+)")
_TABLE_BDF = re.compile(r"^([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])(?:\s+|$)")
_TABLE_INDEX = re.compile(r"^([0-9]{1,9})\s+\S+\s+\S+\s+\S+$")
_TABLE_MEMORY = re.compile(r"(?<![0-9])([0-9]+)\s*/\s*([0-9]+)\s*MB")
_GPU_HEADER = re.compile(r"^(\s*)GPU:\s*([0-9]{1,9})\s*$")
_TREE_KEY = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_ ./()-]*$")
_JSON_TOKEN = re.compile(
    r'"gpu"\s*:\s*([0-9]{1,9})(?![0-9])|"(\w+)"\s*:\s*(?:"((?:[^"\\\n]|\\.)*)"|(-?[0-9][0-9.]*))'
)
_FATAL: tuple[re.Pattern[str], ...] = (
    re.compile(r"^[\w.]*(?:Error|Exception)\b.*:"),
    re.compile(r"AMDSMI_STATUS_(?!SUCCESS)\w+"),
    re.compile(r"^ERROR\b", re.IGNORECASE),
    re.compile(r"No AMD GPUs|No GPUs? (?:found|detected)|Driver not loaded", re.IGNORECASE),
    re.compile(r"amd-smi\S*: .*(?:not found|No such file)", re.IGNORECASE),
)
_PROBLEM = re.compile(r"^WARNING|Unable to ", re.IGNORECASE)


def read_amd_smi(lines: list[str], text: str, found: Collected) -> None:
    """File everything amd-smi printed into `found`."""
    _read_json(text, found)
    _read_table(lines, found)
    _read_tree(lines, found)
    for line in lines:
        _read_line(line.strip(), found)


def _read_json(text: str, found: Collected) -> None:
    for document, complete in json_documents(text):
        if complete:
            for position, gpu in enumerate(_json_gpus(document)):
                _read_json_gpu(gpu, position, found)
        else:
            _read_json_tokens(str(document), found)
            found.problems.append("amd-smi JSON is cut short; read what was there")


def _json_gpus(document: Any) -> list[dict[str, Any]]:
    if isinstance(document, dict):
        inner = document.get("gpu_data")
        document = inner if isinstance(inner, list) else [document]
    if not isinstance(document, list):
        return []
    return [item for item in document if isinstance(item, dict)]


def _read_json_gpu(gpu: dict[str, Any], position: int, found: Collected) -> None:
    index = gpu.get("gpu", position)
    if not isinstance(index, int) or isinstance(index, bool):
        index = position
    found.gpu(index)
    for key, value in flatten(gpu):
        if key != "gpu":
            found.put(index, key, value)


def _read_json_tokens(text: str, found: Collected) -> None:
    """Leaf keys of a JSON document that does not decode (cut short)."""
    index: int | None = None
    for match in _JSON_TOKEN.finditer(text):
        gpu, key, string, number = match.groups()
        if gpu is not None:
            index = int(gpu)
            found.gpu(index)
        elif index is not None and key is not None:
            found.put(index, key, string if string is not None else number)


def _read_line(line: str, found: Collected) -> None:
    if line.startswith("AMDSMI Tool") or "AMD System Management Interface |" in line:
        _read_version_line(line, found)
        return
    if "AMD-SMI" in line and "ROCm version:" in line:
        _read_table_title(line, found)
        return
    for rank, pattern in enumerate(_FATAL):
        if pattern.search(line):
            found.fail(rank, line)
            return
    if _PROBLEM.search(line):
        found.problems.append(line)


def _read_table_title(line: str, found: Collected) -> None:
    """'| AMD-SMI 26.2.0+021c61fc  amdgpu version: 6.16.6   ROCm version: 7.1.1 |'."""
    tool = _TABLE_TOOL.search(line)
    if tool:
        found.put_info("tool_version", tool.group(1))
    head, _, rocm = line.partition("ROCm version:")
    _, _, driver = head.partition("amdgpu version:")
    found.put_info("driver_version", driver.strip())
    found.put_info("rocm_version", (rocm.replace("|", " ").split() or [""])[0])


def _read_version_line(line: str, found: Collected) -> None:
    names = {
        "amdsmi tool": "tool_version",
        "version": "tool_version",
        "amdsmi library version": "library_version",
        "rocm version": "rocm_version",
        "amdgpu version": "driver_version",
    }
    for part in line.split("|"):
        key, _, value = part.partition(":")
        name = names.get(key.strip().lower())
        if name:
            found.put_info(name, value.strip())


def _read_table(lines: list[str], found: Collected) -> None:
    """The default table: a 'BDF name' row, then a 'GPU HIP-ID OAM-ID partition' row."""
    pending: tuple[str, str] | None = None
    for line in lines:
        cells = [cell.strip() for cell in line.strip().split("|")]
        if len(cells) < 3 or cells[0]:
            continue
        bdf = _TABLE_BDF.match(cells[1])
        index = _TABLE_INDEX.match(cells[1])
        if bdf:
            pending = (bdf.group(1), cells[1][bdf.end() :].strip())
        elif index and pending is not None:
            _put_table_gpu(found, int(index.group(1)), pending, cells[2])
            pending = None


def _put_table_gpu(found: Collected, index: int, bdf_name: tuple[str, str], right: str) -> None:
    bdf, name = bdf_name
    found.put(index, "table.bdf", bdf)
    if name.startswith("..."):
        found.problems.append(f"GPU {index}: amd-smi cut the name short: {name!r}")
        name = name[3:]
    found.put(index, "table.name", name)
    memory = _TABLE_MEMORY.search(right)
    if memory:
        found.put(index, "table.vram_used", f"{memory.group(1)} MB")
        found.put(index, "table.vram_total", f"{memory.group(2)} MB")


@dataclass
class _Tree:
    """An indented 'GPU: N' block while it is read: the section path by indentation."""

    index: int
    indent: int
    path: list[tuple[int, str]] = field(default_factory=list)


def _read_tree(lines: list[str], found: Collected) -> None:
    tree: _Tree | None = None
    for line in lines:
        header = _GPU_HEADER.match(line)
        if header:
            tree = _Tree(index=int(header.group(2)), indent=len(header.group(1)))
            found.gpu(tree.index)
        elif tree is not None and line.strip():
            tree = _read_tree_line(tree, line, found)


def _read_tree_line(tree: _Tree, line: str, found: Collected) -> _Tree | None:
    """File one 'KEY: value' line; None when the line is outside the GPU block."""
    indent = len(line) - len(line.lstrip())
    if indent <= tree.indent:
        return None
    key, colon, value = line.strip().partition(":")
    key, value = key.strip(), value.strip()
    if not colon or not _TREE_KEY.match(key):
        return tree
    while tree.path and tree.path[-1][0] >= indent:
        tree.path.pop()
    key = key.lower()
    if value:
        path = [name for _, name in tree.path] + [key]
        found.put(tree.index, ".".join(path), value)
    else:
        tree.path.append((indent, key))
    return tree
