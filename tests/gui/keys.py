"""What a keyboard user does in the tests: keys to the widget that has the focus, and the
answers to the questions the wizard asks (the real message box, its button clicked)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget


def press(qtbot: Any, window: QWidget, key: Qt.Key,
          modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    """``key`` as a user presses it: to the widget with the focus (else the window)."""
    focused = QApplication.focusWidget()
    target = focused if focused is not None and focused.window() is window else window
    qtbot.keyClick(target, key, modifier)


def answer_next_question(answer: QMessageBox.StandardButton, asked: list[str],
                         *, tries: int = 200) -> None:
    """When the next message box opens, note its text in ``asked`` and click ``answer`` (a
    user at the keyboard); gives up after ``tries`` looks 20 ms apart (nothing asked)."""
    def look(left: int) -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox) and box.isVisible():
            asked.append(box.text())
            box.button(answer).click()
        elif left:
            QTimer.singleShot(20, lambda: look(left - 1))

    QTimer.singleShot(0, lambda: look(tries))
