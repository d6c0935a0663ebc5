"""What the rocm-smi and amd-smi readers collect before it becomes SmiGpu records.

Each reader files raw (GPU index, key, value) facts here; the first value for a key wins,
so one output that holds several commands (a concise table, then --showmeminfo) merges.
Keys are lower case: rocm-smi's own labels ("card series"), amd-smi's section paths
("asic.market_name"), and a few synthetic ones that start with "_".
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from core.probe.parse._text import non_empty

_UNITS = {"B": 1, "KB": 1024, "KIB": 1024, "MB": 1024**2, "MIB": 1024**2, "GB": 1024**3}
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*$")


@dataclass
class Collected:
    """Raw facts per GPU index, tool facts, and failure / problem lines."""

    records: dict[int, dict[str, str]] = field(default_factory=dict)
    info: dict[str, str] = field(default_factory=dict)
    failures: list[tuple[int, int, str]] = field(default_factory=list)  # (rank, order, line)
    problems: list[str] = field(default_factory=list)

    def gpu(self, index: int) -> dict[str, str]:
        """The record of GPU `index`, created empty on first use."""
        return self.records.setdefault(index, {})

    def put(self, index: int, key: str, value: object) -> None:
        """File one fact; empty and N/A values are dropped, the first value wins."""
        text = non_empty(str(value)) if value is not None else None
        record = self.gpu(index)
        if text is not None:
            record.setdefault(key.strip().lower(), text)

    def put_info(self, key: str, value: str) -> None:
        """File a tool-wide fact (tool_version, driver_version, rocm_version)."""
        text = non_empty(value)
        if text is not None:
            self.info.setdefault(key, text)

    def fail(self, rank: int, line: str) -> None:
        """Record a failure line; lower rank = more telling."""
        self.failures.append((rank, len(self.failures), line))


def size_to_bytes(value: str | None, default_unit: str = "B") -> int | None:
    """'65536 MB' -> 68719476736 (amd-smi MB are MiB); '17163091968' -> bytes as given."""
    if value is None:
        return None
    match = _SIZE.match(value)
    if match is None or len(match.group(1)) > 30:
        return None
    unit = (match.group(2) or default_unit).upper()
    factor = _UNITS.get(unit)
    if factor is None:
        return None
    return int(float(match.group(1)) * factor)


_JSON_START = re.compile(r'^([ \t]*)(\{\s*"|\[\s*[{\]])', re.MULTILINE)


def json_documents(text: str) -> Iterator[tuple[Any, bool]]:
    """Every JSON object or list of objects that starts a line, with a 'complete' flag.

    A document that does not decode (cut short) is yielded as its raw text with
    complete=False; the scan then goes on with the next line that is indented no deeper.
    """
    decoder = json.JSONDecoder()
    resume, max_indent = 0, 1 << 30
    for match in _JSON_START.finditer(text):
        start, indent = match.start(2), len(match.group(1))
        if start < resume or indent > max_indent:
            continue
        try:
            value, resume = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            yield text[start : _next_top(text, start, indent)], False
            resume, max_indent = start + 1, indent
            continue
        max_indent = 1 << 30
        yield value, True


def _next_top(text: str, start: int, indent: int) -> int:
    """Where the next document at most `indent` deep starts, or the end of the text."""
    pattern = re.compile(rf"^[ \t]{{0,{indent}}}[\[{{]", re.MULTILINE)
    match = pattern.search(text, start + 1)
    return match.start() if match else len(text)


def flatten(value: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """Nested JSON -> ("section.key", "text") pairs; {"value": v, "unit": u} -> "v u"."""
    if isinstance(value, dict):
        if "value" in value and set(value) <= {"value", "unit"}:
            yield prefix, f"{value.get('value')} {value.get('unit') or ''}".strip()
            return
        for key, item in value.items():
            yield from flatten(item, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list):
        return
    elif prefix:
        yield prefix, "" if value is None else str(value)
