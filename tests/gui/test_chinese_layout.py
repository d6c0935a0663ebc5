"""The pages in Chinese with the real catalogue: nothing clipped. Every visible button shows
its whole text, and every label that does not wrap has the width its text needs (widths are
not fixed to English)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QAbstractButton, QLabel

from gui import i18n
from gui.pages.base import PageId
from gui.wizard import RocWizard
from scripts import qt_catalogue
from tests.gui.test_language import MACHINE_PAGES, _session, _settle


@pytest.fixture
def chinese(qapp: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    qt_catalogue.lrelease(qt_catalogue.ts_path("zh_CN"), tmp_path / "rocmate_zh_CN.qm")
    monkeypatch.setattr(i18n, "catalogue_dir", lambda: tmp_path)
    assert i18n.switch("zh_CN")
    yield
    i18n.switch("en")


@pytest.mark.parametrize(("machine", "page"), MACHINE_PAGES,
                         ids=[f"{m}-{p.name.lower()}" for m, p in MACHINE_PAGES])
def test_nothing_is_clipped_in_chinese(qtbot: Any, chinese: None, machine: str,
                                       page: PageId) -> None:
    wizard = RocWizard(_session(machine))
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.setStartId(int(page))
    wizard.restart()
    _settle()
    QCoreApplication.processEvents()
    clipped = []
    for widget in wizard.findChildren(QAbstractButton) + wizard.findChildren(QLabel):
        if not widget.isVisibleTo(wizard) or not widget.text():
            continue
        if isinstance(widget, QLabel) and (widget.wordWrap() or (widget.pixmap() is not None
                                           and not widget.pixmap().isNull())):
            continue
        if widget.width() + 1 < widget.minimumSizeHint().width():
            clipped.append(f"{type(widget).__name__} {widget.text()!r}: {widget.width()} px "
                           f"of {widget.minimumSizeHint().width()}")
    assert clipped == []


@pytest.mark.parametrize("machine", ["rx6600-ubuntu2404-fresh"])
def test_every_step_of_the_set_up_shows_in_chinese(qtbot: Any, chinese: None,
                                                   machine: str) -> None:
    """Issue 31/14: in Chinese (taller rows) the step list clipped its last row above an empty
    band; the list is now as tall as its steps."""
    from PySide6.QtWidgets import QTreeWidget

    wizard = RocWizard(_session(machine))
    qtbot.addWidget(wizard)
    wizard.resize(900, 720)
    wizard.show()
    wizard.open_at(PageId.RUN_SETUP)
    _settle()
    QCoreApplication.processEvents()
    tree = wizard.currentPage().findChild(QTreeWidget)
    assert tree is not None and tree.topLevelItemCount() >= 10
    view = tree.viewport().rect()
    for i in range(tree.topLevelItemCount()):
        rect = tree.visualItemRect(tree.topLevelItem(i))
        assert view.contains(rect), (i, rect, view)  # the whole row, the last one too
    assert not tree.verticalScrollBar().isVisible()
