"""rocmate's own entry in the application menu (core.operations.menu_entry), on real files in
the test's folder: added, read back, pointed at a moved AppImage, removed; other files left
alone; the Exec line read back by the Desktop Entry specification's rules (and, where the
tools are installed, by desktop-file-validate and by GLib's own launcher)."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from core import i18n
from core.operations import menu_entry as me
from core.operations.errors import OperationError
from core.resources import icon_file

ROOT = Path(__file__).resolve().parents[2]
PACKAGING_DESKTOP = ROOT / "packaging" / "org.rocmate.Rocmate.desktop"

HOSTILE = [
    "with space",
    'double"quote',
    "single'quote",
    "back\\slash",
    "two\\\\backslashes",
    "dollar$HOME",
    "${HOME}",
    "100%",
    "%u field code",
    "%%",
    "semi;colon",
    "tick`uname`",
    "star*and?mark",
    "#hash",
    "(parens) <angle> |pipe| &amp",
    "~tilde",
    " leading space",
    "trailing space ",
    "=equals",
    "汉字 目录",
    'all of it: " \' \\ $ % ` ; #',
]


def _env(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "share")}


def _appimage(folder: Path, name: str = "rocmate-x86_64.AppImage") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    image = folder / name
    image.write_bytes(b"\x7fELF\x02\x01\x01" + b"\0" * 57)
    image.chmod(0o755)
    return image


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return _env(tmp_path)


@pytest.fixture
def image(tmp_path: Path) -> Path:
    return _appimage(tmp_path / "Downloads")


# --- an independent reading of the Desktop Entry specification --------------------------------

def _raw_value(path: Path, key: str) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith(key + "="):
            return line[len(key) + 1:]
    raise AssertionError(f"no {key} in {path}")


def _spec_unescape(value: str) -> str:
    """The string type's escapes: \\s \\n \\t \\r \\\\."""
    out, chars = [], iter(value)
    for char in chars:
        if char == "\\":
            nxt = next(chars)
            out.append({"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}[nxt])
        else:
            out.append(char)
    return "".join(out)


RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def _spec_exec_argv(value: str) -> list[str]:
    """An Exec value (as the file holds it) split into the argv it runs: the string escapes
    undone, then the quoting rules (a reserved character only inside double quotes, where a
    backslash escapes " ` $ \\), then %% as a literal percent (no other field code here)."""
    text = _spec_unescape(value)
    args: list[str] = []
    current: list[str] | None = None
    i = 0
    while i < len(text):
        char = text[i]
        if char == " ":
            if current is not None:
                args.append("".join(current))
            current = None
            i += 1
            continue
        current = [] if current is None else current
        if char == '"':
            i += 1
            while text[i] != '"':
                if text[i] == "\\":
                    assert text[i + 1] in '"`$\\', f"bad escape in {text!r}"
                    i += 1
                current.append(text[i])
                i += 1
            i += 1
            continue
        assert char not in RESERVED, f"{char!r} unquoted in {text!r}"
        current.append(char)
        i += 1
    if current is not None:
        args.append("".join(current))
    out = []
    for arg in args:
        assert "%" not in arg.replace("%%", ""), f"a field code in {arg!r}"
        out.append(arg.replace("%%", "%"))
    return out


def _launched(image: Path) -> list[str]:
    """The argv the entry runs, without the ``env`` a path with % is started through."""
    return [image, "gui"] if "%" not in str(image) else [me.ENV, image, "gui"]


@contextlib.contextmanager
def _read_only(folder: Path) -> Iterator[None]:
    """``folder`` made read-only, for root too (the immutable attribute where chmod does not
    stop root); skipped where neither works on this file system."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    chattr = shutil.which("chattr")
    if not chattr or subprocess.run([chattr, "+i", str(folder)],
                                    capture_output=True).returncode != 0:
        pytest.skip("root, and no immutable attribute on this file system")
    try:
        probe = folder / ".probe"
        try:
            probe.write_text("")
        except OSError:
            pass
        else:
            probe.unlink()
            pytest.skip("the folder stays writable for root here")
        yield
    finally:
        subprocess.run([chattr, "-i", str(folder)], check=True)


def _tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


# --- where --------------------------------------------------------------------------------------

def test_the_places_follow_xdg_data_home(tmp_path: Path) -> None:
    env = _env(tmp_path)
    assert me.menu_entry_path(env) == \
        tmp_path / "share" / "applications" / "org.rocmate.Rocmate.desktop"
    assert me.icon_path(env) == tmp_path / "share" / "icons" / "hicolor" / "256x256" / \
        "apps" / "org.rocmate.Rocmate.png"
    home = tmp_path / "home"
    for unset in ({"HOME": str(home)}, {"HOME": str(home), "XDG_DATA_HOME": ""},
                  {"HOME": str(home), "XDG_DATA_HOME": "relative/share"}):
        assert me.menu_entry_path(unset) == \
            home / ".local" / "share" / "applications" / "org.rocmate.Rocmate.desktop"


# --- add, read back, remove ---------------------------------------------------------------------

def test_nothing_there_is_absent(env: dict[str, str]) -> None:
    state = me.menu_entry_state(env)
    assert (state.state, state.appimage, state.icon, state.ours) == ("absent", None, None, False)
    assert state.path == me.menu_entry_path(env)


def test_added_the_entry_starts_the_appimage_with_its_icon(
        env: dict[str, str], image: Path, tmp_path: Path) -> None:
    state = me.add_to_menu(image, env)
    assert state.state == "present" and state.ours
    assert state.appimage == image and state.starts(image)
    assert state.icon == me.icon_path(env)
    assert state.icon.read_bytes() == icon_file().read_bytes()

    entry = me.menu_entry_path(env)
    assert stat.S_IMODE(entry.stat().st_mode) == 0o644
    assert _spec_exec_argv(_raw_value(entry, "Exec")) == [str(image), "gui"]
    assert _spec_unescape(_raw_value(entry, "TryExec")) == str(image)
    assert _spec_unescape(_raw_value(entry, "Icon")) == str(me.icon_path(env))
    assert Path(_raw_value(entry, "Icon")).is_absolute()
    assert _spec_unescape(_raw_value(entry, "X-Rocmate-AppImage")) == str(image)
    # written through a file beside it and renamed: nothing else is left in the folders
    assert _tree(tmp_path / "share") == [
        "applications", "applications/org.rocmate.Rocmate.desktop", "icons", "icons/hicolor",
        "icons/hicolor/256x256", "icons/hicolor/256x256/apps",
        "icons/hicolor/256x256/apps/org.rocmate.Rocmate.png"]


def test_the_entry_says_what_the_packaged_desktop_file_says(
        env: dict[str, str], image: Path) -> None:
    packaged = me.read_entry(PACKAGING_DESKTOP.read_text(encoding="utf-8"))
    written = me.read_entry(me.add_to_menu(image, env).path.read_text(encoding="utf-8"))
    words = {k: v for k, v in packaged.items() if k not in ("Exec", "Icon")}
    assert {k: written.get(k) for k in words} == words
    assert packaged["Icon"] == "org.rocmate.Rocmate" and packaged["Exec"] == "rocmate"


def test_added_again_after_the_appimage_moved(env: dict[str, str], image: Path,
                                              tmp_path: Path) -> None:
    me.add_to_menu(image, env)
    moved = tmp_path / "Apps" / "rocmate.AppImage"
    moved.parent.mkdir()
    image.rename(moved)
    stale = me.menu_entry_state(env)
    assert (stale.state, stale.appimage, stale.ours) == ("stale", image, True)
    assert not stale.starts(moved)

    again = me.add_to_menu(moved, env)
    assert (again.state, again.appimage) == ("present", moved) and again.starts(moved)
    assert _spec_exec_argv(_raw_value(again.path, "Exec")) == [str(moved), "gui"]
    assert sorted(p.name for p in again.path.parent.iterdir()) == [me.DESKTOP_FILE]


def test_an_entry_for_another_appimage_is_present_and_replaced(
        env: dict[str, str], tmp_path: Path) -> None:
    first, second = _appimage(tmp_path / "a"), _appimage(tmp_path / "b")
    me.add_to_menu(first, env)
    state = me.menu_entry_state(env)
    assert state.state == "present" and state.starts(first) and not state.starts(second)
    assert me.add_to_menu(second, env).starts(second)


def test_a_deleted_appimage_leaves_a_stale_entry_that_is_removed(
        env: dict[str, str], image: Path) -> None:
    me.add_to_menu(image, env)
    image.unlink()
    assert me.menu_entry_state(env).state == "stale"
    gone = me.remove_from_menu(env)
    assert gone.state == "absent"
    assert not me.menu_entry_path(env).exists() and not me.icon_path(env).exists()


def test_removed_the_entry_and_its_icon_are_gone(env: dict[str, str], image: Path,
                                                  tmp_path: Path) -> None:
    me.add_to_menu(image, env)
    assert me.remove_from_menu(env).state == "absent"
    assert [p for p in (tmp_path / "share").rglob("*") if p.is_file()] == []
    assert image.exists()  # the AppImage itself is never touched
    assert me.remove_from_menu(env).state == "absent"  # nothing there: nothing to do


# --- other files are left alone -----------------------------------------------------------------

FOREIGN = b"[Desktop Entry]\nType=Application\nName=rocmate (from a package)\nExec=rocmate\n"


def test_an_entry_rocmate_did_not_write_is_left_alone(env: dict[str, str], image: Path) -> None:
    entry = me.menu_entry_path(env)
    entry.parent.mkdir(parents=True)
    entry.write_bytes(FOREIGN)
    assert me.menu_entry_state(env).state == "foreign"
    with pytest.raises(OperationError, match="did not write"):
        me.add_to_menu(image, env)
    with pytest.raises(OperationError, match="not written by rocmate"):
        me.remove_from_menu(env)
    assert entry.read_bytes() == FOREIGN
    assert not me.icon_path(env).exists()


def test_a_link_at_the_entry_is_left_alone(env: dict[str, str], image: Path,
                                           tmp_path: Path) -> None:
    me.add_to_menu(image, env)
    elsewhere = tmp_path / "mine.desktop"
    entry = me.menu_entry_path(env)
    entry.rename(elsewhere)
    entry.symlink_to(elsewhere)  # even one that points at a file rocmate wrote
    assert me.menu_entry_state(env).state == "foreign"
    with pytest.raises(OperationError):
        me.remove_from_menu(env)
    assert entry.is_symlink() and elsewhere.exists()


def test_an_icon_rocmate_did_not_copy_is_left_alone(env: dict[str, str], image: Path) -> None:
    icon = me.icon_path(env)
    icon.parent.mkdir(parents=True)
    icon.write_bytes(b"someone else's picture")
    state = me.add_to_menu(image, env)
    assert state.state == "present" and state.icon is None
    assert icon.read_bytes() == b"someone else's picture"
    assert "X-Rocmate-Icon" not in me.read_entry(state.path.read_text(encoding="utf-8"))
    me.remove_from_menu(env)
    assert icon.read_bytes() == b"someone else's picture"


def test_the_same_icon_there_already_is_taken_as_rocmates(env: dict[str, str],
                                                           image: Path) -> None:
    icon = me.icon_path(env)
    icon.parent.mkdir(parents=True)
    icon.write_bytes(icon_file().read_bytes())
    assert me.add_to_menu(image, env).icon == icon
    me.remove_from_menu(env)
    assert not icon.exists()


def test_other_files_in_the_folders_are_never_touched(env: dict[str, str], image: Path) -> None:
    apps = me.menu_entry_path(env).parent
    apps.mkdir(parents=True)
    other = apps / "org.example.Other.desktop"
    other.write_bytes(FOREIGN)
    me.add_to_menu(image, env)
    me.remove_from_menu(env)
    assert [p.name for p in apps.iterdir()] == [other.name]
    assert other.read_bytes() == FOREIGN


# --- the Exec line ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", HOSTILE, ids=[ascii(n) for n in HOSTILE])
def test_the_exec_line_starts_a_hostile_path_exactly(env: dict[str, str], tmp_path: Path,
                                                     name: str) -> None:
    image = _appimage(tmp_path / name / name, "rocmate " + name + ".AppImage")
    state = me.add_to_menu(image, env)
    entry = state.path
    assert _spec_exec_argv(_raw_value(entry, "Exec")) == [str(a) for a in _launched(image)]
    assert _spec_unescape(_raw_value(entry, "TryExec")) == str(image)
    assert state.appimage == image and state.starts(image)  # read back exactly
    validate = shutil.which("desktop-file-validate")
    if validate:
        found = subprocess.run([validate, str(entry)], capture_output=True, text=True)
        assert (found.returncode, found.stdout + found.stderr) == (0, "")


def test_the_written_entry_passes_desktop_file_validate(env: dict[str, str],
                                                        image: Path) -> None:
    validate = shutil.which("desktop-file-validate")
    if not validate:
        pytest.skip("desktop-file-validate is not installed")
    entry = me.add_to_menu(image, env).path
    found = subprocess.run([validate, str(entry)], capture_output=True, text=True)
    assert (found.returncode, found.stdout + found.stderr) == (0, "")


@pytest.mark.parametrize("name", ["with space", 'q"uote $x \\b `t`', "100% %u", "汉字"])
def test_glib_launches_the_entry_with_the_exact_path(env: dict[str, str], tmp_path: Path,
                                                     name: str) -> None:
    """GLib's own launcher (GNOME's menus use it) runs the AppImage under its exact name: a
    stand-in that writes the arguments it was given."""
    gio = shutil.which("gio")
    if not gio:
        pytest.skip("gio is not installed")
    out = tmp_path / "argv.txt"
    image = tmp_path / name / f"rocmate {name}.AppImage"
    image.parent.mkdir(parents=True)
    image.write_text(f'#!/bin/sh\nfor a in "$0" "$@"; do printf "%s\\n" "$a"; done > "{out}"\n')
    image.chmod(0o755)
    entry = me.add_to_menu(image, env).path
    run = subprocess.run([gio, "launch", str(entry)], capture_output=True, text=True,
                         timeout=30, env={**os.environ, **env})
    assert run.returncode == 0, run.stderr
    deadline = time.monotonic() + 20
    while not (out.exists() and out.read_text().endswith("\n")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert out.read_text().splitlines() == [str(image), "gui"]


@pytest.mark.parametrize("name", ["new\nline", "tab\there", "bell\x07"])
def test_a_path_with_control_characters_is_refused(env: dict[str, str], tmp_path: Path,
                                                   name: str) -> None:
    image = _appimage(tmp_path / name)
    with pytest.raises(OperationError, match="control characters"):
        me.add_to_menu(image, env)
    assert not (tmp_path / "share").exists()


def test_no_appimage_or_a_relative_path_is_refused(env: dict[str, str], tmp_path: Path) -> None:
    with pytest.raises(OperationError, match="There is no AppImage at"):
        me.add_to_menu(tmp_path / "missing.AppImage", env)
    with pytest.raises(OperationError, match="There is no AppImage at"):
        me.add_to_menu(tmp_path, env)  # a folder
    with pytest.raises(OperationError, match="not absolute"):
        me.add_to_menu(Path("rocmate.AppImage"), env)


def test_the_string_escapes_round_trip() -> None:
    for value in ["", " ", "  a  ", "a\\b", "\\s", "x\ny\tz\r", "%", "汉字"]:
        assert me.unescape_string(me.escape_string(value)) == value
        assert me.read_entry(f"[Desktop Entry]\nK = {me.escape_string(value)}  \n")["K"] == value


# --- what cannot be done ends as one line -------------------------------------------------------

def test_a_read_only_applications_folder_is_an_operation_error(
        env: dict[str, str], image: Path) -> None:
    apps = me.menu_entry_path(env).parent
    apps.mkdir(parents=True)
    with _read_only(apps):
        with pytest.raises(OperationError) as raised:
            me.add_to_menu(image, env)
        assert str(raised.value).startswith(f"Could not write {me.menu_entry_path(env)}: ")
        assert "\n" not in str(raised.value)
        assert list(apps.iterdir()) == []
    assert not me.icon_path(env).exists()  # the icon it had copied went again


def test_a_read_only_data_folder_is_an_operation_error(env: dict[str, str], image: Path,
                                                       tmp_path: Path) -> None:
    share = tmp_path / "share"
    share.mkdir()
    with _read_only(share), pytest.raises(OperationError, match="Could not make the folder"):
        me.add_to_menu(image, env)
    assert list(share.iterdir()) == []


def test_removing_from_a_read_only_folder_is_an_operation_error(
        env: dict[str, str], image: Path) -> None:
    state = me.add_to_menu(image, env)
    folder = state.path.parent
    with _read_only(folder), pytest.raises(OperationError, match="Could not remove"):
        me.remove_from_menu(env)
    assert me.menu_entry_state(env).state == "present"
    assert me.icon_path(env).exists()  # the entry stays, so its icon does too


def test_a_folder_where_the_entry_goes_is_an_operation_error(env: dict[str, str],
                                                             image: Path) -> None:
    me.menu_entry_path(env).mkdir(parents=True)
    assert me.menu_entry_state(env).state == "foreign"
    with pytest.raises(OperationError, match="is a folder, where the menu entry should be"):
        me.add_to_menu(image, env)
    with pytest.raises(OperationError):
        me.remove_from_menu(env)
    assert me.menu_entry_path(env).is_dir() and not me.icon_path(env).exists()


def test_a_folder_where_the_icon_goes_is_an_operation_error(env: dict[str, str],
                                                            image: Path) -> None:
    me.icon_path(env).mkdir(parents=True)
    with pytest.raises(OperationError, match="is a folder, where the icon should be"):
        me.add_to_menu(image, env)
    assert not me.menu_entry_path(env).exists()


def test_a_file_where_a_folder_goes_is_an_operation_error(env: dict[str, str], image: Path,
                                                          tmp_path: Path) -> None:
    (tmp_path / "share").write_text("not a folder")
    with pytest.raises(OperationError, match="Could not make the folder"):
        me.add_to_menu(image, env)


def test_the_message_is_said_again_in_the_language_spoken_now(env: dict[str, str],
                                                             image: Path) -> None:
    me.menu_entry_path(env).mkdir(parents=True)
    with pytest.raises(me.MenuEntryError) as raised:
        me.add_to_menu(image, env)
    assert str(raised.value) == raised.value.words()
    i18n.set_language("zh_CN")
    try:
        chinese = raised.value.words()
    finally:
        i18n.set_language(None)
    assert any("\u4e00" <= c <= "\u9fff" for c in chinese)
    assert str(me.menu_entry_path(env)) in chinese
