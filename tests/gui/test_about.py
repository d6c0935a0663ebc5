"""The About box, opened from the Welcome page: rocmate's version, its licence (the LICENSE
file, MIT) and the third-party notices where this copy carries them (the AppImage, whose
layout a folder reproduces here); a source checkout says where its libraries' licences are."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QDialog, QPushButton

from core import __version__
from gui.bridge import Bridge
from gui.pages.welcome import WelcomePage
from gui.session import Session
from gui.widgets.about import AboutDialog
from tests.gui.texts import window_texts

REPO = Path(__file__).resolve().parents[2]


def _settle() -> None:
    for _ in range(3):
        QCoreApplication.sendPostedEvents()
        QCoreApplication.processEvents()


def test_the_welcome_page_opens_the_about_box(qtbot: Any, bridge: Bridge) -> None:
    page = WelcomePage(Session(), bridge)
    qtbot.addWidget(page)
    page.show()
    button = page.findChild(QPushButton, "about-button")
    assert button is not None and button.isVisible()
    button.click()
    _settle()
    dialog = page.findChild(QDialog, "about-dialog")
    assert isinstance(dialog, AboutDialog) and dialog.isVisible()
    texts = " ".join(window_texts(dialog))
    assert __version__ in texts and "MIT" in texts
    assert dialog.licence_view.toPlainText() == (REPO / "LICENSE").read_text()
    # from the sources: no notices file, and the dialog says where the licences are instead
    dialog.tabs.setCurrentIndex(1)
    assert "pip" in dialog.notices_where.text()
    assert dialog.notices_view.isHidden()
    dialog.close()


def test_the_about_box_shows_the_images_notices(qtbot: Any, tmp_path: Path) -> None:
    folder = tmp_path / "usr/share/licenses/rocmate"
    folder.mkdir(parents=True)
    (folder / "LICENSE").write_text((REPO / "LICENSE").read_text())
    (folder / "THIRD-PARTY-NOTICES.txt").write_text("PySide6 6.11.2: LGPL-3.0-only\n")
    dialog = AboutDialog(folder=folder)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.tabs.setCurrentIndex(1)
    assert dialog.notices_view.toPlainText() == "PySide6 6.11.2: LGPL-3.0-only\n"
    assert "usr/share/licenses/rocmate/THIRD-PARTY-NOTICES.txt" in dialog.notices_where.text()
