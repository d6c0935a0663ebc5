"""Verify: the seeds' check of PyTorch on the card, line by line — green, or red with what to
do — run in the chosen Python off the GUI thread."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QStyle, QVBoxLayout, QWidget

from core.operations.setup import verify_pytorch
from core.probe.torch_check import CheckLine, TorchCheck
from gui.bridge import Bridge
from gui.pages.base import PageId, RocPage
from gui.session import Session
from gui.widgets.findings import selectable_label

ICONS = {True: QStyle.StandardPixmap.SP_DialogApplyButton,
         False: QStyle.StandardPixmap.SP_MessageBoxCritical,
         None: QStyle.StandardPixmap.SP_MessageBoxInformation}


class VerifyPage(RocPage):
    PAGE_ID = PageId.VERIFY

    def __init__(self, session: Session, bridge: Bridge) -> None:
        super().__init__(session, bridge)
        self.setTitle(self.tr("Verify PyTorch"))
        self.setSubTitle(self.tr("PyTorch's version, its ROCm, whether it sees the card, and a "
                                 "matrix product on the GPU compared with the CPU."))
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        font = self.summary.font()
        font.setBold(True)
        self.summary.setFont(font)
        self.lines = QVBoxLayout()
        self.rows: list[QWidget] = []
        self.again = QPushButton(self.tr("Check &again"))
        self.again.clicked.connect(self.start)
        buttons = QHBoxLayout()
        buttons.addWidget(self.again)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addLayout(self.lines)
        layout.addStretch(1)
        layout.addLayout(buttons)
        self.result: TorchCheck | None = None
        bridge.finished.connect(self._finished)
        bridge.failed.connect(self._failed)

    def initializePage(self) -> None:
        if self.session.check is not None and not self.busy:
            self.show_check(self.session.check)
        else:
            self.start()

    def start(self) -> None:
        self.set_busy(True)
        self.summary.setText(self.tr("Running PyTorch on the card…"))
        self.bridge.start("verify", verify_pytorch, self.session.root, self.session.python)

    def _finished(self, key: str, result: object) -> None:
        if key == "verify" and isinstance(result, TorchCheck):
            self.session.check = result
            self.show_check(result)
            self.set_busy(False)

    def _failed(self, key: str, message: str, details: str) -> None:
        if key == "verify":
            self.summary.setText(message)
            self.set_busy(False)

    def show_check(self, check: TorchCheck) -> None:
        self.result = check
        for row in self.rows:
            self.lines.removeWidget(row)
            row.deleteLater()
        self.rows = [self._row(line) for line in check.lines]
        for row in self.rows:
            self.lines.addWidget(row)
        if check.ok:
            text = self.tr("PyTorch works on the card (in %1).")
        else:
            text = self.tr("Not yet: see the red lines (in %1).")
        if check.replayed:
            text += " " + self.tr("As recorded: a replayed machine runs nothing.")
        self.summary.setText(text.replace("%1", check.python))

    def _row(self, line: CheckLine) -> QWidget:
        row = QWidget()
        row.setObjectName("check-line")
        layout = QHBoxLayout(row)
        icon = QLabel()
        size = self.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)
        icon.setPixmap(self.style().standardIcon(ICONS[line.ok]).pixmap(size))
        word = {True: self.tr("OK"), False: self.tr("Problem"), None: self.tr("Not checked")}
        layout.addWidget(icon)
        text = QVBoxLayout()
        text.addWidget(selectable_label(f"{word[line.ok]} — {line.name}: {line.value}"))
        if line.fix:
            text.addWidget(selectable_label(line.fix, mono=False))
        layout.addLayout(text, 1)
        return row

    def nextId(self) -> int:
        return int(PageId.BENCHMARK)
