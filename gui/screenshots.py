"""``rocmate gui --screenshot-dir OUT``: every page of the wizard on the (replayed) machine,
rendered to ``OUT/<nn>-<page>.png`` (docs/contracts.md, "GUI screenshots").

The doctor and the plan are computed first (synchronously: there is no one to wait for), then
each page is shown as a user reaches it and grabbed."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEventLoop
from PySide6.QtWidgets import QApplication

from core.operations.errors import OperationError
from core.operations.machine import check_machine
from core.operations.setup import plan_setup, verify_pytorch
from gui.pages.base import PageId
from gui.session import Session


def render_pages(app: QApplication, session: Session, out: Path) -> int:
    from gui.wizard import RocWizard

    out.mkdir(parents=True, exist_ok=True)
    session.report = check_machine(session.root, python=session.python)
    try:
        session.plan = plan_setup(session.root)
    except OperationError as exc:
        session.plan_error = str(exc)
    session.check = verify_pytorch(session.root, session.python)
    wizard = RocWizard(session)
    wizard.resize(900, 720)
    wizard.show()
    number = 1
    page_id: int = int(PageId.WELCOME)
    seen: set[int] = set()
    while page_id != -1 and page_id not in seen:
        seen.add(page_id)
        wizard.setStartId(page_id)  # as a user reaches it (a run page waits at its start)
        wizard.restart()
        _settle(app)
        name = PageId(page_id).name.lower().replace("_", "-")
        wizard.grab().save(str(out / f"{number:02d}-{name}.png"))
        number += 1
        page_id = wizard.currentPage().nextId()
    wizard.close()
    return 0


def _settle(app: QApplication) -> None:
    for _ in range(5):
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
    app.processEvents()
