"""Welcome: what rocmate will do, which steps ask for the administrator's password, and the
language of the app."""

from __future__ import annotations

import html

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QVBoxLayout

from gui import i18n
from gui.bridge import Bridge
from gui.pages.base import PageId, RocPage
from gui.session import Session


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
        layout.addStretch(1)
        self.retranslate()

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

    def _picked(self) -> None:
        code = self.language.currentData()
        if isinstance(code, str) and code != i18n.current():
            self.language_chosen.emit(code)

    def nextId(self) -> int:
        return int(PageId.SYSTEM_CHECK)
