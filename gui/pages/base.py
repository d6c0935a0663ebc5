"""What every page has: its id, the session and the bridge, and a busy state that keeps Next
greyed while its work runs."""

from __future__ import annotations

from enum import IntEnum

from PySide6.QtWidgets import QWizardPage

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
        self.setObjectName(self.PAGE_ID.name.lower().replace("_", "-"))

    def set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.completeChanged.emit()

    def isComplete(self) -> bool:
        return not self.busy
