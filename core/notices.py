"""rocmate's licence and the third-party notices the AppImage carries (the About box).

The image keeps them at ``usr/share/licenses/rocmate/`` (packaging/build_appimage.py writes
them): ``LICENSE`` (rocmate's, MIT) and ``THIRD-PARTY-NOTICES.txt`` (every bundled component:
Python, Qt and PySide6, numpy, the system libraries, ... with its licence text). A source
checkout has the LICENSE at its root and no notices file: pip installed the libraries, each with
its own licence files.
"""

from __future__ import annotations

import sys
from pathlib import Path

from core.bundle import frozen

LICENCE_FOLDER = ("share", "licenses", "rocmate")
"""Below the AppDir's usr/: where the image keeps the licence and the notices."""
LICENCE_NAME = "LICENSE"
NOTICES_NAME = "THIRD-PARTY-NOTICES.txt"
LICENCE_ID = "MIT"


def licence_folder() -> Path:
    """Where the licence (and, in the image, the notices) are: ``usr/share/licenses/rocmate/``
    beside the frozen program's ``usr/lib/rocmate/``, else the source tree's root."""
    if frozen():
        return Path(sys.executable).resolve().parents[2].joinpath(*LICENCE_FOLDER)
    return Path(__file__).resolve().parent.parent


def licence_text(folder: Path | None = None) -> str | None:
    """rocmate's licence text, or None where it cannot be read."""
    return _read((folder or licence_folder()) / LICENCE_NAME)


def notices_file(folder: Path | None = None) -> Path | None:
    """The third-party notices file, where this copy of rocmate carries one (the AppImage)."""
    path = (folder or licence_folder()) / NOTICES_NAME
    return path if path.is_file() else None


def notices_text(folder: Path | None = None) -> str | None:
    """The third-party notices' text, where this copy carries them."""
    path = notices_file(folder)
    return None if path is None else _read(path)


def _read(path: Path) -> str | None:
    """A text file's content, or None where it cannot be read."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
