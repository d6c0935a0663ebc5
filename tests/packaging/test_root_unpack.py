"""Where root cannot mount the image, it unpacks it, and where it unpacks matters: the runtime
names its folder ``appimage_extracted_<md5 of the image>`` under ``$TMPDIR`` (``/tmp`` when
pkexec has cleared the environment), reuses a folder of that name that is already there and
writes through the links it finds in it. Any user who can read the image can make that folder
first. These tests plant one, as an attacker would, and start the real image: first the way the
runtime would by itself (the premise: root's files land in the attacker's folder), then with the
argv that core.install.privilege hands pkexec (the attacker's folder stays empty)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.install.privilege import helper_route

pytestmark = [pytest.mark.slow, pytest.mark.root]

PKEXEC_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}
"""What pkexec leaves of the environment (no TMPDIR among it)."""


@pytest.fixture
def as_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root (the route runs the image as root)")


def folder_name(image: Path, tmp_path: Path) -> str:
    """The runtime's own name for its folder, read from an unpacking it is told to keep."""
    probe = tmp_path / "probe"
    probe.mkdir()
    subprocess.run([str(image), "--appimage-extract-and-run", "--version"], check=True,
                   env={**PKEXEC_ENV, "TMPDIR": str(probe), "NO_CLEANUP": "1"},
                   capture_output=True, timeout=300)
    (found,) = [p.name for p in probe.iterdir()]
    assert found.startswith("appimage_extracted_")
    shutil.rmtree(probe)
    return found


@pytest.fixture
def planted(image: Path, tmp_path: Path, as_root: None) -> Iterator[tuple[Path, Path]]:
    """The folder an attacker makes first in /tmp (its ``usr`` a link to a folder of theirs)
    and that folder; both gone afterwards."""
    name = folder_name(image, tmp_path)
    trap = Path("/tmp") / name
    attacker = tmp_path / "attacker"
    attacker.mkdir()
    if trap.exists() or trap.is_symlink():
        pytest.skip(f"{trap} is there already")
    trap.mkdir()
    try:
        (trap / "usr").symlink_to(attacker)
        yield trap, attacker
    finally:
        shutil.rmtree(trap, ignore_errors=True)
        shutil.rmtree(Path("/root") / name, ignore_errors=True)


def test_the_runtime_alone_unpacks_through_a_planted_folder(
        image: Path, planted: tuple[Path, Path]) -> None:
    """The premise: were the root route not to name a folder, root's program would be written
    into (and run from) a folder the attacker owns."""
    _trap, attacker = planted
    subprocess.run([str(image), "--appimage-extract-and-run", "--version"], env=PKEXEC_ENV,
                   capture_output=True, timeout=300, check=False)
    assert (attacker / "lib" / "rocmate").is_dir()


def test_the_root_route_unpacks_into_roots_own_folder(image: Path, planted: tuple[Path, Path],
                                                     tmp_path: Path) -> None:
    trap, attacker = planted
    tools = tmp_path / "tools"
    tools.mkdir()
    shutil.copy2("/bin/true", tools / "pkexec")
    route = helper_route("pkexec", euid=1000, uid=0, image=image, tool_dirs=[str(tools)],
                         root_can_mount=False)
    assert route.argv is not None, route.problem
    # what pkexec runs as root, in the environment it leaves; the plan's end of the pipe closed
    done = subprocess.run(route.argv[1:], env=PKEXEC_ENV, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=300, check=False)
    assert "Traceback" not in done.stderr
    assert done.returncode == 2 and "the input is empty" in done.stdout  # the helper answered
    assert list(attacker.iterdir()) == []
    assert sorted(p.name for p in trap.iterdir()) == ["usr"]
    assert not (Path("/root") / trap.name).exists()  # the runtime cleaned up after itself
