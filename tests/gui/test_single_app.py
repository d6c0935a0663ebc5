"""Issue 31/17: two apps at once. A second start on this machine brings the first window to the
front and ends; replays may be open beside it. Real local sockets (QLocalServer), and real app
processes on the offscreen platform."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from gui.single import claim

ROOT = Path(__file__).resolve().parents[2]
LAUNCH = [sys.executable, "-c", "from gui.launcher import main; raise SystemExit(main())"]


def test_the_second_claim_wakes_the_first(qtbot: Any) -> None:
    name = f"rocmate-test-{os.getpid()}-{time.monotonic_ns()}"
    woken: list[bool] = []
    first = claim(name, lambda: woken.append(True))
    assert first is not None and first.isListening()
    try:
        assert claim(name, lambda: None) is None  # another app answers: this start ends
        qtbot.waitUntil(lambda: woken == [True], timeout=3000)
    finally:
        first.close()
    second = claim(name, lambda: None)  # the first is gone: the next start is the app
    assert second is not None and second.isListening()
    second.close()


@pytest.mark.slow  # a real worker or app process: not in make check
def test_a_second_start_of_the_app_ends_at_once(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(QT_QPA_PLATFORM="offscreen", TMPDIR=str(tmp_path),
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"))
    first = subprocess.Popen([*LAUNCH, "gui"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not list(tmp_path.glob("rocmate-app-*")):  # the first app listens
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline, "the first app never listened"
            time.sleep(0.1)
        started = time.monotonic()
        second = subprocess.run([*LAUNCH, "gui"], cwd=ROOT, env=env, capture_output=True,
                                text=True, timeout=60, check=False)
        assert second.returncode == 0, second.stderr
        assert "brought to the front" in second.stderr
        assert time.monotonic() - started < 20
        assert first.poll() is None  # the first goes on
        replay = subprocess.Popen([*LAUNCH, "gui", "--root",
                                   str(ROOT / "tests/fixtures/machines/rx6600-ubuntu2404-fresh")],
                                  cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        time.sleep(3)
        assert replay.poll() is None  # a replay opens beside it
        replay.kill()
        replay.wait(timeout=10)
    finally:
        first.kill()
        first.wait(timeout=10)
