"""Where common AI apps keep their Python environments (resources/data/app_envs.toml)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from core.knowledge.rows import check_top_level, read_table, rows, unique
from core.resources import data_dir

FILE = "app_envs.toml"


@dataclass(frozen=True)
class AppPlace:
    """One app and the folders (relative to the home, ``*`` for any one folder) that may hold
    its Python environment."""

    id: str
    name: str
    envs: tuple[str, ...]
    source: str
    unverified: bool = False
    note: str | None = None


def _good_pattern(pattern: str) -> bool:
    parts = pattern.split("/")
    return (not pattern.startswith("/") and ".." not in parts and "" not in parts
            and all(part == "*" or "*" not in part for part in parts))


def parse_app_places(data: Mapping[str, Any]) -> tuple[AppPlace, ...]:
    check_top_level(FILE, data, ["app"])
    places: list[AppPlace] = []
    for r in rows(FILE, data, "app"):
        r.check_keys(["id", "name", "envs", "source"], ["note", "unverified"])
        envs = r.str_list("envs", required=True, check=_good_pattern,
                          what="a folder under the home ('*' only as a whole part)")
        if not envs:
            raise r.fail("envs must name at least one folder")
        places.append(AppPlace(id=r.text("id"), name=r.text("name"), envs=envs,
                               source=r.source(), unverified=r.flag("unverified", default=False),
                               note=r.opt_text("note")))
    unique(FILE, "app", (p.id for p in places), "id")
    return tuple(places)


@lru_cache(maxsize=4)
def load_app_places(folder: Path | None = None) -> tuple[AppPlace, ...]:
    """The table, checked as every knowledge table is (a bad row raises KnowledgeError)."""
    return parse_app_places(read_table(folder or data_dir(), FILE))
