"""Fixtures of the privileged-helper tests: the throwaway Debian root, built once per session."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.install.helper.target import Policy, Target
from core.knowledge.loader import load_knowledge
from tests.install.support import (
    TRUSTED_FPR,
    add_fixtures,
    build_debian_root,
    cached_debian_root,
    copy_root,
    root_cache,
    root_skip_reason,
    write_accounts,
)


@pytest.fixture(scope="session")
def debian_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A minimal Debian bookworm (apt, python3, gpg) from mmdebstrap; skips where impossible.

    Tests never write to it: each works on an overlay (or a copy) of it. It is kept in
    $ROCMATE_TEST_ROOT_CACHE (default /var/cache/rocmate-tests, rebuilt weekly; "off" builds a
    fresh one in the test's temporary folder every run)."""
    reason = root_skip_reason()
    if reason:
        pytest.skip(reason)
    cache = root_cache()
    if cache is not None:
        try:
            root, problem = cached_debian_root(cache)
        except OSError:  # the cache folder is not writable: build a private root instead
            root, problem = None, None
        if root is not None:
            yield root
            return
        if problem:
            pytest.skip(problem)
    dest = tmp_path_factory.mktemp("debian-root") / "root"
    problem = build_debian_root(dest)
    if problem:
        shutil.rmtree(dest, ignore_errors=True)
        pytest.skip(problem)
    yield dest
    shutil.rmtree(dest, ignore_errors=True)


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
