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
