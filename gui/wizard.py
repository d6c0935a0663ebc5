"""The wizard: its pages by id, and which page comes next for this machine."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QMessageBox, QWizard

from gui.bridge import Bridge
from gui.history import HistoryWindow
from gui.pages.base import PageId, RocPage
from gui.pages.benchmark import BenchmarkPage
from gui.pages.override_tester import OverrideTesterPage
from gui.pages.results import ResultsPage
from gui.pages.run_setup import RunSetupPage
from gui.pages.setup_plan import SetupPlanPage
from gui.pages.system_check import SystemCheckPage
from gui.pages.verify import VerifyPage
from gui.pages.welcome import WelcomePage
from gui.pages.windows_side import WindowsSidePage
from gui.session import Session


class RocWizard(QWizard):
    closed = Signal()

    def __init__(self, session: Session, bridge: Bridge | None = None) -> None:
        super().__init__()
        self.session = session
        self.bridge = bridge or Bridge(self)
        self.setObjectName("rocmate-wizard")
        self.setWindowTitle(self.tr("rocmate"))
        self.setWizardStyle(QWizard.WizardStyle.ModernStyle)
        self.setOption(QWizard.WizardOption.NoBackButtonOnStartPage, True)
        self.pages: dict[PageId, RocPage] = {}
        for page_class in (WelcomePage, SystemCheckPage, WindowsSidePage, SetupPlanPage,
                           RunSetupPage, OverrideTesterPage, VerifyPage, BenchmarkPage,
                           ResultsPage):
            page = page_class(session, self.bridge)
            self.setPage(int(page.PAGE_ID), page)
            self.pages[page.PAGE_ID] = page
        self.setStartId(int(PageId.WELCOME))
        self.history_window: HistoryWindow | None = None
        self._add_toolbar()
        self.resize(900, 720)
        geometry = QSettings().value("wizard/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)

    def _add_toolbar(self) -> None:
        """History and Compare, on every page: two buttons left of the wizard's own."""
        self.setOption(QWizard.WizardOption.HaveCustomButton1, True)
        self.setOption(QWizard.WizardOption.HaveCustomButton2, True)
        self.setButtonText(QWizard.WizardButton.CustomButton1, self.tr("&History"))
        self.setButtonText(QWizard.WizardButton.CustomButton2, self.tr("C&ompare"))
        self.button(QWizard.WizardButton.CustomButton1).setToolTip(
            self.tr("Every benchmark run kept on this computer, and reports you imported"))
        self.button(QWizard.WizardButton.CustomButton2).setToolTip(
            self.tr("Pick two runs and see what differs"))
        self.setButtonLayout([
            QWizard.WizardButton.CustomButton1, QWizard.WizardButton.CustomButton2,
            QWizard.WizardButton.Stretch, QWizard.WizardButton.BackButton,
            QWizard.WizardButton.NextButton, QWizard.WizardButton.CommitButton,
            QWizard.WizardButton.FinishButton, QWizard.WizardButton.CancelButton])
        self.button(QWizard.WizardButton.CustomButton1).clicked.connect(self.open_history)
        self.button(QWizard.WizardButton.CustomButton2).clicked.connect(
            lambda: self.open_history().start_compare())

    def open_history(self) -> HistoryWindow:
        """The history window (one, kept while the wizard lives), shown and raised."""
        if self.history_window is None:
            self.history_window = HistoryWindow(self.bridge, self.session.history_path, self)
        self.history_window.show()
        self.history_window.raise_()
        self.history_window.reload()
        return self.history_window

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.pages[PageId.RUN_SETUP].busy and not self.confirm_close():
            event.ignore()
            return
        if self.pages[PageId.BENCHMARK].busy and not self.confirm_stop_benchmark():
            event.ignore()
            return
        QSettings().setValue("wizard/geometry", self.saveGeometry())
        self.closed.emit()  # the app then cancels what the bridge still runs
        self.bridge.shutdown()
        super().closeEvent(event)

    def confirm_close(self) -> bool:
        """While the set-up runs: ask first. Yes stops it after the current step (a root step
        is rolled back by the helper) and closes the window once it has stopped."""
        return self._stop_then_close(
            PageId.RUN_SETUP, self.tr("The set-up is running"),
            self.tr("Stop the set-up after the step that is running now, and close? The steps "
                    "that finished are kept; the next start of rocmate can resume."))

    def confirm_stop_benchmark(self) -> bool:
        """While a benchmark runs: ask first; Yes cancels it (kept in the history as
        cancelled) and closes the window once the worker has gone."""
        return self._stop_then_close(
            PageId.BENCHMARK, self.tr("A benchmark is running"),
            self.tr("Cancel the benchmark and close? What it measured so far is kept in the "
                    "history as cancelled."))

    def _stop_then_close(self, page_id: PageId, title: str, question: str) -> bool:
        """Ask; on Yes the page stops its work and closes the window once it has stopped (so
        the close asked for now waits: False)."""
        answer = QMessageBox.question(
            self, title, question,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No)
        page = self.pages[page_id]
        if answer == QMessageBox.StandardButton.Yes and isinstance(page, (RunSetupPage,
                                                                         BenchmarkPage)):
            page.close_when_stopped = True
            page.stop()
        return False

    def done(self, result: int) -> None:
        QSettings().setValue("wizard/geometry", self.saveGeometry())
        self.closed.emit()
        super().done(result)
