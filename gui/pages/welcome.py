"""Welcome: what rocmate will do, which steps ask for the administrator's password, the
language of the app, (run as an AppImage) rocmate in the desktop's application menu, and the
About box (version, licence, third-party notices)."""

from __future__ import annotations

import html
import os
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
)

from core.bundle import appimage_file
from core.operations import menu_entry
from core.operations.errors import OperationError
from gui import i18n
from gui.bridge import Bridge
from gui.pages.base import PageId, RocPage
from gui.session import Session
from gui.widgets.about import AboutDialog
from gui.widgets.findings import selectable_label


def shown_path(path: Path) -> str:
    """``path`` with the home folder as ``~`` (what the user reads; shorter)."""
    home = os.path.expanduser("~")
    text = str(path)
    if home not in ("", "/", "~") and text.startswith(home.rstrip("/") + "/"):
        return "~" + text[len(home.rstrip("/")):]
    return text


class WelcomePage(RocPage):
    PAGE_ID = PageId.WELCOME
    language_chosen = Signal(str)
    """A language picked in the list (the wizard switches the app to it)."""

    def __init__(self, session: Session, bridge: Bridge) -> None:
        super().__init__(session, bridge)
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.language = QComboBox()
        for code in i18n.LANGUAGES:
            self.language.addItem(i18n.NAMES[code], code)
        self.language.setObjectName("language")
        self.language.currentIndexChanged.connect(self._picked)
        self.language_label = QLabel()
        self.language_label.setBuddy(self.language)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        form.addRow(self.language_label, self.language)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addLayout(form)
        self._menu_group(layout)
        layout.addStretch(1)
        self.about_button = QPushButton()
        self.about_button.setObjectName("about-button")
        self.about_button.clicked.connect(self.open_about)
        about_row = QHBoxLayout()
        about_row.addWidget(self.about_button)
        about_row.addStretch(1)
        layout.addLayout(about_row)
        self.about: AboutDialog | None = None
        self.retranslate()

    def open_about(self) -> AboutDialog:
        """The About box (one, kept while the page lives), shown."""
        if self.about is None:
            self.about = AboutDialog(self)
        self.about.show()
        self.about.activateWindow()
        return self.about

    def _menu_group(self, layout: QVBoxLayout) -> None:
        """"Add to the application menu": only for the AppImage this process runs from (any
        other install has its menu entry from its package), and never while a recorded machine
        is replayed (nothing on this computer is changed then)."""
        self.appimage = None if self.session.root else appimage_file()
        self.entry: menu_entry.MenuEntry | None = None
        self.menu = QGroupBox()
        self.menu.setObjectName("menu-entry")
        self.menu_state = selectable_label("")
        self.menu_state.setObjectName("menu-entry-state")
        self.menu_button = QPushButton()
        self.menu_button.setObjectName("menu-entry-button")
        self.menu_button.clicked.connect(self._menu_clicked)
        self.menu_message = selectable_label("")
        self.menu_message.setObjectName("menu-entry-message")
        self.menu_message.setVisible(False)
        row = QHBoxLayout()
        row.addWidget(self.menu_button)
        row.addStretch(1)
        box = QVBoxLayout(self.menu)
        box.addWidget(self.menu_state)
        box.addLayout(row)
        box.addWidget(self.menu_message)
        layout.addSpacing(12)
        layout.addWidget(self.menu)
        self.menu.setVisible(self.appimage is not None)
        if self.appimage is not None:
            self.entry = menu_entry.menu_entry_state()

    def retranslate(self) -> None:
        self.setTitle(self.tr("Welcome to rocmate"))
        self.setSubTitle(self.tr("PyTorch on your AMD graphics card, step by step."))
        text = self.tr(
            "<p>rocmate finds out what your computer has, sets up what is missing, and then "
            "measures your card.</p>"
            "<ol>"
            "<li><b>Check</b> — the graphics card, its driver, ROCm and PyTorch. Nothing is "
            "changed.</li>"
            "<li><b>Set up</b> — a plan you can read first: every step with its command. "
            "Steps that change the system (adding you to the <i>render</i> group, AMD's "
            "package repository) ask for the administrator's password once; the rest runs as "
            "you.</li>"
            "<li><b>Benchmark</b> — real PyTorch workloads with a report you can share.</li>"
            "</ol>"
            "<p>Press <b>Next</b> to check this computer.</p>")
        if self.session.root:
            text += self.tr(
                "<p><i>Replaying the recorded machine in %1: nothing on this computer is "
                "read or changed.</i></p>").replace("%1", html.escape(self.session.root))
        self.text.setText(text)
        self.language_label.setText(self.tr("&Language:"))
        self.language.setAccessibleName(self.tr("Language"))
        self.language.blockSignals(True)
        self.language.setCurrentIndex(max(0, self.language.findData(i18n.current())))
        self.language.blockSignals(False)
        self.about_button.setText(self.tr("&About rocmate"))
        self.about_button.setToolTip(self.tr("Version, licence and the notices of the software "
                                             "rocmate carries"))
        self._show_menu_entry()

    def _show_menu_entry(self) -> None:
        """The menu entry's state in words, and the button that changes it."""
        self.menu.setTitle(self.tr("Application menu"))
        entry = self.entry
        if entry is None:
            return
        adds = True
        if entry.starts(self.appimage):
            text = self.tr("rocmate is in the application menu, added as %1. It starts this "
                           "AppImage.").replace("%1", shown_path(entry.path))
            adds = False
        elif entry.state == "present" and entry.appimage is not None:
            text = self.tr("The application menu starts another copy of rocmate: %1. Add this "
                           "one to start it instead.").replace("%1", shown_path(entry.appimage))
        elif entry.state == "stale" and entry.appimage is not None:
            text = self.tr("The application menu's rocmate points at %1, which is no longer "
                           "there (moved or deleted). Add this copy to mend it.").replace(
                               "%1", shown_path(entry.appimage))
        elif entry.state == "foreign":
            text = self.tr("The application menu already has a rocmate entry that rocmate did "
                           "not write (%1); it is left as it is.").replace(
                               "%1", shown_path(entry.path))
        else:
            text = self.tr("Start this AppImage from your desktop's application menu, like any "
                           "other app: rocmate adds its own entry and icon, and removes them "
                           "again when asked.")
        self.menu_state.setText(text)
        self.menu_button.setText(self.tr("Add to the application &menu") if adds
                                 else self.tr("Remove from the application &menu"))
        self.menu_button.setVisible(entry.state != "foreign")

    def _menu_clicked(self) -> None:
        entry, appimage = self.entry, self.appimage
        if entry is None or appimage is None:
            return
        removing = entry.starts(appimage)
        try:
            if removing:
                self.entry = menu_entry.remove_from_menu()
            else:
                self.entry = menu_entry.add_to_menu(appimage)
        except OperationError as exc:
            error = exc
            reason = error.words if isinstance(error, menu_entry.MenuEntryError) \
                else lambda: str(error)
            self.say(self.menu_message, lambda: (
                self.tr("Not removed: %1") if removing else self.tr("Not added: %1"))
                .replace("%1", reason()))
            self.entry = menu_entry.menu_entry_state()
        else:
            self.say(self.menu_message, (lambda: self.tr(
                "Removed: rocmate's entry and its icon are gone from the application menu."))
                if removing else None)
        self.menu_message.setVisible(bool(self.menu_message.text()))
        self._show_menu_entry()

    def _picked(self) -> None:
        code = self.language.currentData()
        if isinstance(code, str) and code != i18n.current():
            self.language_chosen.emit(code)

    def nextId(self) -> int:
        return int(PageId.SYSTEM_CHECK)
