"""Issue 31/17: Back stayed enabled while a benchmark or a set-up ran. The pages report their
work through ``set_busy`` (what a run sets); Back is off for as long as it runs, whatever the
wizard's own updates of its buttons do meanwhile, and on again after."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWizard

from gui.pages.base import PageId
from tests.gui.support import open_wizard


@pytest.mark.parametrize("page_id", [PageId.BENCHMARK, PageId.RUN_SETUP])
def test_back_is_off_while_the_page_works(qtbot: Any, page_id: PageId) -> None:
    wizard = open_wizard(qtbot, "rx6600-ubuntu2404-fresh")
    for _ in range(10):  # from Welcome, with the wizard's own Next, as a user goes
        if wizard.currentId() == page_id:
            break
        wizard.next()
        qtbot.wait(10)
    assert wizard.currentId() == page_id
    page = wizard.currentPage()
    back = wizard.button(QWizard.WizardButton.BackButton)
    assert back.isEnabled()
    try:
        page.set_busy(True)
        qtbot.waitUntil(lambda: not back.isEnabled(), timeout=1000)
        page.completeChanged.emit()  # QWizard enables Back again on each of these
        qtbot.wait(20)
        assert not back.isEnabled()
        qtbot.mouseClick(back, Qt.MouseButton.LeftButton)
        assert wizard.currentPage() is page
    finally:
        page.set_busy(False)  # never left busy: closing a busy wizard asks first
    qtbot.waitUntil(back.isEnabled, timeout=1000)
