"""Fixtures of the privileged-helper tests: the throwaway Debian root, built once per session."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.install.helper.target import Policy, Target
from core.knowledge.loader import load_knowledge
from tests.install.support import (
    TRUSTED_FPR,
    add_fixtures,
    copy_root,
    write_accounts,
)


@pytest.fixture
def root_copy(debian_root: Path, tmp_path: Path) -> Iterator[Path]:
    """A fresh copy of the Debian root for one test (removed afterwards)."""
    with copy_root(debian_root, tmp_path / "copy") as root:
        yield root


@pytest.fixture
def fake(tmp_path: Path) -> Target:
    """A fake system root: accounts and the apt folders, without the planted 'evil' links."""
    write_accounts(tmp_path)
    add_fixtures(tmp_path)
    for link in ("etc/apt/keyrings/evil.gpg", "etc/apt/sources.list.d/evil.list",
                 "etc/apt/preferences.d/evil"):
        (tmp_path / link).unlink()
    return Target(str(tmp_path))


@pytest.fixture
def policy() -> Policy:
    """The shipped policy, plus the synthetic test key."""
    shipped = Policy.from_knowledge(load_knowledge())
    return dataclasses.replace(shipped,
                               trusted_fingerprints=shipped.trusted_fingerprints | {TRUSTED_FPR})
