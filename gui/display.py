"""Before Qt starts: does the display this session names answer?

``DISPLAY`` and ``WAYLAND_DISPLAY`` outlive the display they name: an ssh session whose X
forwarding has ended, ``sudo`` without the user's X authority, a container started with the host's
variables, WSL without WSLg. Qt then aborts the whole process (SIGABRT, "Reinstalling the
application may fix this problem"), which the user can do nothing with. So the launcher asks each
named display first, the way Qt's own platform plugins would reach it:

* X11: ``xcb_connect`` from the host's libxcb (the library Qt's xcb plugin uses), in a thread with
  a time limit, since a display on an unreachable host can hang a connect for minutes. A display
  that refuses this user (no X authority under ``sudo``) does not answer either: Qt would abort
  just the same.
* Wayland: a connect to the compositor's socket (``$XDG_RUNTIME_DIR/$WAYLAND_DISPLAY``, or the
  absolute path the variable holds).

Nothing is started and nothing is read but the two sockets.
"""

from __future__ import annotations

import ctypes
import os
import socket
import threading
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass

# How long an X display may take to let us in. A live one over ssh answers in well under a second.
X11_TIMEOUT_S = 5.0
# Qt's platform names for the two (QT_QPA_PLATFORM); any other (offscreen, minimal, eglfs...) needs
# no display and is not asked.
X11, WAYLAND = "xcb", "wayland"


@dataclass(frozen=True)
class Display:
    """A display the environment names."""

    platform: str   # X11 or WAYLAND
    variable: str   # DISPLAY or WAYLAND_DISPLAY
    name: str       # ":99", "localhost:10.0", "wayland-0"


@dataclass(frozen=True)
class Answer:
    """What the displays said: those that answered and those that did not."""

    live: tuple[Display, ...]
    silent: tuple[Display, ...]

    @property
    def usable(self) -> bool:
        """Qt can open a window on at least one of them (or none was asked)."""
        return bool(self.live) or not self.silent


def named(env: Mapping[str, str]) -> list[Display]:
    """The displays Qt would try here: the one QT_QPA_PLATFORM asks for, else every one set."""
    wanted = [word.split(":")[0].strip() for word in env.get("QT_QPA_PLATFORM", "").split(";")]
    wanted = [word for word in wanted if word]
    found = []
    if env.get("WAYLAND_DISPLAY"):
        found.append(Display(WAYLAND, "WAYLAND_DISPLAY", env["WAYLAND_DISPLAY"]))
    if env.get("DISPLAY"):
        found.append(Display(X11, "DISPLAY", env["DISPLAY"]))
    if wanted:
        return [each for each in found if each.platform in wanted]
    return found


def x11_answers(name: str, timeout: float = X11_TIMEOUT_S) -> bool | None:
    """Whether the X display ``name`` lets this user in; None when libxcb cannot be loaded (the
    host-library check names it then)."""
    try:
        xcb = ctypes.CDLL("libxcb.so.1")
    except OSError:
        return None
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    result: list[bool] = []

    def connect() -> None:
        connection = xcb.xcb_connect(name.encode(), None)
        result.append(bool(connection) and xcb.xcb_connection_has_error(connection) == 0)
        if connection:
            xcb.xcb_disconnect(connection)

    worker = threading.Thread(target=connect, name="rocmate-x11-check", daemon=True)
    worker.start()
    worker.join(timeout)
    return bool(result and result[0])


def wayland_answers(name: str, env: Mapping[str, str]) -> bool:
    """Whether a compositor listens on the Wayland socket ``name``."""
    path = name if name.startswith("/") else os.path.join(env.get("XDG_RUNTIME_DIR", ""), name)
    if not os.path.isabs(path):  # a relative name without XDG_RUNTIME_DIR: Qt fails too
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(2.0)
        try:
            sock.connect(path)
        except OSError:
            return False
    return True


def ask(env: Mapping[str, str]) -> Answer:
    """Ask every display Qt would try here."""
    live: list[Display] = []
    silent: list[Display] = []
    for display in named(env):
        if display.platform == X11:
            answers = x11_answers(display.name)
            answered = True if answers is None else answers
        else:
            answered = wayland_answers(display.name, env)
        (live if answered else silent).append(display)
    return Answer(tuple(live), tuple(silent))


def steer(env: MutableMapping[str, str], answer: Answer) -> None:
    """Where one display answers and another does not, point Qt at the live one (Qt would pick
    X11 in an X session even with a live Wayland beside it, and abort on a dead one)."""
    if answer.silent and answer.live and not env.get("QT_QPA_PLATFORM"):
        env["QT_QPA_PLATFORM"] = answer.live[0].platform
