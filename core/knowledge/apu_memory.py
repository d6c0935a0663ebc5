"""The APU memory table (resources/data/apu_memory.toml): ttm's arithmetic, the floor that stays
for the system, when the doctor calls the GPU's share low, and the advice notes (issue 35)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from core.i18n import Localized
from core.knowledge.rows import KnowledgeError, Row, check_top_level, read_table, rows
from core.resources import data_dir

FILE = "apu_memory.toml"
GIB = 1 << 30


@dataclass(frozen=True)
class Note:
    key: str
    text: Localized
    source: str


@dataclass(frozen=True)
class ApuMemoryTable:
    page_bytes: int
    pages_per_gib: int
    default_fraction: float
    floor_min_gib: float
    floor_fraction: float
    floor_reasoning: Localized
    floor_source: str
    low_fraction: float
    min_gap_gib: float
    finding_source: str
    llm_overhead: float
    llm_reasoning: Localized
    llm_source: str
    ttm_source: str
    notes: tuple[Note, ...]

    def floor_bytes(self, ram_bytes: int) -> int:
        """What stays for the system on a machine with ``ram_bytes`` of RAM."""
        return int(max(self.floor_min_gib * GIB, self.floor_fraction * ram_bytes))

    def safe_bytes(self, ram_bytes: int) -> int:
        """The most rocmate advises the GPU may map: RAM less the floor (never below 0)."""
        return max(0, ram_bytes - self.floor_bytes(ram_bytes))

    def pages(self, gib: int) -> int:
        """ttm's ``pages_limit`` for ``gib`` GiB: GiB x 262144 pages of 4 KiB."""
        return gib * self.pages_per_gib

    def note(self, key: str) -> Note:
        return next(n for n in self.notes if n.key == key)


NOTE_KEYS = ("carve-out-vs-gtt", "expandable-segments", "gttsize-deprecated", "how-to-set")


def _section(data: dict[str, Any], name: str) -> Row:
    value = data.get(name)
    row = Row(FILE, name, 0, value)
    return row


def _number(row: Row, key: str) -> float:
    value = row.opt_float(key)
    if value is None:
        raise row.fail(f"{key} must be a positive number")
    return value


def parse_table(data: dict[str, Any]) -> ApuMemoryTable:
    check_top_level(FILE, data, ("ttm", "floor", "finding", "llm", "note"))
    ttm = _section(data, "ttm")
    ttm.check_keys(("page_bytes", "pages_per_gib", "default_fraction", "source"), ())
    floor = _section(data, "floor")
    floor.check_keys(("min_gib", "fraction", "reasoning", "source"), ())
    finding = _section(data, "finding")
    finding.check_keys(("low_fraction", "min_gap_gib", "source"), ())
    llm = _section(data, "llm")
    llm.check_keys(("overhead_fraction", "reasoning", "source"), ())
    page_bytes = int(_number(ttm, "page_bytes"))
    pages_per_gib = int(_number(ttm, "pages_per_gib"))
    if page_bytes * pages_per_gib != GIB:
        raise ttm.fail("page_bytes x pages_per_gib must be one GiB")
    notes = []
    for row in rows(FILE, data, "note"):
        row.check_keys(("key", "text", "source"), ())
        notes.append(Note(row.text("key"), row.words("text"), row.source()))
    keys = [n.key for n in notes]
    missing = [k for k in NOTE_KEYS if k not in keys]
    if missing:
        raise KnowledgeError(f"{FILE}: no [[note]] for {', '.join(missing)}")
    return ApuMemoryTable(
        page_bytes=page_bytes,
        pages_per_gib=pages_per_gib,
        default_fraction=_number(ttm, "default_fraction"),
        floor_min_gib=_number(floor, "min_gib"),
        floor_fraction=_number(floor, "fraction"),
        floor_reasoning=floor.words("reasoning"),
        floor_source=floor.source(),
        low_fraction=_number(finding, "low_fraction"),
        min_gap_gib=_number(finding, "min_gap_gib"),
        finding_source=finding.source(),
        llm_overhead=_number(llm, "overhead_fraction"),
        llm_reasoning=llm.words("reasoning"),
        llm_source=llm.source(),
        ttm_source=ttm.source(),
        notes=tuple(notes),
    )


def load_apu_memory(folder: Path | None = None) -> ApuMemoryTable:
    if folder is None:
        return _default()
    return parse_table(read_table(folder, FILE))


@lru_cache(maxsize=1)
def _default() -> ApuMemoryTable:
    return parse_table(read_table(data_dir(), FILE))
