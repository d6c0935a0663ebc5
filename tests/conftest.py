"""Shared test set-up: where the fixtures are, and a replayed-machine helper."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# the recorded outputs are English: a developer's Chinese desktop must not change them (tests
# of other languages ask for theirs with --lang or core.i18n.set_language)
for _name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
    os.environ.pop(_name, None)
os.environ["LANG"] = "C.UTF-8"

FIXTURES = Path(__file__).parent / "fixtures"
MACHINES = FIXTURES / "machines"


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def chinese() -> Iterator[None]:
    """The test's texts in Simplified Chinese, English again after it."""
    from core.i18n import set_language

    set_language("zh_CN")
    try:
        yield
    finally:
        set_language(None)


def machine_dirs() -> list[Path]:
    if not MACHINES.is_dir():
        return []
    return sorted(p for p in MACHINES.iterdir() if (p / "expected.toml").is_file())


@pytest.fixture(scope="session")
def debian_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A minimal Debian bookworm (apt, python3, gpg) from mmdebstrap; skips where impossible.

    Tests never write to it: each works on an overlay (or a copy) of it. It is kept in
    $ROCMATE_TEST_ROOT_CACHE (default /var/cache/rocmate-tests, rebuilt weekly; "off" builds a
    fresh one in the test's temporary folder every run)."""
    from tests.install.support import (
        build_debian_root,
        cached_debian_root,
        root_cache,
        root_skip_reason,
    )

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
