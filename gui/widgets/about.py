"""The About box: rocmate's version, its licence (MIT) and the third-party notices the AppImage
carries (core.notices finds them: usr/share/licenses/rocmate/ in the image)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFontDatabase, QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core import __version__
from core.notices import (
    LICENCE_FOLDER,
    LICENCE_ID,
    NOTICES_NAME,
    licence_folder,
    licence_text,
    notices_file,
    notices_text,
)
from core.resources import icon_file
from gui.widgets.findings import selectable_label

ICON_SIZE = 64
IN_THE_IMAGE = "/".join(("usr", *LICENCE_FOLDER, NOTICES_NAME))
"""Where the notices lie inside the image (its mount point changes with every start)."""


def text_view(object_name: str) -> QPlainTextEdit:
    """A read-only view of a licence text, in a fixed-width font (the texts are laid out in
    columns); the few longer lines wrap at the view's width."""
    view = QPlainTextEdit()
    view.setObjectName(object_name)
    view.setReadOnly(True)
    view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    return view


class AboutDialog(QDialog):
    """Version, licence and third-party notices. ``folder``: where the licence files are
    (default: where this copy of rocmate keeps them, core.notices.licence_folder)."""

    def __init__(self, parent: QWidget | None = None, folder: Path | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("about-dialog")
        self.folder = folder or licence_folder()
        self.heading = QLabel()
        self.heading.setObjectName("about-heading")
        self.summary = selectable_label("")
        self.licence_view = text_view("about-licence")
        self.notices_where = selectable_label("")
        self.notices_where.setObjectName("about-notices-where")
        self.notices_view = text_view("about-notices")
        self.tabs = QTabWidget()
        self.tabs.addTab(self.licence_view, "")
        self.tabs.addTab(self._notices_tab(), "")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(self._head())
        layout.addWidget(self.tabs, 1)
        layout.addWidget(buttons)
        self._fill()
        self.retranslate()
        self.resize(760, 560)

    def _head(self) -> QHBoxLayout:
        """The icon beside the name, the version and the one-line summary."""
        icon = QLabel()
        pixmap = QPixmap(str(icon_file()))
        if not pixmap.isNull():
            icon.setPixmap(pixmap.scaled(ICON_SIZE, ICON_SIZE,
                                         Qt.AspectRatioMode.KeepAspectRatio,
                                         Qt.TransformationMode.SmoothTransformation))
        icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        words = QVBoxLayout()
        words.addWidget(self.heading)
        words.addWidget(self.summary)
        row = QHBoxLayout()
        row.addWidget(icon)
        row.addLayout(words, 1)
        return row

    def _notices_tab(self) -> QWidget:
        tab = QWidget()
        box = QVBoxLayout(tab)
        box.setContentsMargins(0, 6, 0, 0)
        box.addWidget(self.notices_where)
        box.addWidget(self.notices_view, 1)
        return tab

    def _fill(self) -> None:
        """The texts that do not change with the language: the licence and the notices."""
        self.licence = licence_text(self.folder)
        self.notices_path = notices_file(self.folder)
        notices = notices_text(self.folder)
        self.notices_view.setPlainText(notices or "")
        self.notices_view.setVisible(bool(notices))
        if self.licence:
            self.licence_view.setPlainText(self.licence)

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("About rocmate"))
        self.heading.setText(f"<big><b>rocmate</b> {__version__}</big>")
        self.summary.setText(
            self.tr("Sets up PyTorch on your AMD graphics card and measures how fast it "
                    "runs.") + "\n" +
            self.tr("Copyright © the rocmate authors. Free software under the %1 licence: "
                    "use, change and share it.").replace("%1", LICENCE_ID))
        self.tabs.setTabText(0, self.tr("Licence"))
        self.tabs.setTabText(1, self.tr("Third-party notices"))
        if not self.licence:
            self.licence_view.setPlainText(self.tr(
                "The licence file is missing from this copy. rocmate is under the %1 licence."
            ).replace("%1", LICENCE_ID))
        if self.notices_path is not None:
            self.notices_where.setText(self.tr(
                "This copy of rocmate carries other software (Python, Qt and PySide6, numpy, "
                "pyqtgraph and the libraries they need), each under its own licence. The list "
                "and the full texts, also in the image as %1:").replace(
                    "%1", IN_THE_IMAGE))
        else:
            self.notices_where.setText(self.tr(
                "rocmate runs from its sources here: pip installed the libraries it uses, each "
                "with its own licence files (pip show -f NAME lists them). The AppImage carries "
                "the notices and licence texts of everything it bundles."))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
