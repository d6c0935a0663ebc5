"""A question whose buttons say what they do ("Delete", "Keep them"), not Yes and No.

The buttons are the message box's standard Yes and No (so a keyboard user's Esc is the safe
answer, and code and tests can find them), with the verbs as their words; the safe answer is
the default.
"""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

YES, NO = QMessageBox.StandardButton.Yes, QMessageBox.StandardButton.No


def ask(parent: QWidget, title: str, question: str, act: str, keep: str) -> bool:
    """Ask ``question``; True when the user chose ``act`` (``keep``, Esc or closing: False)."""
    box = QMessageBox(QMessageBox.Icon.Question, title, question, YES | NO, parent)
    box.button(YES).setText(act)
    box.button(NO).setText(keep)
    box.setDefaultButton(NO)
    box.setEscapeButton(NO)
    return box.exec() == YES
