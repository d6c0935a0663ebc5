"""The Run set-up page drives core's real runner: each step's state on screen, the log, how it
ended; a dismissed or refused password prompt is words with a way to resume. Only pkexec is
stood in for (scripts that exit as it does)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from core.install.plan import FileSpec, Plan, Step
from core.install.runner import Runner
from core.operations.setup import finished_steps
from gui.pages.base import PageId
from gui.session import Session
from gui.wizard import RocWizard
from tests.gui.keys import answer_next_question
from tests.waits import call_ends


def _page(qtbot: Any, plan: Plan, state: Path, helper: list[str] | None
          ) -> tuple[RocWizard, Any]:
    """The wizard on its run page (the caller keeps the wizard: it owns the page)."""
    wizard = RocWizard(Session(plan=plan))
    qtbot.addWidget(wizard)
    page = wizard.pages[PageId.RUN_SETUP]
    page.make_runner = lambda plan, emit, resume: Runner(plan, emit, helper, folder=state)
    page.earlier_steps = lambda plan: finished_steps(plan, state)
    wizard.setStartId(int(PageId.RUN_SETUP))
    wizard.show()
    qtbot.waitExposed(wizard)
    return wizard, page


def test_a_plan_runs_and_every_step_and_line_is_shown(qtbot: Any, aloop: Any,
                                                     tmp_path: Path) -> None:
    target = tmp_path / "home" / "rocmate-env.sh"
    target.parent.mkdir()
    plan = Plan(strategy="pip-only", rocm="7.2", torch_index=None, env={}, steps=(
        Step("say", "Say hello", "two lines of output",
             argv=(sys.executable, "-c", "print('hello'); print('world')")),
        Step("write", "Write the variables", "a file", file=FileSpec(str(target),
                                                                     content="export A=1\n")),
    ))
    _wizard, page = _page(qtbot, plan, tmp_path / "state", None)
    assert not page.isComplete() and [i.text(1) for i in page.items.values()] == [
        "waiting", "waiting"]
    with call_ends(qtbot, page.bridge, timeout_ms=60_000):
        page.start_button.click()
    assert [page.items[s].text(1) for s in ("say", "write")] == ["done", "done"]
    assert "hello\nworld" in page.log.toPlainText()
    assert page.outcome.text() == "Done: everything in the plan is in place."
    assert page.progress.value() == 2 and page.isComplete()
    assert target.read_text() == "export A=1\n"


def test_a_dismissed_password_prompt_says_so_and_offers_to_start_again(
        qtbot: Any, aloop: Any, tmp_path: Path) -> None:
    pkexec = tmp_path / "pkexec"  # exits as pkexec does when the user closes its dialog
    pkexec.write_text(f"#!{sys.executable}\nimport sys\nsys.stdin.read()\nsys.exit(126)\n")
    pkexec.chmod(0o755)
    plan = Plan(strategy="pip-only", rocm="7.2", torch_index=None, env={}, steps=(
        Step("groups", "Add you to the render group", "root", privileged=True,
             argv=("usermod", "-aG", "render,video", "ana")),))
    _wizard, page = _page(qtbot, plan, tmp_path / "state", [str(pkexec)])
    with call_ends(qtbot, page.bridge, timeout_ms=60_000):
        page.start_button.click()
    assert "dismissed the password prompt" in page.outcome.text()
    assert page.start_button.isEnabled()  # nothing ran: Start again (no Resume from nothing)
    assert page.items["groups"].text(1) != "done"


def test_closing_the_window_during_a_run_asks_and_stops_after_the_step(
        qtbot: Any, aloop: Any, tmp_path: Path, monkeypatch: Any) -> None:
    from PySide6.QtWidgets import QMessageBox

    plan = Plan(strategy="pip-only", rocm="7.2", torch_index=None, env={}, steps=(
        Step("slow", "A slow step", "sleeps", argv=(sys.executable, "-c",
                                                    "import time; print('going'); "
                                                    "time.sleep(60)")),
        Step("after", "The step after it", "never runs", argv=(sys.executable, "-c", "pass")),
    ))
    wizard, page = _page(qtbot, plan, tmp_path / "state", None)
    page.start_button.click()
    qtbot.waitUntil(lambda: page.items["slow"].text(1) == "running", timeout=30_000)
    answer_next_question(QMessageBox.StandardButton.No, [])  # the real question: keep going
    wizard.close()
    assert wizard.isVisible() and page.busy  # "No": the run goes on, the window stays
    answer_next_question(QMessageBox.StandardButton.Yes, [])  # stop it and close
    with call_ends(qtbot, page.bridge, timeout_ms=60_000):
        wizard.close()
    qtbot.waitUntil(lambda: not wizard.isVisible(), timeout=10_000)
    assert page.items["slow"].text(1) == "stopped" and page.items["after"].text(1) == "not run"


def test_a_run_cut_short_is_offered_to_resume_at_the_next_start(
        qtbot: Any, aloop: Any, tmp_path: Path) -> None:
    marker = tmp_path / "second-ran"
    plan = Plan(strategy="pip-only", rocm="7.2", torch_index=None, env={}, steps=(
        Step("first", "The first step", "works", argv=(sys.executable, "-c", "pass")),
        Step("second", "The second step", "fails, then works", argv=(
            sys.executable, "-c",
            f"import pathlib, sys; p = pathlib.Path({str(marker)!r}); "
            "sys.exit(0 if p.exists() else (p.touch() or 3))")),
    ))
    state = tmp_path / "state"
    wizard, page = _page(qtbot, plan, state, None)
    with call_ends(qtbot, page.bridge, timeout_ms=60_000):
        page.start_button.click()
    assert page.items["second"].text(1).startswith("failed")
    wizard.close()
    # the next start of the app: the page says what an earlier run did, and resumes
    _wizard2, again = _page(qtbot, plan, state, None)
    assert again.items["first"].text(1) == "done in an earlier run"
    assert again.resume_button.isVisibleTo(again) and "Resume" in again.outcome.text()
    with call_ends(qtbot, again.bridge, timeout_ms=60_000):
        again.resume_button.click()
    assert again.items["second"].text(1) == "done" and again.isComplete()
    assert again.items["first"].text(1) == "done in an earlier run"  # not run again


@pytest.mark.root
@pytest.mark.slow
def test_the_root_block_runs_through_the_real_helper_in_a_throwaway_root(
        qtbot: Any, aloop: Any, tmp_path: Path, debian_root: Path) -> None:
    """A user step, then the root block: rocmate's apt pin written by the real helper, as root,
    in a throwaway Debian root. pkexec is stood in for by a script that runs the helper there."""
    from core.install.helper.policy import PIN
    from tests.install.support import helper_root, pin_content

    if os.geteuid() != 0:
        pytest.skip("needs root (the helper runs as root in a chroot)")
    with helper_root(debian_root, tmp_path / "root") as root:
        pkexec = tmp_path / "pkexec"  # "authorised": it runs the helper as root, in the root
        pkexec.write_text(f"#!/bin/sh\nexec {shutil.which('chroot')} {root} /usr/bin/python3 "
                          "-I -m core.install.helper \"$@\"\n")
        pkexec.chmod(0o755)
        plan = Plan(strategy="rocm-apt", rocm="7.2", torch_index=None, env={}, steps=(
            Step("hello", "A user step", "as you", argv=(sys.executable, "-c", "print('hi')")),
            Step("apt-pin", "Prefer AMD's packages", "the pin", privileged=True,
                 file=FileSpec(PIN, content=pin_content())),
        ))
        _wizard, page = _page(qtbot, plan, tmp_path / "state", [str(pkexec)])
        with call_ends(qtbot, page.bridge, timeout_ms=180_000):
            page.start_button.click()
        assert [page.items[s].text(1) for s in ("hello", "apt-pin")] == ["done", "done"], \
            page.log.toPlainText()
        assert (root / PIN.lstrip("/")).read_text() == pin_content()
        assert page.outcome.text() == "Done: everything in the plan is in place."


@pytest.mark.slow
def test_a_real_plans_offline_steps_run_in_a_throwaway_home(qtbot: Any, aloop: Any,
                                                           tmp_path: Path) -> None:
    """The planner's own plan for a recorded RX 6700 XT, with the environment in a throwaway
    home: its steps that need no download (the venv, the card's variables for sh, fish and
    csh) carried out by the page; the wheel downloads are left out (no network in tests)."""
    import dataclasses

    from core.install.planner import Choices
    from core.operations.setup import plan_setup

    machine = Path(__file__).resolve().parents[1] / "fixtures" / "machines" / \
        "rx6700xt-ubuntu2204-needs-override"
    venv = tmp_path / "home" / ".local" / "share" / "rocmate" / "venv"
    plan = plan_setup(str(machine), Choices(venv=str(venv)))
    offline = dataclasses.replace(plan, replay=None, steps=tuple(  # carried out here: home
        s for s in plan.steps if s.id == "venv" or s.id.startswith("env-")))  # is throwaway
    assert [s.id for s in offline.steps][:2] == ["venv", "env-file"]
    _wizard, page = _page(qtbot, offline, tmp_path / "state", None)
    with call_ends(qtbot, page.bridge, timeout_ms=180_000):
        page.start_button.click()
    assert all(item.text(1) == "done" for item in page.items.values()), page.log.toPlainText()
    assert (venv / "bin" / "python").exists()
    assert "HSA_OVERRIDE_GFX_VERSION-10.3.0" in (venv / "bin" / "rocmate-env.sh").read_text()
    assert "rocmate-env.sh" in (venv / "bin" / "activate").read_text()


def test_a_step_that_prints_percent_gets_a_bar_and_the_time_left(qtbot: Any, aloop: Any,
                                                                 tmp_path: Path) -> None:
    from gui.pages.run_setup import eta_text

    assert eta_text((0.0, 10.0), (30.0, 40.0)) == "about 1 min left"  # 30 % in 30 s, 60 % to go
    assert eta_text((0.0, 10.0), (10.0, 60.0)) == "about 8 s left"
    assert eta_text((0.0, 10.0), (5.0, 10.0)) == ""  # not moving yet
    code = ("import time\nfor p in (10, 30, 50, 70):\n    print(f'Progress: {p}%', flush=True)\n"
            "    time.sleep(0.3)\ntime.sleep(1.5)")
    plan = Plan(strategy="pip-only", rocm="7.2", torch_index=None, env={}, steps=(
        Step("pip", "Install something", "prints percent", argv=(sys.executable, "-c", code)),))
    _wizard, page = _page(qtbot, plan, tmp_path / "state", None)
    page.start_button.click()
    qtbot.waitUntil(lambda: page.step_progress.value() == 70, timeout=30_000)
    assert page.step_progress.isVisibleTo(page) and page.eta.text().endswith("s left")
    qtbot.waitUntil(lambda: page.isComplete(), timeout=30_000)
