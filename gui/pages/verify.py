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
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        font = self.summary.font()
        font.setBold(True)
        self.summary.setFont(font)
        self.lines = QVBoxLayout()
        self.rows: list[QWidget] = []
        self.again = QPushButton()
        self.again.clicked.connect(self.start)
        buttons = QHBoxLayout()
        buttons.addWidget(self.again)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addLayout(self.lines)
        layout.addLayout(buttons)  # under what it checks again, not a page away from it
        layout.addStretch(1)
        self.result: TorchCheck | None = None
        self.retranslate()

    def retranslate(self) -> None:
        """The page's words again, and the check's lines: those the session holds (core's
        words, as the check made them), with the page's words in the new language."""
        self.setTitle(self.tr("Verify PyTorch"))
        self.setSubTitle(self.tr("PyTorch's version, its ROCm, whether it sees the card, and a "
                                 "matrix product on the GPU compared with the CPU."))
        self.again.setText(self.tr("Check &again"))
        if self.result is not None:
            check = self.session.check if self.session.check is not None else self.result
            self.result = check
            self._show_lines(check)

    def initializePage(self) -> None:
        if self.session.check is not None and not self.busy:
            self.show_check(self.session.check)
        else:
            self.start()

    def start(self) -> None:
        self.set_busy(True)
        self.say(self.summary, lambda: self.tr("Running PyTorch on the card…"))
        self.bridge.run("verify", verify_pytorch, self.session.root, self.session.python,
                        owner=self, on_done=self._verified, on_failed=self._failed)

    def _verified(self, result: object) -> None:
        if isinstance(result, TorchCheck):
            self.session.check = result
            self.show_check(result)
        self.set_busy(False)

    def _failed(self, message: str, details: str) -> None:
        self.say(self.summary, lambda: message)
        self.set_busy(False)

    def show_check(self, check: TorchCheck) -> None:
        self.result = check
        self._show_lines(check)
        self.say(self.summary, lambda: self._summary_text(check))

    def _show_lines(self, check: TorchCheck) -> None:
        for row in self.rows:
            self.lines.removeWidget(row)
            row.hide()  # gone from sight now, deleted once Qt is back in its loop
            row.deleteLater()
        self.rows = [self._row(line) for line in check.lines]
        for row in self.rows:
            self.lines.addWidget(row)

    def _summary_text(self, check: TorchCheck) -> str:
        if check.proved:
            text = self.tr("PyTorch works on the card (in %1).")
        elif check.ok:  # nothing failed, but the computations on the card did not run
            text = self.tr("PyTorch sees the card; its computations on the card are not "
                           "checked yet (in %1).")
        else:
            text = self.tr("Not yet: see the red lines (in %1).")
        if check.replayed:
            text = self.tr("%1 %2", "two sentences").replace("%1", text).replace(
                "%2", self.tr("As recorded: a replayed machine runs nothing."))
        return text.replace("%1", check.python)

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
        said = self.tr("%1 — %2: %3").replace("%1", word[line.ok]).replace(
            "%2", line.name).replace("%3", line.value)
        text.addWidget(selectable_label(said))
        if line.fix:
            text.addWidget(selectable_label(line.fix, mono=False))
        layout.addLayout(text, 1)
        return row

    def nextId(self) -> int:
        return int(PageId.BENCHMARK)
