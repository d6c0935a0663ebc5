"""retired.toml: Instinct cards AMD no longer supports, and how AMD ended their support.

The doctor and the set-up plan speak to their owners with these words (issue 33) instead of
telling a datacenter owner to "use a supported card"; the routes that may still run the cards
are math_libraries.toml's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from core.i18n import Localized
from core.knowledge.rows import check_top_level, read_table, rows, unique
from core.resources import data_dir

FILE = "retired.toml"


@dataclass(frozen=True)
class RetiredInstinct:
    """One target's retired Instinct cards (retired.toml [[instinct]])."""

    gfx: str
    products: tuple[str, ...]
    ended: Localized
    current: Localized
    source: str


def parse_retired(data: Mapping[str, Any]) -> tuple[RetiredInstinct, ...]:
    check_top_level(FILE, data, ["instinct"])
    found = []
    for r in rows(FILE, data, "instinct"):
        r.check_keys(["gfx", "products", "ended", "current", "source"], [])
        products = r.str_list("products")
        if not products:
            raise r.fail("products names at least one card")
        found.append(RetiredInstinct(gfx=r.gfx(), products=products, ended=r.words("ended"),
                                     current=r.words("current"), source=r.source()))
    unique(FILE, "instinct", [f.gfx for f in found], "gfx")
    return tuple(found)


@lru_cache(maxsize=4)
def load_retired(folder: Path | None = None) -> tuple[RetiredInstinct, ...]:
    """The rows of ``folder`` (default resources/data), read and checked once."""
    return parse_retired(read_table(folder or data_dir(), FILE))


def retired_instinct(rows_: tuple[RetiredInstinct, ...], gfx: str | None,
                     name: str | None) -> RetiredInstinct | None:
    """The row for an Instinct card of ``gfx`` (its name says Instinct or names a product)."""
    row = next((r for r in rows_ if r.gfx == gfx), None)
    if row is None or not name:
        return None
    if "instinct" in name.lower() or any(p.split()[-1] in name for p in row.products):
        return row
    return None
