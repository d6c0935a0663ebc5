"""The packaged program's environment for what it starts (core.bundle), its modes (gui.frozen),
and the desktop libraries it names before Qt starts (gui.host_libraries)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from core.bundle import (
    drop_bundle_paths,
    restore_libraries,
    restore_user_environment,
    worker_sources,
)
from core.knowledge.desktop import desktop_libraries, missing_advice, needed_for
from core.system import clean_env
from gui import frozen, host_libraries

BUNDLE = "/tmp/.mount_rocmatXYZ/usr/lib/rocmate/_internal"


def test_the_users_library_path_comes_back() -> None:
    env = {"LD_LIBRARY_PATH": f"{BUNDLE}:/opt/mine", "LD_LIBRARY_PATH_ORIG": "/opt/mine"}
    restore_libraries(env, packaged=True)
    assert env == {"LD_LIBRARY_PATH": "/opt/mine"}
    env = {"LD_LIBRARY_PATH": BUNDLE, "LD_LIBRARY_PATH_ORIG": ""}
    restore_libraries(env, packaged=True)
    assert env == {}


def test_once_put_back_only_the_bundles_entries_leave(monkeypatch: pytest.MonkeyPatch) -> None:
    """The packaged program puts the path back as it starts; a child's copy later must keep
    the user's value (it has no _ORIG any more)."""
    monkeypatch.setattr(sys, "_MEIPASS", BUNDLE, raising=False)
    env = {"LD_LIBRARY_PATH": f"/opt/mine:{BUNDLE}/PySide6"}
    restore_libraries(env, packaged=True)
    assert env == {"LD_LIBRARY_PATH": "/opt/mine"}


def test_a_child_gets_none_of_the_bundles_or_the_runtimes_variables(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "_MEIPASS", BUNDLE, raising=False)
    env = {"PATH": "/usr/bin", "HOME": "/home/alice", "LD_LIBRARY_PATH_ORIG": "/opt/mine",
           "LD_LIBRARY_PATH": BUNDLE, "_PYI_ARCHIVE_FILE": "/x/rocmate",
           "_PYI_PARENT_PROCESS_LEVEL": "-1", "QT_PLUGIN_PATH": f"{BUNDLE}/PySide6/Qt/plugins",
           "APPIMAGE": "/home/alice/rocmate-x86_64.AppImage", "APPDIR": "/tmp/.mount_rocmatXYZ",
           "ARGV0": "./rocmate-x86_64.AppImage", "OWD": "/home/alice",
           "SOMETHING": "/tmp/.mount_rocmatXYZ/usr/share"}
    restore_user_environment(env, packaged=True)
    assert env == {"PATH": "/usr/bin", "HOME": "/home/alice", "LD_LIBRARY_PATH": "/opt/mine"}


def test_outside_the_package_the_users_environment_is_left_alone() -> None:
    env = {"APPIMAGE": "/a/Other.AppImage", "QT_PLUGIN_PATH": "/usr/lib/qt6/plugins",
           "LD_LIBRARY_PATH": "/opt/mine"}
    before = dict(env)
    restore_user_environment(env, packaged=False)
    assert env == before
    assert clean_env()["LC_ALL"]  # and clean_env still gives every child its locale


def test_the_app_drops_only_what_points_into_the_bundle(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "_MEIPASS", BUNDLE, raising=False)
    env = {"QT_PLUGIN_PATH": f"{BUNDLE}/PySide6/Qt/plugins", "APPIMAGE": "/a/r.AppImage",
           "XDG_DATA_DIRS": "/usr/share"}
    drop_bundle_paths(env)
    assert env == {"APPIMAGE": "/a/r.AppImage", "XDG_DATA_DIRS": "/usr/share"}


def test_from_the_sources_the_worker_is_copied_from_the_package() -> None:
    assert worker_sources() is None


# -- gui.frozen: the packaged program's modes ----------------------------------------------


def test_helper_mode_is_the_helper(capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    plan = {"steps": [{"id": "x", "privileged": True, "title": "x", "explain": "",
                       "argv": ["sh", "-c", "id"]}]}

    class Stdin:
        buffer = __import__("io").BytesIO(json.dumps(plan).encode())

    monkeypatch.setattr(sys, "stdin", Stdin())
    assert frozen.main(["helper", "--check"]) == 2
    assert json.loads(capsys.readouterr().out)["ok"] is False


def test_dash_m_runs_only_the_listed_modules(capsys: pytest.CaptureFixture[str]) -> None:
    assert frozen.main(["-m", "core.cli", "doctor"]) == frozen.EXIT_USAGE
    assert "runs only core.install.wsl_runtime_swap" in capsys.readouterr().err
    assert frozen.main(["-m"]) == frozen.EXIT_USAGE


def test_dash_m_runs_a_listed_module_as_python_would(capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    assert frozen.main(["-m", "core.install.wsl_runtime_swap", "--help"]) == 0
    assert "--venv" in capsys.readouterr().out


def test_anything_else_is_the_rocmate_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:  # argparse's --version ends the process
        frozen.main(["--version"])
    assert ended.value.code == 0
    assert capsys.readouterr().out.startswith("rocmate ")


# -- the desktop libraries named before Qt starts ------------------------------------------


def test_every_row_names_a_package_for_each_family() -> None:
    rows = desktop_libraries()
    assert rows and all(r.debian and r.fedora and r.arch for r in rows)
    assert {r.platform for r in rows} == {"any", "xcb"}
    assert "libxcb-cursor.so.0" in {r.soname for r in needed_for("xcb")}
    assert "libxcb-cursor.so.0" not in {r.soname for r in needed_for("wayland")}


@pytest.mark.parametrize(("env", "chosen"), [
    ({"QT_QPA_PLATFORM": "offscreen"}, "offscreen"),
    ({"QT_QPA_PLATFORM": "wayland;xcb"}, "wayland"),
    ({"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}, "wayland"),
    ({"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "x11", "DISPLAY": ":0"}, "xcb"),
    ({"DISPLAY": ":0"}, "xcb"),
])
def test_the_windowing_qt_will_use(env: dict[str, str], chosen: str) -> None:
    assert host_libraries.platform(env) == chosen


def test_missing_libraries_are_named_with_their_packages() -> None:
    lacking = host_libraries.missing({"DISPLAY": ":0"},
                                     can_load=lambda name: name != "libxcb-cursor.so.0")
    assert [lib.soname for lib in lacking] == ["libxcb-cursor.so.0"]
    advice = missing_advice(lacking)
    assert "sudo apt install libxcb-cursor0" in advice
    assert "sudo dnf install xcb-util-cursor" in advice
    assert "sudo pacman -S xcb-util-cursor" in advice
    headless = host_libraries.missing({"QT_QPA_PLATFORM": "offscreen"}, can_load=lambda n: False)
    assert {lib.platform for lib in headless} == {"any"}


def test_the_app_says_what_to_install_instead_of_crashing(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    from gui import launcher

    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.setattr(host_libraries, "loads", lambda name: name != "libxcb-icccm.so.4")
    assert launcher.main(["gui"]) == 2
    err = capsys.readouterr().err
    assert "libxcb-icccm4" in err and "rocmate doctor" in err
