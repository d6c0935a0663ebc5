"""What every page has: its id, the session and the bridge, a busy state that keeps Next
greyed while its work runs, and its texts set again when the app's language changes."""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QLabel, QWizardPage

from gui.bridge import Bridge
from gui.session import Session


class PageId(IntEnum):
    WELCOME = 0
    SYSTEM_CHECK = 1
    SETUP_PLAN = 2
    VERIFY = 3
    WINDOWS_SIDE = 4
    OVERRIDE_TESTER = 5
    RUN_SETUP = 6
    BENCHMARK = 7
    RESULTS = 8


class RocPage(QWizardPage):
    PAGE_ID: PageId

    def __init__(self, session: Session, bridge: Bridge) -> None:
        super().__init__()
        self.session = session
        self.bridge = bridge
        self.busy = False
        self._said: dict[QLabel, Callable[[], str]] = {}
        self.setObjectName(self.PAGE_ID.name.lower().replace("_", "-"))

    def retranslate(self) -> None:
        """Set every text the page shows in the current language: its own words (``tr``) and
        what it shows from the session (core's words, which the session holds in the new
        language by then). A page calls it at the end of ``__init__``; a language change calls
        it again."""

    def say(self, label: QLabel, words: Callable[[], str] | None) -> None:
        """Show ``words()`` in ``label`` (None: clear it), and again after a language change:
        a message made of the page's words and what the page knew when it said it."""
        if words is None:
            self._said.pop(label, None)
            label.clear()
            return
        self._said[label] = words
        label.setText(words())

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            for label, words in self._said.items():
                label.setText(words())
        super().changeEvent(event)

    def set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.completeChanged.emit()
        self.next_changed()

    def next_changed(self) -> None:
        """The page's ``nextId()`` may answer otherwise now (the work that decides it ended):
        the wizard decides again between Next and Finish. QWizard decides that when the page
        is shown and on ``setFinalPage``, never on ``completeChanged``; no page of rocmate is
        final by itself (the last one's ``nextId()`` is -1), so this only asks again."""
        self.setFinalPage(False)

    def isComplete(self) -> bool:
        return not self.busy
