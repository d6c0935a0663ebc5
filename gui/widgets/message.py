"""A line of messages that says its last message again when the app's language changes."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QLabel, QSizePolicy


class MessageLine(QLabel):
    """Shows ``words()`` (see :meth:`say`), made again in the new language on a change."""

    def __init__(self) -> None:
        super().__init__()
        self.words: Callable[[], str] | None = None
        self.setObjectName("message")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                     | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)

    def say(self, words: Callable[[], str] | None) -> None:
        """Show ``words()`` (None: nothing) now and after each language change."""
        self.words = words
        self.setText(words() if words is not None else "")

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange and self.words is not None:
            self.setText(self.words())
        super().changeEvent(event)
