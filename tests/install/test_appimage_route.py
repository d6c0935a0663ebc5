"""The route to root from the AppImage: pkexec (or sudo) is handed the image *file* and its
helper mode, with --appimage-extract-and-run where root could not mount it; only when the image
is one that nobody but root and this user can change; never for an $APPIMAGE this process did
not start from (core.bundle.appimage_file)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.bundle import appimage_file
from core.install.privilege import (
    CANCEL_ON_EOF,
    EXTRACT_AND_RUN,
    appimage_problems,
    helper_route,
    root_can_mount_fuse,
    root_problems,
)

USER = 1000


@pytest.fixture
def home() -> Iterator[Path]:
    """A user's home in a folder whose parents are all root's and closed to others, with the
    image file and sudo/pkexec stand-ins; the user is uid 1000 (root can chown)."""
    if os.geteuid() != 0:
        pytest.skip("needs root (files owned by another user)")
    parent = next((p for p in ("/var/cache", "/var/lib", "/opt")
                   if os.path.isdir(p) and not root_problems([(p, False)])), None)
    if parent is None:
        pytest.skip("no folder here whose parents are all root's and closed to others")
    top = Path(tempfile.mkdtemp(prefix="rocmate-appimage-", dir=parent))
    try:
        top.chmod(0o755)
        user = top / "home" / "alice"
        (user / "Applications").mkdir(parents=True)
        image = user / "Applications" / "rocmate-x86_64.AppImage"
        image.write_bytes(b"\x7fELF" + bytes(60))
        image.chmod(0o755)
        for path in (user, user / "Applications", image):
            os.chown(path, USER, USER)
        (top / "home").chmod(0o755)
        user.chmod(0o750)
        (user / "Applications").chmod(0o755)
        tools = top / "tools"
        tools.mkdir(mode=0o755)
        for tool in ("sudo", "pkexec"):
            shutil.copy2("/bin/true", tools / tool)
            (tools / tool).chmod(0o755)
        yield top
    finally:
        shutil.rmtree(top, ignore_errors=True)


def image_in(home: Path) -> Path:
    return home / "home/alice/Applications/rocmate-x86_64.AppImage"


def route(home: Path, via: str = "pkexec", mount: bool = True):
    return helper_route(via, euid=USER, uid=USER, image=image_in(home),  # type: ignore[arg-type]
                        tool_dirs=[str(home / "tools")], root_can_mount=mount)


def test_pkexec_is_handed_the_image_file_and_its_helper_mode(home: Path) -> None:
    found = route(home)
    assert found.problem is None
    assert found.argv == [str(home / "tools/pkexec"), str(image_in(home)), "helper",
                          CANCEL_ON_EOF]


def test_extract_and_run_where_root_cannot_mount_into_roots_own_folder(home: Path) -> None:
    """Not in /tmp: the runtime's folder there is named after the image's md5, which any user
    who can read the image can work out and make first."""
    found = route(home, mount=False)
    assert found.argv == [str(home / "tools/pkexec"), "/usr/bin/env", "TMPDIR=/root",
                          str(image_in(home)), EXTRACT_AND_RUN, "helper", CANCEL_ON_EOF]


def test_sudo_from_a_terminal_too(home: Path) -> None:
    assert route(home, "sudo").argv == [str(home / "tools/sudo"), str(image_in(home)), "helper",
                                        CANCEL_ON_EOF]


@pytest.mark.parametrize("change", ["group-writable", "other-writable", "other-owner",
                                    "folder-writable", "folder-other-owner", "a-link"])
def test_an_image_others_could_change_is_never_run_as_root(home: Path, change: str) -> None:
    image = image_in(home)
    folder = image.parent
    if change == "group-writable":
        image.chmod(0o775)
    elif change == "other-writable":
        image.chmod(0o757)
    elif change == "other-owner":
        os.chown(image, 2000, 2000)
    elif change == "folder-writable":
        folder.chmod(0o777)
    elif change == "folder-other-owner":
        os.chown(folder, 2000, 2000)
    else:
        real = folder / "real.AppImage"
        image.rename(real)
        image.symlink_to(real)
    found = route(home)
    assert found.argv is None
    assert "will not ask for root rights" in (found.problem or "")
    assert str(image) in (found.problem or "")


def test_a_sticky_folder_such_as_tmp_is_fine(home: Path) -> None:
    folder = image_in(home).parent
    folder.chmod(0o1777)
    assert appimage_problems(str(image_in(home)), USER) == []


def test_already_root_the_packaged_program_is_its_own_helper(home: Path) -> None:
    found = helper_route(euid=0, image=image_in(home))
    assert found.argv is not None and found.argv[1:] == ["helper", CANCEL_ON_EOF]


def test_an_inherited_appimage_is_no_image_of_ours(tmp_path: Path) -> None:
    """Every child of any AppImage inherits $APPIMAGE and $APPDIR: believed only for the frozen
    program whose executable lies inside $APPDIR."""
    image = tmp_path / "Other.AppImage"
    image.write_bytes(b"\x7fELF" + bytes(60))
    appdir = tmp_path / "mount"
    (appdir / "usr/lib/rocmate").mkdir(parents=True)
    exe = appdir / "usr/lib/rocmate/rocmate"
    exe.write_bytes(b"")
    env = {"APPIMAGE": str(image), "APPDIR": str(appdir)}
    assert appimage_file(env) is None  # this test's Python is not frozen
    assert appimage_file(env, executable=str(exe)) == image
    assert appimage_file(env, executable="/usr/bin/python3") is None  # not inside APPDIR
    assert appimage_file({**env, "APPIMAGE": "rel.AppImage"}, executable=str(exe)) is None
    text = tmp_path / "script.AppImage"
    text.write_text("#!/bin/sh\n")
    assert appimage_file({**env, "APPIMAGE": str(text)}, executable=str(exe)) is None
    link = tmp_path / "link.AppImage"
    link.symlink_to(image)
    assert appimage_file({**env, "APPIMAGE": str(link)}, executable=str(exe)) is None


def test_root_can_mount_needs_dev_fuse_and_libfuse2(tmp_path: Path) -> None:
    assert root_can_mount_fuse(dev_fuse=str(tmp_path / "no-fuse")) is False
    (tmp_path / "fuse").write_text("")
    assert root_can_mount_fuse(dev_fuse=str(tmp_path / "fuse"),
                               library="libnot-a-library-at-all.so.9") is False
