"""Issue 30 items 7 and 11: every command says its exit statuses in its --help (English and
Chinese), ``gui`` is a command of ``rocmate --help`` and may follow ``--lang``, and a word no
option takes is refused with the usage of the command it was written for."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ROCMATE = [sys.executable, "-m", "core.cli"]
LAUNCH = [sys.executable, "-c", "from gui.launcher import main; raise SystemExit(main())"]
COMMANDS = ("doctor", "snapshot", "explain", "bench", "install", "env", "report", "gui",
            "memory")


def _run(*args: str, launcher: bool = False, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "LANGUAGE", "LC_ALL",
                          "LC_MESSAGES", "LANG")}
    return subprocess.run([*(LAUNCH if launcher else ROCMATE), *args], cwd=ROOT,
                          env={**clean, **env}, capture_output=True, text=True, timeout=120,
                          check=False)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_says_its_exit_statuses(command: str) -> None:
    english = _run(command, "--help", launcher=command == "gui")  # `rocmate gui` is the app's
    assert english.returncode == 0, english.stderr
    said = " ".join(english.stdout.split())
    assert "Exit status: 0 " in said and " 2 a usage" in said, said
    chinese = _run("--lang", "zh_CN", command, "--help", launcher=command == "gui")
    assert "退出状态：0" in "".join(chinese.stdout.split()), chinese.stdout


def test_the_top_help_lists_every_command_and_the_statuses() -> None:
    out = _run("--help").stdout
    commands = out.splitlines()[1]
    for command in COMMANDS:
        assert command in commands, commands
    assert "4 (doctor) Not supported" in " ".join(out.split())


def test_gui_after_lang_is_the_app_not_an_unknown_command() -> None:
    out = _run("--lang", "zh_CN", "gui", launcher=True)  # no desktop here
    assert out.returncode == 2
    assert "unknown command" not in out.stderr and "未知命令" not in out.stderr
    assert "rocmate doctor" in out.stderr and "DISPLAY" in out.stderr
    assert "no desktop" not in out.stderr  # said in Chinese


def test_an_unknown_option_shows_the_commands_own_usage() -> None:
    out = _run("doctor", "--bogus")
    assert out.returncode == 2
    assert out.stderr.startswith("usage: rocmate doctor ")
    assert out.stderr.rstrip().endswith("rocmate doctor: error: unrecognized arguments: --bogus")
    out = _run("report", "list", "--bogus")
    assert out.returncode == 2 and out.stderr.startswith("usage: rocmate report list ")


def test_the_command_line_alone_says_where_the_app_opens() -> None:
    out = _run("gui")
    assert out.returncode == 2 and "rocmate gui" in out.stderr
