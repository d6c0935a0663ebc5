"""The built AppImage (``make appimage``: dist/rocmate-x86_64.AppImage) and ways to start it.

``make test`` builds the image first. Run alone without it, these tests skip, except in CI
(``CI`` set), where a missing image fails them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
IMAGE = REPO / "dist" / "rocmate-x86_64.AppImage"
MACHINES = REPO / "tests" / "fixtures" / "machines"
MODES = ("extract-and-run", "mounted")


def fuse_problem() -> str | None:
    """Why the image cannot be mounted here (None: it can)."""
    if not os.path.exists("/dev/fuse"):
        return "no /dev/fuse"
    if shutil.which("fusermount") is None:
        return "no fusermount (Debian package fuse)"
    if not any(Path(d, "libfuse.so.2").exists()
               for d in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/usr/lib")):
        return "no libfuse.so.2 (Debian package libfuse2)"
    return None


@pytest.fixture(scope="session")
def image() -> Path:
    if not IMAGE.is_file():
        message = f"{IMAGE} is not built: run `make appimage`"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return IMAGE


def user_env(tmp: Path, **extra: str) -> dict[str, str]:
    """A user's environment for one start: its own home folders, no desktop, offscreen Qt."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST", "APPIMAGE", "APPDIR", "_PYI"))}
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    for name in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        env[name] = str(tmp / name.lower())
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["TMPDIR"] = str(tmp)
    env.update(extra)
    return env


def start(image: Path, mode: str, *args: str, env: dict[str, str], timeout: float = 300,
          stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Start the image as a user does: mounted (FUSE) or with the runtime's extract-and-run."""
    if mode == "mounted":
        problem = fuse_problem()
        if problem:
            pytest.skip(f"cannot mount the AppImage here: {problem}")
        argv = [str(image), *args]
    else:
        argv = [str(image), "--appimage-extract-and-run", *args]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout,
                          input=stdin, check=False)


@pytest.fixture(scope="session")
def appdir(image: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The image's AppDir, extracted once by its own runtime (``--appimage-extract``)."""
    folder = tmp_path_factory.mktemp("appdir")
    subprocess.run([str(image), "--appimage-extract"], cwd=folder, capture_output=True,
                   check=True, timeout=300)
    yield folder / "squashfs-root"
