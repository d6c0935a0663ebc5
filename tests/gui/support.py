"""The wizard on a recorded machine, as a user reaches its later pages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.operations.machine import check_machine
from core.operations.setup import plan_setup, verify_pytorch
from gui.session import Session
from gui.wizard import RocWizard

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"


def open_wizard(qtbot: Any, machine: str, *, checked: bool = True) -> RocWizard:
    """The wizard shown on ``machine``; ``checked``: with what the pages before a later one
    have found by then (the doctor's answer, the plan, the verification)."""
    root = str(MACHINES / machine)
    session = Session(root=root)
    if checked:
        session.report = check_machine(root)
        if session.report.verdict != "Not supported":
            session.plan = plan_setup(root)
        session.check = verify_pytorch(root)
    wizard = RocWizard(session)
    qtbot.addWidget(wizard)
    wizard.show()
    qtbot.waitExposed(wizard)
    return wizard


def click_next(qtbot: Any, wizard: RocWizard) -> None:
    """Click the wizard's Next once it shows and can be clicked (a page's work may still
    run)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QWizard

    button = wizard.button(QWizard.WizardButton.NextButton)
    qtbot.waitUntil(lambda: button.isVisible() and button.isEnabled(), timeout=60_000)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def walk_to(qtbot: Any, wizard: RocWizard, page: int) -> None:
    """From the page shown through each page's Next (a user's clicks) to ``page``."""
    while wizard.currentId() != int(page):
        click_next(qtbot, wizard)
