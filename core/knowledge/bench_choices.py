"""The Benchmark page's choices as data (resources/data/bench.toml): each card's suites, its
words, how long it takes and how its batch is sized. Read here, below the reports, so that a
history row of several suites (the quick health check's gemm+bandwidth) can be named by the card
that ran it; core.operations.suites sizes the choices to a card."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import tomllib

from core.knowledge.rows import Row
from core.resources import data_dir


@dataclass(frozen=True)
class SuiteChoice:
    key: str
    suites: tuple[str, ...]
    title: str  # Localized: core.i18n.local() gives it in the current language
    what: str  # Localized, as title
    needs: tuple[str, ...]
    seconds_gpu: float
    seconds_first: float
    seconds_tiny: float
    source: str
    batch: int | None = None
    fixed_gb: float | None = None
    per_item_gb: float | None = None
    min_gb: float | None = None


@dataclass(frozen=True)
class Table:
    fit_fraction: float
    ladder: tuple[int, ...]
    choices: tuple[SuiteChoice, ...]


def load_table(path: Path | None = None) -> Table:
    return _load(str(path or data_dir() / "bench.toml"))


@lru_cache(maxsize=4)
def _load(path: str) -> Table:
    with open(path, "rb") as f:
        data = tomllib.load(f)
    choices = []
    for index, row in enumerate(data["choice"]):
        memory = row.get("memory", {})
        words = Row(Path(path).name, "choice", index, row)  # title_zh_CN beside title
        choices.append(SuiteChoice(
            key=row["key"], suites=tuple(row["suites"]), title=words.words("title"),
            what=words.words("what"),
            needs=tuple(row.get("needs", ())), seconds_gpu=float(row["seconds_gpu"]),
            seconds_first=float(row["seconds_first"]), seconds_tiny=float(row["seconds_tiny"]),
            source=row["source"], batch=row.get("batch"), fixed_gb=memory.get("fixed_gb"),
            per_item_gb=memory.get("per_item_gb"), min_gb=row.get("min_gb")))
    return Table(float(data["fit_fraction"]), tuple(data["batch_ladder"]), tuple(choices))


def choice_running(suites: str, table: Table | None = None) -> SuiteChoice | None:
    """The choice whose suites, joined by "+" as a history row names them, are ``suites``."""
    for choice in (table or load_table()).choices:
        if "+".join(choice.suites) == suites:
            return choice
    return None
