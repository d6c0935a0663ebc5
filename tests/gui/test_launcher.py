"""The ``rocmate`` command: the app on a desktop or with ``gui``; the doctor in a terminal with
a word on how to open the app; clear lines where the app cannot open."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAUNCH = [sys.executable, "-c", "from gui.launcher import main; raise SystemExit(main())"]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    return {**env, **extra}


def test_without_a_desktop_plain_rocmate_checks_and_says_how_to_open_the_app() -> None:
    out = subprocess.run([*LAUNCH], cwd=ROOT, env=_env(), capture_output=True, text=True,
                         timeout=120, check=False)
    assert "Verdict:" in out.stdout
    assert "opens the set-up app" in out.stderr and "Traceback" not in out.stderr


def test_gui_without_a_desktop_is_one_line() -> None:
    out = subprocess.run([*LAUNCH, "gui"], cwd=ROOT, env=_env(), capture_output=True,
                         text=True, timeout=120, check=False)
    assert out.returncode == 2
    assert out.stderr.startswith("rocmate: no desktop here") and out.stderr.count("\n") == 1


def test_gui_of_a_folder_that_is_not_there_is_one_line(tmp_path: Path) -> None:
    out = subprocess.run([*LAUNCH, "gui", "--root", str(tmp_path / "nope")], cwd=ROOT,
                         env=_env(QT_QPA_PLATFORM="offscreen"), capture_output=True, text=True,
                         timeout=120, check=False)
    assert out.returncode == 2 and "no snapshot folder" in out.stderr


def test_every_other_command_is_the_command_line() -> None:
    out = subprocess.run([*LAUNCH, "env", "--root",
                          str(ROOT / "tests/fixtures/machines/rx7900xtx-override-wrong-bashrc")],
                         cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=120,
                         check=False)
    assert out.returncode == 0 and out.stdout.startswith("unset HSA_OVERRIDE_GFX_VERSION")
