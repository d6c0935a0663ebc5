"""The Set-up plan page on a machine whose ~/.bashrc exports a stale override (issue 33, item
2): its own tick box (never the removal's) asks for the consent, the comment-out step is shown
skipped until it is ticked, and the copied shell script runs it only then. Walked from Welcome
through the wizard's own Next, on the recorded machine."""

from __future__ import annotations

import os
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from gui.pages.base import PageId
from gui.pages.setup_plan import SetupPlanPage
from tests.gui.support import open_wizard, walk_to

MACHINE = "rx7900xtx-override-wrong-bashrc"


def test_the_consent_box_shows_and_ticking_it_includes_the_step(qtbot: Any, aloop: Any) -> None:
    wizard = open_wizard(qtbot, MACHINE, checked=False)
    walk_to(qtbot, wizard, PageId.SETUP_PLAN)
    page = wizard.pages[PageId.SETUP_PLAN]
    assert isinstance(page, SetupPlanPage)
    assert page.fix_shell_files.isVisibleTo(page) and not page.remove_old.isVisibleTo(page)
    assert "HSA_OVERRIDE_GFX_VERSION" in page.summary.text()  # the variable it unsets
    card = next(c for c in page.steps.cards if c.step_id == "comment-out-export")
    assert not card.isEnabled() and card.skipped is not None
    assert "Comment out the lines" in card.skipped.text()
    texts = " ".join(label.text() for label in card.findChildren(type(page.summary)))
    assert "/home/alice/.bashrc" in texts and "export HSA_OVERRIDE_GFX_VERSION=10.3.0" in texts
    qtbot.mouseClick(page.copy_script, Qt.MouseButton.LeftButton)
    assert "shell_lines comment" not in QGuiApplication.clipboard().text()
    page.fix_shell_files.setChecked(True)
    plan = wizard.session.plan
    assert plan is not None
    step = next(s for s in plan.steps if s.id == "comment-out-export")
    assert step.consent is True
    card = next(c for c in page.steps.cards if c.step_id == "comment-out-export")
    assert card.isEnabled() and card.skipped is None
    qtbot.mouseClick(page.copy_script, Qt.MouseButton.LeftButton)
    assert "shell_lines comment --path /home/alice/.bashrc" in QGuiApplication.clipboard().text()
    shots = os.environ.get("ROCMATE_TEST_SHOTS")
    if shots:  # for a person to look at: ROCMATE_TEST_SHOTS=/tmp/x pytest this file
        qtbot.wait(200)  # the new cards laid out
        wizard.grab().save(os.path.join(shots, "setup-plan-ticked.png"))
