"""torch_python.toml: the CPython versions each PyTorch release publishes wheels for.

The planner checks the machine's python3 against the release a plan pins (issue 33): torch
2.5.1 has no wheel for Ubuntu 18.04's Python 3.6, and pip would fail mid-plan.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from core.knowledge.rows import check_top_level, read_table, rows, unique, version_tuple
from core.resources import data_dir

FILE = "torch_python.toml"


@dataclass(frozen=True)
class TorchPython:
    """One PyTorch minor release's Python versions (torch_python.toml [[release]])."""

    torch: str
    python_min: str
    python_max: str
    experimental: tuple[str, ...]
    source: str

    def fits(self, python: str) -> bool:
        """Whether CPython ``python`` (3.6 or 3.6.9) has a stable wheel of this release."""
        have = version_tuple(python)[:2]
        return version_tuple(self.python_min) <= have <= version_tuple(self.python_max)

    @property
    def versions(self) -> str:
        """"3.9 to 3.12"."""
        return f"{self.python_min}-{self.python_max}"


def parse_torch_python(data: Mapping[str, Any]) -> tuple[TorchPython, ...]:
    check_top_level(FILE, data, ["release"])
    found = []
    for r in rows(FILE, data, "release"):
        r.check_keys(["torch", "python_min", "python_max", "source"], ["experimental"])
        row = TorchPython(torch=r.version("torch"), python_min=r.version("python_min"),
                          python_max=r.version("python_max"),
                          experimental=r.str_list("experimental", required=False),
                          source=r.source())
        if version_tuple(row.python_min) > version_tuple(row.python_max):
            raise r.fail("python_min is newer than python_max")
        found.append(row)
    unique(FILE, "release", [f.torch for f in found], "torch")
    return tuple(found)


@lru_cache(maxsize=4)
def load_torch_python(folder: Path | None = None) -> tuple[TorchPython, ...]:
    """The rows of ``folder`` (default resources/data), read and checked once."""
    return parse_torch_python(read_table(folder or data_dir(), FILE))


def release_of(rows_: tuple[TorchPython, ...], requirement: str) -> TorchPython | None:
    """The row for a pinned requirement (``torch==2.5.1+rocm6.2`` -> 2.5); None for an
    unpinned one or a release the data does not hold."""
    name, _, version = requirement.partition("==")
    if name.strip().split("[")[0] != "torch" or not version:
        return None
    minor = ".".join(version.split("+")[0].split(".")[:2])
    return next((r for r in rows_ if r.torch == minor), None)
