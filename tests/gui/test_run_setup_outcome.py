"""A set-up that stops before any step ran says that nothing was changed: no root step "rolled
back", no Resume (there is nothing to resume from), the steps that never ran say so instead of
"waiting", and a command in the reason is shown as code, not between literal backticks. Core's
real runner over a plan; only pkexec is stood in for."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from core.install.plan import Plan, Step
from core.install.privilege import system_wide
from core.install.runner import Runner
from core.operations.setup import finished_steps
from gui.pages.base import PageId
from gui.session import Session
from gui.wizard import RocWizard
from tests.waits import call_ends

PLAN = Plan(strategy="pip-only", rocm="7.2", torch_index=None, env={}, steps=(
    Step("groups", "Add you to the render group", "root", privileged=True,
         argv=("usermod", "-aG", "render,video", "ana")),
    Step("venv", "Make the environment", "as you", argv=(sys.executable, "-c", "pass")),
))


def _run_page(qtbot: Any, tmp_path: Path, helper: list[str] | None,
              problem: str | None = None) -> Any:
    """The wizard on its run page, Start clicked, the run ended."""
    wizard = RocWizard(Session(plan=PLAN))
    qtbot.addWidget(wizard)
    page = wizard.pages[PageId.RUN_SETUP]
    state = tmp_path / "state"
    page.make_runner = lambda plan, emit, resume: Runner(plan, emit, helper, folder=state,
                                                         helper_problem=problem)
    page.earlier_steps = lambda plan: finished_steps(plan, state)
    wizard.setStartId(int(PageId.RUN_SETUP))
    wizard.show()
    qtbot.waitExposed(wizard)
    with call_ends(qtbot, page.bridge, timeout_ms=60_000):
        qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    return page


def test_no_way_to_root_says_nothing_changed_and_shows_commands_as_code(
        qtbot: Any, aloop: Any, tmp_path: Path) -> None:
    page = _run_page(qtbot, tmp_path, None, problem=system_wide())
    said = page.outcome.text()
    assert "rolled back" not in said and "Resume" not in said
    assert "Not started" in said and "Nothing was changed" in said
    assert "`" not in said and "<code>sudo python3 -m venv /opt/rocmate</code>" in said
    assert not page.resume_button.isVisibleTo(page) and page.start_button.isEnabled()
    assert [item.text(1) for item in page.items.values()] == ["not run", "not run"]


def test_a_dismissed_prompt_before_any_step_offers_start_not_resume(
        qtbot: Any, aloop: Any, tmp_path: Path) -> None:
    pkexec = tmp_path / "pkexec"  # exits as pkexec does when the user closes its dialog
    pkexec.write_text(f"#!{sys.executable}\nimport sys\nsys.stdin.read()\nsys.exit(126)\n")
    pkexec.chmod(0o755)
    page = _run_page(qtbot, tmp_path, [str(pkexec)])
    said = page.outcome.text()
    assert "dismissed the password prompt" in said and "rolled back" not in said
    assert not page.resume_button.isVisibleTo(page) and page.start_button.isEnabled()
    assert page.items["groups"].text(1) == "not run"
