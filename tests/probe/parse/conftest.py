"""Fixture loading for the parser tests.

The real outputs live in tests/fixtures/outputs/<folder>/<name>.txt, each with a three-line
'# source / # machine / # note' header and a blank line; `load_output` returns the body.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

OUTPUTS = Path(__file__).resolve().parents[2] / "fixtures" / "outputs"
HEADER_KEYS = ("# source:", "# machine:", "# note:")


def read_output(relative: str) -> str:
    """The body of tests/fixtures/outputs/<relative>: header lines and blank line removed."""
    text = (OUTPUTS / relative).read_text(encoding="utf-8", errors="replace")
    lines = text.split("\n")
    if len(lines) < 4 or not all(
        line.startswith(key) for line, key in zip(lines, HEADER_KEYS, strict=False)
    ):
        raise ValueError(f"{relative}: missing the 3-line source header")
    if lines[3].strip():
        raise ValueError(f"{relative}: no blank line after the header")
    return "\n".join(lines[4:])


def output_names(folder: str) -> list[str]:
    """'folder/name.txt' for every fixture file in one folder, sorted."""
    return sorted(f"{folder}/{path.name}" for path in (OUTPUTS / folder).glob("*.txt"))


@pytest.fixture(scope="session")
def load_output() -> Callable[[str], str]:
    """read_output as a fixture: load_output('rocminfo/rx6700xt-i3-12100f.txt')."""
    return read_output


@pytest.fixture(scope="session")
def outputs_in() -> Callable[[str], dict[str, str]]:
    """{'folder/name.txt': body} for every fixture in a folder."""

    def load(folder: str) -> dict[str, str]:
        return {name: read_output(name) for name in output_names(folder)}

    return load
