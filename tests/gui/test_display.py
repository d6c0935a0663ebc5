"""Issue 30 item 5: a display that does not answer (a stale ssh forwarding, sudo, a container,
WSL without WSLg) must not let Qt abort the process (SIGABRT, exit 134). The displays here are
real: an X display number nobody serves, a Wayland socket path nobody listens on, and, where
Debian's Xvfb is installed, a real X server and a real listening socket for the other side."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gui.display import Answer, Display, ask, named, steer, wayland_answers, x11_answers

ROOT = Path(__file__).resolve().parents[2]
LAUNCH = [sys.executable, "-c", "from gui.launcher import main; raise SystemExit(main())"]
MACHINE = ROOT / "tests/fixtures/machines/rx6600-ubuntu2404-fresh"


def _free_display() -> str:
    """An X display number nothing serves here (no socket, no lock file)."""
    for number in range(97, 200):
        if not Path(f"/tmp/.X11-unix/X{number}").exists() and \
                not Path(f"/tmp/.X{number}-lock").exists():
            return f":{number}"
    pytest.skip("every X display number from 97 to 199 is taken")


def _needs_qt_libraries(platform: str) -> None:
    """The launcher names missing desktop libraries before it asks the display: skip where this
    machine lacks them (scripts/install-test-system-deps.sh installs them)."""
    from gui.host_libraries import missing

    lacking = missing({"QT_QPA_PLATFORM": platform})
    if lacking:
        pytest.skip("this machine lacks Qt's " + platform + " libraries: " +
                    ", ".join(lib.soname for lib in lacking))


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "XDG_SESSION_TYPE")}
    return {**env, **extra}


def _launch(*words: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*LAUNCH, *words], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def test_rocmate_gui_on_an_x_display_that_does_not_answer_says_what_to_do() -> None:
    _needs_qt_libraries("xcb")
    display = _free_display()
    out = _launch("gui", "--root", str(MACHINE), env=_env(DISPLAY=display))
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert f"the display {display} that DISPLAY names does not answer" in out.stderr
    assert "rocmate doctor" in out.stderr
    assert "Reinstalling" not in out.stderr and "Traceback" not in out.stderr


def test_plain_rocmate_on_a_dead_display_falls_back_to_the_check_with_one_line() -> None:
    _needs_qt_libraries("xcb")
    display = _free_display()
    out = _launch(env=_env(DISPLAY=display))  # plain `rocmate`: the app, else the check
    assert out.returncode not in (134, -6), out.stderr
    assert "Verdict:" in out.stdout
    said = [line for line in out.stderr.splitlines() if "does not answer" in line]
    assert len(said) == 1 and "check in the terminal" in said[0]
    assert "Reinstalling" not in out.stderr and "Traceback" not in out.stderr


def test_a_wayland_socket_nobody_listens_on(tmp_path: Path) -> None:
    _needs_qt_libraries("wayland")
    env = _env(WAYLAND_DISPLAY="wayland-9", XDG_RUNTIME_DIR=str(tmp_path))
    out = _launch("gui", "--root", str(MACHINE), env=env)
    assert out.returncode == 2, out.stderr
    assert "the display wayland-9 that WAYLAND_DISPLAY names does not answer" in out.stderr
    out = _launch("gui", "--root", str(MACHINE), env={**env, "LANG": "zh_CN.UTF-8",
                                                       "LANGUAGE": "zh_CN"})
    assert out.returncode == 2 and "wayland-9" in out.stderr and "rocmate doctor" in out.stderr
    assert "does not answer" not in out.stderr  # said in Chinese


def test_a_listening_wayland_socket_answers_and_a_dead_x_is_steered_around(
        tmp_path: Path) -> None:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(tmp_path / "wayland-1"))
    server.listen(1)
    try:
        env = {"WAYLAND_DISPLAY": "wayland-1", "XDG_RUNTIME_DIR": str(tmp_path),
               "DISPLAY": _free_display()}
        answer = ask(env)
        assert [d.name for d in answer.live] == ["wayland-1"]
        assert [d.variable for d in answer.silent] == ["DISPLAY"] and answer.usable
        steer(env, answer)
        assert env["QT_QPA_PLATFORM"] == "wayland"  # Qt would otherwise abort on the dead X
    finally:
        server.close()


def test_an_absolute_wayland_path_and_no_runtime_dir() -> None:
    assert wayland_answers("wayland-0", {}) is False  # Qt: "XDG_RUNTIME_DIR is invalid"
    assert wayland_answers("/nonexistent/wayland-0", {}) is False


def test_only_the_displays_qt_will_try_are_asked() -> None:
    env = {"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}
    assert [d.platform for d in named(env)] == ["wayland", "xcb"]
    assert [d.platform for d in named({**env, "QT_QPA_PLATFORM": "xcb"})] == ["xcb"]
    assert named({**env, "QT_QPA_PLATFORM": "offscreen"}) == []
    assert Answer((), ()).usable  # nothing to ask: headless platforms open as they are
    quiet = Answer((), (Display("xcb", "DISPLAY", ":5"),))
    assert not quiet.usable
    env2: dict[str, str] = {"QT_QPA_PLATFORM": "xcb"}
    steer(env2, quiet)
    assert env2 == {"QT_QPA_PLATFORM": "xcb"}  # the user's choice stays


@pytest.fixture
def xvfb() -> Iterator[str]:
    """A real X server (Debian's Xvfb) on a free display number."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Debian's xvfb is not installed (scripts/install-test-system-deps.sh)")
    display = _free_display()
    proc = subprocess.Popen(["Xvfb", display, "-nolisten", "tcp"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while not Path(f"/tmp/.X11-unix/X{display[1:]}").exists():
            if time.monotonic() > deadline or proc.poll() is not None:
                pytest.skip("Xvfb did not start")
            time.sleep(0.05)
        yield display
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_a_live_x_display_answers_and_a_dead_one_does_not(xvfb: str) -> None:
    assert x11_answers(xvfb) is True
    assert x11_answers(_free_display()) is False
