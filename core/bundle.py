"""Whether rocmate runs from its package (PyInstaller, inside the AppImage), and where the
package keeps what it hands to other programs.

The AppImage's layout (packaging/build_appimage.py makes it)::

    AppDir/AppRun                          starts usr/lib/rocmate/rocmate
    AppDir/usr/lib/rocmate/rocmate         the frozen program (sys.executable)
    AppDir/usr/lib/rocmate/_internal/      its libraries, Python and resources/
    AppDir/usr/lib/rocmate-worker/core/    the benchmark worker as plain files, nothing else

The AppImage runtime sets ``APPIMAGE`` (the image file) and ``APPDIR`` (where it is mounted or
extracted) for the program it starts, and every child of that program inherits them, so a
value in the environment proves nothing by itself: :func:`appimage_file` believes it only when
this process is frozen and its own executable lies inside ``APPDIR``.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Mapping, MutableMapping
from pathlib import Path

WORKER_FOLDER = "rocmate-worker"


def frozen() -> bool:
    """Whether this process is the packaged program (PyInstaller sets ``sys.frozen``)."""
    return bool(getattr(sys, "frozen", False))


def worker_sources() -> Path | None:
    """The folder that holds the worker package's plain files (``core/__init__.py``,
    ``core/bench/__init__.py``, ``core/bench/worker/``) in the packaged program; None when
    rocmate runs from its sources (the worker is then copied from the package itself)."""
    if not frozen():
        return None
    folder = Path(sys.executable).resolve().parent.parent / WORKER_FOLDER
    return folder if (folder / "core" / "bench" / "worker").is_dir() else None


def appimage_file(env: Mapping[str, str] | None = None, executable: str | None = None
                  ) -> Path | None:
    """The AppImage file this very process was started from, or None.

    Only when this process is frozen (``executable`` given counts as frozen: tests), ``APPDIR``
    is an absolute folder that holds this process's executable, and ``APPIMAGE`` is an absolute
    path to a regular file (not a link) that starts with an ELF header."""
    env = os.environ if env is None else env
    if executable is None:
        if not frozen():
            return None
        executable = sys.executable
    appdir, image = env.get("APPDIR", ""), env.get("APPIMAGE", "")
    if not (os.path.isabs(appdir) and os.path.isabs(image)):
        return None
    real_dir = os.path.realpath(appdir)
    real_exe = os.path.realpath(executable)
    if os.path.commonpath([real_dir, real_exe]) != real_dir:
        return None
    try:
        info = os.lstat(image)
        if not stat.S_ISREG(info.st_mode):
            return None
        with open(image, "rb") as handle:
            if handle.read(4) != b"\x7fELF":
                return None
    except OSError:
        return None
    return Path(image)


APPIMAGE_VARIABLES = ("APPIMAGE", "APPDIR", "ARGV0", "OWD")
"""What the AppImage runtime sets for the program it starts (about that program, not a child)."""


def restore_libraries(env: MutableMapping[str, str], *, packaged: bool | None = None) -> None:
    """PyInstaller's bootloader points ``LD_LIBRARY_PATH`` at the bundle and keeps the user's
    value in ``LD_LIBRARY_PATH_ORIG``: put the user's value back in ``env`` (or none). The
    packaged program does this to its own environment as it starts (its libraries were found
    when it started), so that programs Qt opens for it get the user's libraries too."""
    packaged = frozen() if packaged is None else packaged
    if "LD_LIBRARY_PATH_ORIG" in env:
        original = env.pop("LD_LIBRARY_PATH_ORIG")
        if original:
            env["LD_LIBRARY_PATH"] = original
        else:
            env.pop("LD_LIBRARY_PATH", None)
    elif packaged and "LD_LIBRARY_PATH" in env:  # already put back: only the bundle's leave
        bundle = getattr(sys, "_MEIPASS", None)
        kept = [part for part in env["LD_LIBRARY_PATH"].split(":")
                if part and not (bundle and os.path.realpath(part).startswith(
                    os.path.realpath(bundle)))]
        if kept:
            env["LD_LIBRARY_PATH"] = ":".join(kept)
        else:
            del env["LD_LIBRARY_PATH"]


def drop_bundle_paths(env: MutableMapping[str, str], *, also: str | None = None) -> None:
    """Remove from ``env`` every variable whose value points into the bundle (or into ``also``):
    ``QT_PLUGIN_PATH``, which PyInstaller's Qt hook sets, would load this Qt's plugins into any
    other Qt program started from here. The app does this once its Qt has started (Qt reads
    the variable only then)."""
    inside = [p for p in (getattr(sys, "_MEIPASS", None), also) if p]
    for key in [k for k, v in env.items() if any(folder in v for folder in inside)]:
        del env[key]


def restore_user_environment(env: MutableMapping[str, str], *,
                             packaged: bool | None = None) -> None:
    """Make ``env`` the user's environment for a child of the packaged program: the libraries
    as :func:`restore_libraries` puts them back, without the ``_PYI_*`` variables that would
    mislead another frozen program, without any variable that points into the bundle or the
    image (``QT_PLUGIN_PATH`` would load this Qt's plugins into another Qt program), and without
    the AppImage runtime's variables, which describe this program's image, not the child.
    Outside the package (``packaged`` False) only a leftover ``LD_LIBRARY_PATH_ORIG`` is
    honoured; the rest is the user's own."""
    packaged = frozen() if packaged is None else packaged
    restore_libraries(env, packaged=packaged)
    if not packaged:
        return
    drop_bundle_paths(env, also=env.get("APPDIR"))
    for key in [k for k in env if k.startswith("_PYI_") or k == "_MEIPASS2"]:
        del env[key]
    for key in APPIMAGE_VARIABLES:
        env.pop(key, None)
