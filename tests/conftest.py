"""Shared test set-up: where the fixtures are, and a replayed-machine helper."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

FIXTURES = Path(__file__).parent / "fixtures"
MACHINES = FIXTURES / "machines"


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


def machine_dirs() -> list[Path]:
    if not MACHINES.is_dir():
        return []
    return sorted(p for p in MACHINES.iterdir() if (p / "expected.toml").is_file())
