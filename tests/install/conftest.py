"""Fixtures of the privileged-helper tests: the throwaway Debian root, built once per session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core.install.helper.target import Policy, Target
from tests.install.support import (
    copy_root,
    plain_target,
    trusting_policy,
)


@pytest.fixture
def root_copy(debian_root: Path, tmp_path: Path) -> Iterator[Path]:
    """A fresh copy of the Debian root for one test (removed afterwards)."""
    with copy_root(debian_root, tmp_path / "copy") as root:
        yield root


@pytest.fixture
def fake(tmp_path: Path) -> Target:
    return plain_target(tmp_path)


@pytest.fixture
def policy() -> Policy:
    return trusting_policy()
