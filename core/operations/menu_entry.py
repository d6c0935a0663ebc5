"""rocmate in the desktop's application menu, for an AppImage: add it, read it back, take it out.

An AppImage is one file the user keeps wherever they like; nothing installs it. Added to the
menu, rocmate writes the user's own menu entry (the freedesktop Desktop Entry format) and its
icon, and nothing else::

    $XDG_DATA_HOME/applications/org.rocmate.Rocmate.desktop          (~/.local/share/...)
    $XDG_DATA_HOME/icons/hicolor/256x256/apps/org.rocmate.Rocmate.png

The entry starts the AppImage by its absolute path (``Exec``, quoted as the specification's
Exec rules say) and names the icon by its absolute path, so that no desktop database or icon
cache has to be updated. It carries ``X-Rocmate-AppImage`` (which AppImage) and, where rocmate
copied the icon, ``X-Rocmate-Icon``: what tells rocmate's own entry from any other file of
that name, which rocmate never changes or removes. An entry whose AppImage is no longer where
it says (moved, deleted) is *stale*; adding again points it at the AppImage given.

Every failure (a read-only folder, a folder where a file should be) is an
:class:`~core.operations.errors.OperationError` whose ``str()`` is one line for the user.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from core.i18n import t
from core.operations.errors import OperationError
from core.resources import APP_ID, icon_file

DESKTOP_FILE = f"{APP_ID}.desktop"
ICON_SIZE = "256x256"
APPIMAGE_KEY = "X-Rocmate-AppImage"
ICON_KEY = "X-Rocmate-Icon"
GROUP = "Desktop Entry"
MAX_ENTRY = 64 << 10
"""A larger file at the entry's place is not rocmate's."""

# The words of packaging/org.rocmate.Rocmate.desktop (a test keeps the two the same). The
# desktop reads the translations from the file itself, so they are written as they are here.
NAME = {"": "rocmate", "zh_CN": "rocmate"}
GENERIC_NAME = {"": "PyTorch on AMD GPUs", "zh_CN": "AMD显卡上的PyTorch"}
COMMENT = {"": "Check your machine, set up ROCm and PyTorch, and benchmark your AMD graphics "
               "card",
           "zh_CN": "检查电脑，安装ROCm和PyTorch，测试AMD显卡性能"}
CATEGORIES = "System;Monitor;"
KEYWORDS = {"": "ROCm;PyTorch;AMD;GPU;Radeon;HIP;benchmark;driver;setup;",
            "zh_CN": "ROCm;PyTorch;AMD;GPU;显卡;驱动;性能测试;安装;"}
STARTUP_WM_CLASS = "rocmate"
GUI_ARGUMENT = "gui"
"""What the entry passes the AppImage: open the app (plain ``rocmate`` would too on a desktop)."""

State = Literal["absent", "present", "stale", "foreign"]


@dataclass(frozen=True)
class MenuEntry:
    """What stands at the menu entry's place.

    ``state``: ``absent`` (nothing there), ``present`` (rocmate's entry, its AppImage where it
    says), ``stale`` (rocmate's entry, its AppImage gone or moved), ``foreign`` (a file, link or
    folder rocmate did not write: left alone). ``appimage``: the AppImage rocmate's entry
    starts; ``icon``: the icon it copied, where it did."""

    state: State
    path: Path
    appimage: Path | None = None
    icon: Path | None = None

    @property
    def ours(self) -> bool:
        """Whether rocmate wrote the entry (present or stale): it may replace or remove it."""
        return self.state in ("present", "stale")

    def starts(self, appimage: Path | None) -> bool:
        """Whether the entry is present and starts ``appimage`` (the same file)."""
        if self.state != "present" or self.appimage is None or appimage is None:
            return False
        try:
            return os.path.samefile(self.appimage, appimage)
        except OSError:
            return False


class MenuEntryError(OperationError):
    """An operation on the menu entry that could not be done. ``str()`` is the line in the
    language spoken when it failed; :meth:`words` says it again in the current one."""

    def __init__(self, words: Callable[[], str]) -> None:
        super().__init__(words())
        self._words = words

    def words(self) -> str:
        return self._words()


# --- where ------------------------------------------------------------------------------------

def data_home(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME``, or ``~/.local/share`` where it is unset, empty or not absolute (the
    XDG Base Directory rule)."""
    env = os.environ if env is None else env
    value = env.get("XDG_DATA_HOME", "")
    if value and os.path.isabs(value):
        return Path(value)
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".local" / "share"


def menu_entry_path(env: Mapping[str, str] | None = None) -> Path:
    """Where rocmate's menu entry goes: ``applications/org.rocmate.Rocmate.desktop`` in
    :func:`data_home`."""
    return data_home(env) / "applications" / DESKTOP_FILE


def icon_path(env: Mapping[str, str] | None = None) -> Path:
    """Where the entry's icon goes: the user's hicolor theme, 256 x 256."""
    return data_home(env) / "icons" / "hicolor" / ICON_SIZE / "apps" / f"{APP_ID}.png"


# --- the Desktop Entry format -----------------------------------------------------------------

EXEC_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")
"""The characters that make the Exec rules quote an argument."""
EXEC_ESCAPED_IN_QUOTES = set('"`$\\')
"""The characters a backslash escapes inside a quoted Exec argument."""


def escape_string(value: str) -> str:
    """A value of type string as the file holds it: ``\\`` ``\\n`` ``\\t`` ``\\r`` escaped, and
    spaces at either end as ``\\s`` (a reader strips them otherwise)."""
    out = value.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t") \
        .replace("\r", "\\r")
    middle = out.strip(" ")
    if not middle:
        return "\\s" * len(out)
    start = len(out) - len(out.lstrip(" "))
    end = len(out) - len(out.rstrip(" "))
    return "\\s" * start + middle + "\\s" * end


def unescape_string(value: str) -> str:
    """The value a string in the file stands for (:func:`escape_string` undone)."""
    out, i = [], 0
    while i < len(value):
        char = value[i]
        if char == "\\" and i + 1 < len(value):
            nxt = value[i + 1]
            mapped = {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}.get(nxt)
            if mapped is not None:
                out.append(mapped)
                i += 2
                continue
        out.append(char)
        i += 1
    return "".join(out)


def exec_argument(arg: str) -> str:
    """One argument of an Exec line, before the string escaping of :func:`escape_string`:
    quoted where it holds a reserved character (inside the quotes ``"`` `````` ``$`` ``\\`` get
    a backslash), and every ``%`` doubled (a literal percent, not a field code)."""
    if arg and not EXEC_RESERVED.intersection(arg):
        return arg.replace("%", "%%")
    quoted = "".join("\\" + c if c in EXEC_ESCAPED_IN_QUOTES else c for c in arg)
    return '"' + quoted.replace("%", "%%") + '"'


ENV = "/usr/bin/env"


def exec_line(args: list[str]) -> str:
    """The Exec value (as the file holds it) that runs ``args``.

    A program whose path holds ``%`` is started through ``env``: GLib (GNOME's menus, ``gio
    launch``) looks for the Exec line's program before it turns ``%%`` back into ``%``, finds
    no file of that name and drops the whole entry; it reads an argument correctly."""
    if args and "%" in args[0]:
        args = [ENV, *args]
    return escape_string(" ".join(exec_argument(a) for a in args))


def read_entry(text: str) -> dict[str, str]:
    """The keys of the ``[Desktop Entry]`` group (string escapes undone; comments, other groups
    and lines that are not ``key=value`` left out)."""
    keys: dict[str, str] = {}
    group = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            group = line[1:-1]
            continue
        if group != GROUP or "=" not in line:
            continue
        key, value = line.split("=", 1)
        keys.setdefault(key.strip(), unescape_string(value.strip()))
    return keys


def entry_text(appimage: Path, icon: Path, icon_copied: bool) -> str:
    """rocmate's menu entry for ``appimage``, its icon at ``icon``."""
    image = str(appimage)
    lines = [
        f"[{GROUP}]",
        "# Written by rocmate (Add to the application menu); rocmate removes it again.",
        "Type=Application",
        *(f"Name{f'[{lang}]' if lang else ''}={text}" for lang, text in NAME.items()),
        *(f"GenericName{f'[{lang}]' if lang else ''}={text}"
          for lang, text in GENERIC_NAME.items()),
        *(f"Comment{f'[{lang}]' if lang else ''}={text}" for lang, text in COMMENT.items()),
        f"Exec={exec_line([image, GUI_ARGUMENT])}",
        f"TryExec={escape_string(image)}",
        f"Icon={escape_string(str(icon))}",
        "Terminal=false",
        f"Categories={CATEGORIES}",
        *(f"Keywords{f'[{lang}]' if lang else ''}={text}" for lang, text in KEYWORDS.items()),
        f"StartupWMClass={STARTUP_WM_CLASS}",
        "StartupNotify=true",
        f"{APPIMAGE_KEY}={escape_string(image)}",
    ]
    if icon_copied:
        lines.append(f"{ICON_KEY}={escape_string(str(icon))}")
    return "\n".join(lines) + "\n"


# --- reading the state ------------------------------------------------------------------------

def _own_keys(path: Path) -> dict[str, str] | None:
    """The keys of rocmate's own entry at ``path``; None where what stands there is not one (a
    link, a folder, a large or unreadable file, one without ``X-Rocmate-AppImage``)."""
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_ENTRY:
            return None
        keys = read_entry(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError):
        return None
    return keys if keys.get(APPIMAGE_KEY) else None


def _is_appimage_file(path: Path) -> bool:
    try:
        return path.is_absolute() and stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def menu_entry_state(env: Mapping[str, str] | None = None) -> MenuEntry:
    """What stands at the menu entry's place (:class:`MenuEntry`); reads one small file."""
    path = menu_entry_path(env)
    if not os.path.lexists(path):
        return MenuEntry("absent", path)
    keys = _own_keys(path)
    if keys is None:
        return MenuEntry("foreign", path)
    appimage = Path(keys[APPIMAGE_KEY])
    icon = Path(keys[ICON_KEY]) if keys.get(ICON_KEY) == str(icon_path(env)) else None
    state: State = "present" if _is_appimage_file(appimage) else "stale"
    return MenuEntry(state, path, appimage, icon)


# --- writing ----------------------------------------------------------------------------------

def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = _reason(exc)
        raise MenuEntryError(lambda: t(
            "menu-entry.no-folder", "Could not make the folder {path}: {reason}.",
            path=str(folder), reason=reason)) from None


def _refuse_folder(path: Path, what: Callable[[], str]) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        raise MenuEntryError(what)


def _write_atomically(path: Path, data: bytes) -> None:
    """``data`` into ``path`` through a file beside it, renamed over it once complete: a reader
    sees the old file or the new one, never half of one."""
    fd, tmp = -1, ""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as handle:
            fd = -1
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
        tmp = ""
    except OSError as exc:
        reason = _reason(exc)
        raise MenuEntryError(lambda: t(
            "menu-entry.cannot-write", "Could not write {path}: {reason}.",
            path=str(path), reason=reason)) from None
    finally:
        if fd >= 0:
            os.close(fd)
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _check_appimage(appimage: Path) -> Path:
    where = str(appimage)
    if not appimage.is_absolute():
        raise MenuEntryError(lambda: t(
            "menu-entry.not-absolute", "The AppImage's path {path} is not absolute.",
            path=where))
    if any(ord(c) < 0x20 or ord(c) == 0x7f for c in where):
        raise MenuEntryError(lambda: t(
            "menu-entry.control-characters",
            "The AppImage's path {path} holds control characters, which a menu entry cannot "
            "hold: move the AppImage to a folder with a plainer name.", path=ascii(where)))
    try:
        where.encode("utf-8")
    except UnicodeEncodeError:
        raise MenuEntryError(lambda: t(
            "menu-entry.not-utf8",
            "The AppImage's path {path} is not UTF-8, which a menu entry must be: move the "
            "AppImage to a folder with a plainer name.",
            path=where.encode("utf-8", "replace").decode("utf-8"))) from None
    if not _is_appimage_file(appimage):
        raise MenuEntryError(lambda: t(
            "menu-entry.no-appimage", "There is no AppImage at {path}.", path=where))
    return Path(os.path.normpath(where))


def _same_bytes(path: Path, data: bytes) -> bool:
    try:
        return os.path.getsize(path) == len(data) and path.read_bytes() == data
    except OSError:
        return False


def add_to_menu(appimage: Path, env: Mapping[str, str] | None = None) -> MenuEntry:
    """Put rocmate in the application menu, starting ``appimage`` (an absolute path to the
    AppImage file): its icon copied into the user's icon theme, then the entry written. An
    entry of rocmate's already there (another AppImage, a stale one) is replaced; anything
    else at that place is left alone and the operation refused. The state afterwards."""
    image = _check_appimage(appimage)
    path, icon = menu_entry_path(env), icon_path(env)
    before = menu_entry_state(env)
    if before.state == "foreign":
        _refuse_folder(path, lambda: t(
            "menu-entry.folder-in-the-way",
            "{path} is a folder, where the menu entry should be a file; rocmate leaves it as "
            "it is.", path=str(path)))
        raise MenuEntryError(lambda: t(
            "menu-entry.foreign",
            "{path} is a menu entry that rocmate did not write; rocmate leaves it as it is.",
            path=str(path)))
    source = icon_file()
    try:
        data = source.read_bytes()
    except OSError:
        raise MenuEntryError(lambda: t(
            "menu-entry.no-icon", "This copy of rocmate lacks its icon ({path}).",
            path=str(source))) from None

    _make_folder(icon.parent)
    _refuse_folder(icon, lambda: t(
        "menu-entry.icon-folder-in-the-way",
        "{path} is a folder, where the icon should be a file; rocmate leaves it as it is.",
        path=str(icon)))
    icon_there = os.path.lexists(icon)
    # the icon is rocmate's to write where none is there, where rocmate's entry says it copied
    # it, or where the same picture is there already; another one is left as it is
    copied = not icon_there or before.icon == icon or (
        not os.path.islink(icon) and _same_bytes(icon, data))
    if copied and not _same_bytes(icon, data):
        _write_atomically(icon, data)

    _make_folder(path.parent)
    try:
        _write_atomically(path, entry_text(image, icon, copied).encode("utf-8"))
    except MenuEntryError:
        if copied and not icon_there:  # the icon came with this entry: it goes with it
            with contextlib.suppress(OSError):
                icon.unlink()
        raise
    return menu_entry_state(env)


def _cannot_remove(path: Path, reason: str) -> MenuEntryError:
    return MenuEntryError(lambda: t(
        "menu-entry.cannot-remove", "Could not remove {path}: {reason}.",
        path=str(path), reason=reason))


def remove_from_menu(env: Mapping[str, str] | None = None) -> MenuEntry:
    """Take rocmate's entry out of the application menu, and the icon it copied. Nothing there
    is done already; a file rocmate did not write is left alone and the operation refused.
    The state afterwards."""
    before = menu_entry_state(env)
    if before.state == "absent":
        return before
    if not before.ours:
        raise MenuEntryError(lambda: t(
            "menu-entry.not-ours",
            "{path} was not written by rocmate; rocmate leaves it as it is.",
            path=str(before.path)))
    for target in (before.path, before.icon):
        if target is None:
            continue
        try:
            if stat.S_ISREG(os.lstat(target).st_mode):
                target.unlink()
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise _cannot_remove(target, _reason(exc)) from None
    return menu_entry_state(env)
