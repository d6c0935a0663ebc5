"""The comment-out of a stale export, for real (core/install/shell_lines.py): a throwaway home
with real files, the module run as a program as the plan runs it, the user's consent through
the runner, the backup, the refusal when the line changed, the undo."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from core.diagnose.doctor import run_doctor
from core.install.fix_steps import OPTION
from core.install.plan import Plan, Step
from core.install.planner import Choices, make_plan
from core.install.runner import Runner
from core.knowledge.loader import load_knowledge
from core.system import SnapshotSystem

MACHINE = Path(__file__).resolve().parents[1] / "fixtures" / "machines" / \
    "rx7900xtx-override-wrong-bashrc"
RECORDED = "/home/alice/.bashrc"
LINE = "export HSA_OVERRIDE_GFX_VERSION=10.3.0"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path


def _run(*args: str) -> tuple[int, dict[str, Any]]:
    done = subprocess.run([sys.executable, "-m", "core.install.shell_lines", *args],
                          capture_output=True, text=True, timeout=60, env=os.environ.copy())
    return done.returncode, json.loads(done.stdout.splitlines()[0])


def _plan_step(path: Path, consent: bool = True) -> Step:
    """The recorded machine's own comment-out step, aimed at ``path`` instead of its home."""
    facts = run_doctor(SnapshotSystem(MACHINE), probe_torch=False).facts
    plan = make_plan(facts, load_knowledge(), Choices(fix_shell_files=consent))
    step = next(s for s in plan.steps if s.consent_option == OPTION)
    assert step.argv is not None and RECORDED in step.argv
    return replace(step, argv=tuple(str(path) if a == RECORDED else a for a in step.argv))


def test_the_plans_step_comments_the_line_out_keeps_a_backup_and_undoes(home: Path) -> None:
    original = (MACHINE / "files" / RECORDED.lstrip("/")).read_bytes()
    assert LINE.encode() in original
    bashrc = home / ".bashrc"
    bashrc.write_bytes(original)
    bashrc.chmod(0o640)
    step = _plan_step(bashrc)
    assert step.argv is not None
    done = subprocess.run(list(step.argv), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    changed = bashrc.read_bytes()
    assert b"# rocmate: " + LINE.encode() in changed
    assert changed.replace(b"# rocmate: ", b"", 1) == original  # nothing else moved
    assert bashrc.stat().st_mode & 0o777 == 0o640
    backup = home / ".bashrc.rocmate-backup"
    assert backup.read_bytes() == original and backup.stat().st_mode & 0o777 == 0o640
    record = [json.loads(line) for line in
              (home / "state/rocmate/shell-edits.jsonl").read_text().splitlines()]
    assert record[-1]["action"] == "comment" and record[-1]["before"] == LINE
    assert record[-1]["backup"] == str(backup)
    # run again (a resumed set-up): already done, nothing changes, no second backup
    again = subprocess.run(list(step.argv), capture_output=True, text=True, timeout=60)
    assert again.returncode == 0 and json.loads(again.stdout)["already"] is True
    assert not (home / ".bashrc.rocmate-backup-2").exists()
    # the user adds a line afterwards; undo puts back only rocmate's line
    bashrc.write_bytes(changed + b"alias ll='ls -l'\n")
    code, result = _run("undo", "--path", str(bashrc))
    assert code == 0 and result["action"] == "undo"
    assert bashrc.read_bytes() == original + b"alias ll='ls -l'\n"
    code, result = _run("undo", "--path", str(bashrc))
    assert code == 1 and "no line" in result["error"]


def test_a_line_changed_since_the_plan_is_left_alone(home: Path) -> None:
    bashrc = home / ".bashrc"
    bashrc.write_text("# ~/.bashrc\nexport HSA_OVERRIDE_GFX_VERSION=11.0.0\n")
    code, result = _run("comment", "--path", str(bashrc), "--line", "2", "--expect", LINE)
    assert code == 1 and "no longer" in result["error"]
    assert bashrc.read_text() == "# ~/.bashrc\nexport HSA_OVERRIDE_GFX_VERSION=11.0.0\n"
    assert list(home.glob(".bashrc.rocmate-backup*")) == []
    code, result = _run("comment", "--path", str(bashrc), "--line", "9", "--expect", LINE)
    assert code == 1 and "no line 9" in result["error"]


def test_a_link_is_followed_and_a_windows_line_end_kept(home: Path) -> None:
    """Dotfiles kept in a folder of their own: the link stays a link, its target changes; a
    line saved with Windows line endings is matched with its carriage return and keeps it."""
    (home / "dotfiles").mkdir()
    target = home / "dotfiles" / "zshrc"
    target.write_bytes(b"export HIP_VISIBLE_DEVICES=1\r\nexport PATH=$PATH\r\n")
    (home / ".zshrc").symlink_to(target)
    code, result = _run("comment", "--path", str(home / ".zshrc"), "--line", "1",
                        "--expect", "export HIP_VISIBLE_DEVICES=1\r")
    assert code == 0, result
    assert (home / ".zshrc").is_symlink()
    assert target.read_bytes() == (b"# rocmate: export HIP_VISIBLE_DEVICES=1\r\n"
                                   b"export PATH=$PATH\r\n")
    assert (home / "dotfiles" / "zshrc.rocmate-backup").is_file()


def test_not_a_regular_file_or_a_relative_path_is_refused(home: Path) -> None:
    code, result = _run("comment", "--path", str(home), "--line", "1", "--expect", LINE)
    assert code == 1 and "not a regular file" in result["error"]
    code, result = _run("comment", "--path", ".bashrc", "--line", "1", "--expect", LINE)
    assert code == 1 and "absolute" in result["error"]


def _through_runner(step: Step, folder: Path) -> list[dict[str, Any]]:
    plan = Plan(strategy="pip-only", rocm="7.2", torch_index=None, steps=(step,))
    events: list[dict[str, Any]] = []
    assert asyncio.run(Runner(plan, events.append, None, folder=folder).run())
    return events


def test_the_runner_runs_it_only_with_consent(home: Path) -> None:
    original = (MACHINE / "files" / RECORDED.lstrip("/")).read_bytes()
    bashrc = home / ".bashrc"
    bashrc.write_bytes(original)
    events = _through_runner(_plan_step(bashrc, consent=False), home / "run1")
    skipped = [e for e in events if e.get("status") == "skipped"]
    assert skipped and OPTION in skipped[0]["reason"]
    assert bashrc.read_bytes() == original
    events = _through_runner(_plan_step(bashrc, consent=True), home / "run2")
    assert any(e.get("status") == "done" for e in events)
    assert b"# rocmate: " + LINE.encode() in bashrc.read_bytes()


def test_the_not_run_line_does_not_depend_on_where_python_lives() -> None:
    """CI failed once: from a clone at a longer path the step's shown command crossed the
    length limit and the expected line lost its end. Only the arguments are measured now."""
    from core.install.plan_text import render_plan
    from core.termstyle import Style
    facts = run_doctor(SnapshotSystem(MACHINE), probe_torch=False).facts
    plan = make_plan(facts, load_knowledge(), Choices(fix_shell_files=False))
    for program in ("/p", "/" + "deep/" * 40 + "python"):
        steps = tuple(replace(s, argv=(program, *s.argv[1:]))
                      if s.consent_option == OPTION and s.argv else s for s in plan.steps)
        text = render_plan(replace(plan, steps=steps), Style(False))
        assert f"# not run: {program} -m core.install.shell_lines comment" in text
        assert f"--expect {LINE}\n" in text
