"""Fixtures for the benchmark tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private XDG_DATA_HOME (history and run files land there)."""
    d = tmp_path / "xdg"
    monkeypatch.setenv("XDG_DATA_HOME", str(d))
    return d
