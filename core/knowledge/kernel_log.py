"""kernel_log.toml: kernel log lines that say why amdgpu did not start on a GPU, each with what
it means, what to do and the public threads it comes from (issue 32)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from core.i18n import Localized
from core.knowledge.rows import check_top_level, read_table, rows, unique
from core.resources import data_dir

FILE = "kernel_log.toml"


@dataclass(frozen=True)
class LogCause:
    id: str
    match: tuple[str, ...]
    """Texts (lower case) any of which in a log line marks the cause."""
    cause: Localized
    fix: Localized
    source: str

    def matches(self, line: str) -> bool:
        low = line.lower()
        return any(text in low for text in self.match)


def parse_kernel_log(data: Mapping[str, Any]) -> tuple[LogCause, ...]:
    check_top_level(FILE, data, ["cause"])
    causes = []
    for r in rows(FILE, data, "cause"):
        r.check_keys(["id", "match", "cause", "fix", "source"], [])
        causes.append(LogCause(
            id=r.text("id"),
            match=tuple(text.lower() for text in r.str_list("match", required=True)),
            cause=r.words("cause"),
            fix=r.words("fix"),
            source=r.source(),
        ))
    unique(FILE, "cause", (c.id for c in causes), "id")
    return tuple(causes)


@lru_cache(maxsize=4)
def load_kernel_log(folder: Path | None = None) -> tuple[LogCause, ...]:
    """The table of ``folder`` (default resources/data), read and checked once."""
    return parse_kernel_log(read_table(folder or data_dir(), FILE))


def first_cause(causes: Sequence[LogCause], lines: Sequence[str]) -> tuple[LogCause, str] | None:
    """The first row (in table order) that a line marks, with that line."""
    for cause in causes:
        for line in lines:
            if cause.matches(line):
                return cause, line
    return None
