"""The wizard: its pages by id, and which page comes next for this machine."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QActionGroup, QCloseEvent
from PySide6.QtWidgets import QMenu, QPushButton, QWidget, QWizard

from gui import i18n
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
from gui.widgets import focus_ring
from gui.widgets.confirm import ask

_QT_CONTEXT = "QWizard"
_QT_BUTTONS = {QWizard.WizardButton.BackButton: "< &Back",
               QWizard.WizardButton.NextButton: "&Next >",
               QWizard.WizardButton.CommitButton: "Commit",
               QWizard.WizardButton.FinishButton: "&Finish",
               QWizard.WizardButton.CancelButton: "Cancel"}
"""The wizard's own buttons in Qt's words (the modern style's), which Qt's catalogue
translates."""
OWN_BUTTONS = (QWizard.WizardButton.CustomButton1, QWizard.WizardButton.CustomButton2,
               QWizard.WizardButton.CustomButton3, QWizard.WizardButton.BackButton,
               QWizard.WizardButton.NextButton, QWizard.WizardButton.CommitButton,
               QWizard.WizardButton.FinishButton, QWizard.WizardButton.CancelButton)
"""The wizard's own buttons in the order they stand (and are reached with Tab) at the bottom."""


class RocWizard(QWizard):
    closed = Signal()

    def __init__(self, session: Session, bridge: Bridge | None = None) -> None:
        super().__init__()
        self.session = session
        self.bridge = bridge or Bridge(self)
        self.setObjectName("rocmate-wizard")
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
        focus_ring.install()  # the focus drawn so that it can be seen
        self.currentIdChanged.connect(self._keyboard_order)
        self.currentIdChanged.connect(self._no_back_while_busy)
        self.currentIdChanged.connect(self._one_language_choice)
        for shown in self.pages.values():
            shown.completeChanged.connect(self._keyboard_order)
            # after QWizard's own handler (connected by setPage), which enables Back again
            shown.completeChanged.connect(self._no_back_while_busy)
        welcome = self.pages[PageId.WELCOME]
        assert isinstance(welcome, WelcomePage)
        welcome.language_chosen.connect(self.set_language)
        self.retranslate()
        self.resize(900, 720)
        geometry = QSettings().value("wizard/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)

    def _add_toolbar(self) -> None:
        """History, Compare and the language, on every page: buttons left of the wizard's
        own."""
        self.setOption(QWizard.WizardOption.HaveCustomButton1, True)
        self.setOption(QWizard.WizardOption.HaveCustomButton2, True)
        self.setOption(QWizard.WizardOption.HaveCustomButton3, True)
        self.languages = QMenu(self)
        group = QActionGroup(self.languages)
        for code in i18n.LANGUAGES:
            action = self.languages.addAction(i18n.NAMES[code])
            action.setCheckable(True)
            action.setData(code)
            group.addAction(action)
        group.triggered.connect(lambda action: self.set_language(str(action.data())))
        language = self.button(QWizard.WizardButton.CustomButton3)
        assert isinstance(language, QPushButton)  # QWizard's buttons are push buttons
        language.setMenu(self.languages)
        self.setButtonLayout([
            QWizard.WizardButton.CustomButton1, QWizard.WizardButton.CustomButton2,
            QWizard.WizardButton.CustomButton3, QWizard.WizardButton.Stretch,
            QWizard.WizardButton.BackButton, QWizard.WizardButton.NextButton,
            QWizard.WizardButton.CommitButton,
            QWizard.WizardButton.FinishButton, QWizard.WizardButton.CancelButton])
        self.button(QWizard.WizardButton.CustomButton1).clicked.connect(self.open_history)
        self.button(QWizard.WizardButton.CustomButton2).clicked.connect(
            lambda: self.open_history().start_compare())

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("rocmate"))
        # QWizard names its own buttons once: name them again, in Qt's words (its catalogue)
        for button, text in _QT_BUTTONS.items():
            self.setButtonText(button, QCoreApplication.translate(_QT_CONTEXT, text))
        self.setButtonText(QWizard.WizardButton.CustomButton1, self.tr("&History"))
        self.setButtonText(QWizard.WizardButton.CustomButton2, self.tr("C&ompare"))
        # the language's own name: a reader who cannot read the current one still finds it
        self.setButtonText(QWizard.WizardButton.CustomButton3, i18n.NAMES[i18n.current()])
        self.button(QWizard.WizardButton.CustomButton1).setToolTip(
            self.tr("Every benchmark run kept on this computer, and reports you imported"))
        self.button(QWizard.WizardButton.CustomButton2).setToolTip(
            self.tr("Pick two runs and see what differs"))
        self.button(QWizard.WizardButton.CustomButton3).setToolTip(
            self.tr("The language of the app (Language / 语言)"))
        for action in self.languages.actions():
            action.setChecked(action.data() == i18n.current())

    def set_language(self, code: str) -> None:
        """Switch the app to ``code`` now and next time: core's words in the session are made
        again in it, then every window sets its texts again (Qt's language change)."""
        if code == i18n.current():
            return
        i18n.switch(code, remember=True)
        self.session.reword(plan=not self.pages[PageId.RUN_SETUP].busy)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def open_history(self) -> HistoryWindow:
        """The history window (one, kept while the wizard lives), shown and raised."""
        if self.history_window is None:
            self.history_window = HistoryWindow(self.bridge, self.session.history_path, self)
        self.history_window.show()
        self.history_window.raise_()
        self.history_window.reload()
        return self.history_window

    def open_at(self, page_id: PageId) -> RocPage:
        """Start over at ``page_id``, skipping the pages before it (as the screenshots, the
        scripts that replay or time a run, and the tests open a page), and return that page."""
        self.setStartId(int(page_id))
        self.restart()
        return self.pages[page_id]

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
                    "that finished are kept; the next start of rocmate can resume."),
            self.tr("&Stop and close"), self.tr("&Keep going"))

    def confirm_stop_benchmark(self) -> bool:
        """While a benchmark runs: ask first; Yes cancels it (kept in the history as
        cancelled) and closes the window once the worker has gone."""
        return self._stop_then_close(
            PageId.BENCHMARK, self.tr("A benchmark is running"),
            self.tr("Cancel the benchmark and close? What it measured so far is kept in the "
                    "history as cancelled."),
            self.tr("&Cancel it and close"), self.tr("&Keep running"))

    def _stop_then_close(self, page_id: PageId, title: str, question: str, act: str,
                         keep: str) -> bool:
        """Ask; on ``act`` the page stops its work and closes the window once it has stopped
        (so the close asked for now waits: False)."""
        stop = ask(self, title, question, act, keep)
        page = self.pages[page_id]
        if stop and isinstance(page, (RunSetupPage, BenchmarkPage)):
            page.close_when_stopped = True
            page.stop()
        return False

    def _one_language_choice(self, page: int) -> None:
        """The Welcome page has its own language choice, named in words: the one among the
        wizard's buttons shows on the other pages only (two choices of one thing confuse)."""
        QTimer.singleShot(0, self._language_button_as_page_says)

    def _language_button_as_page_says(self) -> None:
        self.button(QWizard.WizardButton.CustomButton3).setVisible(
            self.currentId() != PageId.WELCOME)

    def _no_back_while_busy(self) -> None:
        """Back is off while the page's work runs (a set-up, a benchmark): leaving the page
        would leave the work behind it, unseen. Decided once QWizard has updated its buttons
        for the change (it enables Back again on each of its updates)."""
        QTimer.singleShot(0, self._back_as_busy_says)

    def _back_as_busy_says(self) -> None:
        page = self.currentPage()
        if isinstance(page, RocPage) and page.busy:
            self.button(QWizard.WizardButton.BackButton).setEnabled(False)

    def _busy_page(self) -> RocPage | None:
        """The page whose work runs now (a set-up, a benchmark), if any."""
        return next((self.pages[p] for p in (PageId.RUN_SETUP, PageId.BENCHMARK)
                     if self.pages[p].busy), None)

    def done(self, result: int) -> None:
        """Finish, Cancel and Esc end here. While a set-up or a benchmark runs: the same
        question as closing the window (:meth:`closeEvent`), and the window closes only once
        the work has stopped, so nothing still runs when the app's loop ends."""
        if self._busy_page() is not None:
            self.close()
            return
        QSettings().setValue("wizard/geometry", self.saveGeometry())
        self.closed.emit()
        super().done(result)

    # -- the keyboard ----------------------------------------------------------------------------

    def _own_buttons(self) -> list[QWidget]:
        return [self.button(b) for b in OWN_BUTTONS]

    def _keyboard_order(self) -> None:
        """Enter is the wizard's (Next, or Finish on the last page), Tab goes through the page
        first and then the wizard's buttons, and a page shown has the focus on its first
        widget. Done again when a page is shown or its work ends (widgets come with results)."""
        page = self.currentPage()
        if page is None:
            return
        for button in page.findChildren(QPushButton):
            button.setAutoDefault(False)  # a focused page button must not take Enter
        self._buttons_last()
        focused = self.focusWidget()
        if focused is None or not focused.isVisible() or not (
                page.isAncestorOf(focused) or focused in self._own_buttons()):
            first = self._first_on(page)
            if first is not None:
                first.setFocus(Qt.FocusReason.TabFocusReason)

    def _focus_chain(self) -> list[QWidget]:
        """Every widget of the window in Tab order (shown or not)."""
        chain: list[QWidget] = []
        widget = self.nextInFocusChain()
        while widget is not None and widget is not self and len(chain) < 10_000:
            chain.append(widget)
            widget = widget.nextInFocusChain()
        return chain

    def _buttons_last(self) -> None:
        """Move the wizard's own buttons to the end of the Tab order, after every widget of
        the pages (QWizard makes its buttons first, and widgets a page adds later go last)."""
        own = self._own_buttons()
        others = [w for w in self._focus_chain() if w not in own]
        if not others:
            return
        previous = others[-1]
        for button in own:
            QWidget.setTabOrder(previous, button)
            previous = button

    def _first_on(self, page: QWidget) -> QWidget | None:
        """The page's first widget that Tab reaches."""
        return next((w for w in self._focus_chain() if page.isAncestorOf(w)
                     and w.isVisible() and w.isEnabled()
                     and w.focusPolicy() & Qt.FocusPolicy.TabFocus), None)

    def focusNextPrevChild(self, next: bool) -> bool:
        self._keyboard_order()
        return super().focusNextPrevChild(next)
