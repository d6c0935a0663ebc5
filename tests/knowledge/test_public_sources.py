"""Sources shown to users cite public references, never the project's internal files.

`rocmate explain` prints each pattern's source and the report's "cards like mine" shows each
reference's source, so a source must name something a user can follow (an issue, a document and
its section, a blog post by its title), not a fixture, a research note or a seed file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import tomllib

DATA = Path(__file__).resolve().parents[2] / "resources" / "data"

INTERNAL = re.compile(
    r"fixtures?\b|\.txt\b|\.md\b|rocm-facts|anchors-|\bseed \d|\bINSTALL \d|shared/|DESIGN",
    re.IGNORECASE,
)


def _rows(filename: str, table: str) -> list[dict[str, Any]]:
    with (DATA / filename).open("rb") as handle:
        data = tomllib.load(handle)
    rows = data.get(table)
    assert isinstance(rows, list) and rows, f"{filename}: no [[{table}]] rows"
    return rows


# This repository is public: a figure it measured itself may cite the recorded report or docs page
# that holds it, as "this repository's <path>" (tests/knowledge/test_sources.py, OWN_RECORD).
OWN_RECORD = re.compile(
    r"(?:\bthis repository's|本仓库的)\s*(?![^\s,;)）]*\.\.)"
    r"(?:tests/fixtures/reports|docs)/[\w./-]*\w"
)


def _offenders(rows: list[dict[str, Any]]) -> list[str]:
    return [
        f"{row.get('id', '?')}: {row['source']!r}"
        for row in rows
        if INTERNAL.search(OWN_RECORD.sub("", str(row.get("source", ""))))
    ]


@pytest.mark.parametrize(
    ("filename", "table"),
    [("explain.toml", "pattern"), ("references.toml", "reference")],
)
def test_sources_name_no_internal_files(filename: str, table: str) -> None:
    rows = _rows(filename, table)
    assert all(str(row.get("source", "")).strip() for row in rows), f"{filename}: empty source"
    offenders = _offenders(rows)
    assert not offenders, f"{filename}: sources name internal files:\n" + "\n".join(offenders)


@pytest.mark.parametrize(
    "source",
    [
        "fixture apt-expkeysig-rocm-2019.txt (ROCm/ROCm#859)",
        "rocm-facts 5.2",
        "anchors-performance.md section 1.2",
        "seed 001 section 6.3",
        "INSTALL 5.2 (signed-by keyring method)",
        "DESIGN.md finding igpu-first",
        "seed blog post 000 (Chinese, ../shared/seeds/000_7a2522098d56df45.txt)",
        "this repository's tests/fixtures/machines/x/SOURCE.md",
        "this repository's docs/bench.md; rocm-facts 3.2",
    ],
)
def test_the_pattern_catches_internal_names(source: str) -> None:
    assert _offenders([{"id": "example", "source": source}]) == ["example: " + repr(source)]
