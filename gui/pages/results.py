"""Results: the report of the suites the Benchmark page just ran, card by card (the headline,
cold start against steady, the cautions, cards like mine), with save, copy and open in the
browser; before any benchmark, a sentence saying to run one first. The last page."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QVBoxLayout

from gui.bridge import Bridge
from gui.pages.base import PageId, RocPage
from gui.session import Session
from gui.tune import TuneDialog
from gui.widgets.results_view import ResultsView, text_label


class ResultsPage(RocPage):
    PAGE_ID = PageId.RESULTS

    def __init__(self, session: Session, bridge: Bridge) -> None:
        super().__init__(session, bridge)
        self.empty = text_label("")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.stored = text_label("")
        self.view = ResultsView(bridge)  # shows its report again itself on a language change
        layout = QVBoxLayout(self)
        layout.addWidget(self.empty)
        layout.addWidget(self.stored)
        layout.addWidget(self.view, 1)
        self.tune_button = QPushButton()  # issue 37: the settings measured fastest here
        self.tune_button.setObjectName("find-fastest")
        self.tune_button.clicked.connect(self.open_tune)
        self.tune_dialog: TuneDialog | None = None
        tune_row = QHBoxLayout()
        tune_row.addWidget(self.tune_button)
        tune_row.addStretch(1)
        layout.addLayout(tune_row)
        self.retranslate()

    def retranslate(self) -> None:
        self.setTitle(self.tr("Results"))
        self.setSubTitle(self.tr("What the benchmark measured, what to keep in mind before "
                                 "quoting it, and reference results of cards like yours."))
        self.tune_button.setText(self.tr("Find the fastest settin&gs…"))
        self.empty.setText(self.tr(
            "No benchmark has run yet. Go back to the Benchmark page and run one first; its "
            "results show here. Earlier runs are in the history."))
        ids = self.session.bench_history_ids
        if ids:
            self.stored.setText(self.tr("Kept in the history as %1 (History shows every run "
                                        "and compares two).")
                                .replace("%1", ", ".join(f"#{i}" for i in ids)))

    def initializePage(self) -> None:
        report = self.session.bench_report
        self.empty.setVisible(report is None)
        self.view.setVisible(report is not None)
        ids = self.session.bench_history_ids
        self.stored.setVisible(report is not None and bool(ids))
        self.retranslate()
        if report is not None:
            self.view.show_report(report)

    def open_tune(self) -> None:
        """The "Find the fastest settings" window (one per page; shown again when open)."""
        if self.tune_dialog is None:
            self.tune_dialog = TuneDialog(self.session, self.bridge, self)
        if self.tune_dialog.isVisible():
            self.tune_dialog.activateWindow()
        else:
            self.tune_dialog.show()

    def nextId(self) -> int:
        return -1
