"""Before Qt starts: does this desktop have the libraries the packaged app leaves to it?

The AppImage does not carry the X11/xcb client libraries, OpenGL, fontconfig and the like
(packaging/host-libraries.txt): a desktop has them, but one that lacks, say, libxcb-cursor0
would only get Qt's "could not load the Qt platform plugin" and a core dump. This check names
the packages instead (resources/data/desktop.toml). It only tries to load each library
(``ctypes``): nothing is read or started.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable, Mapping

from core.knowledge.desktop import DesktopLibrary, needed_for

HEADLESS = ("offscreen", "minimal")


def platform(env: Mapping[str, str]) -> str:
    """The windowing Qt will use: QT_QPA_PLATFORM's first choice, else Wayland in a Wayland
    session (Qt 6 prefers it there), else X11 (xcb)."""
    chosen = env.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if chosen:
        return chosen
    if env.get("WAYLAND_DISPLAY") and env.get("XDG_SESSION_TYPE") == "wayland":
        return "wayland"
    return "xcb"


def loads(soname: str) -> bool:
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def missing(env: Mapping[str, str] | None = None,
            can_load: Callable[[str], bool] | None = None) -> list[DesktopLibrary]:
    """The host libraries this start needs and cannot load (for a headless platform only the
    ones every windowing needs);
    ``can_load`` defaults to :func:`loads`."""
    env = os.environ if env is None else env
    can_load = can_load or loads
    # headless (offscreen, minimal): only what Qt's GUI module needs whatever the windowing
    return [lib for lib in needed_for(platform(env)) if not can_load(lib.soname)]
