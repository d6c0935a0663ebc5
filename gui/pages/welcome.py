"""Welcome: what rocmate will do, and which steps ask for the administrator's password."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QLabel, QVBoxLayout

from gui.bridge import Bridge
from gui.pages.base import PageId, RocPage
from gui.session import Session


class WelcomePage(RocPage):
    PAGE_ID = PageId.WELCOME

    def __init__(self, session: Session, bridge: Bridge) -> None:
        super().__init__(session, bridge)
        self.setTitle(self.tr("Welcome to rocmate"))
        self.setSubTitle(self.tr("PyTorch on your AMD graphics card, step by step."))
        text = QLabel(self.tr(
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
            "<p>Press <b>Next</b> to check this computer.</p>"))
        text.setWordWrap(True)
        if session.root:
            text.setText(text.text() + self.tr(
                "<p><i>Replaying the recorded machine in %1: nothing on this computer is "
                "read or changed.</i></p>").replace("%1", html.escape(session.root)))
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addStretch(1)

    def nextId(self) -> int:
        return int(PageId.SYSTEM_CHECK)
