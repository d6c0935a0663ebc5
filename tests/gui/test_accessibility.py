"""Keyboard only, and never colour alone: the wizard is walked with keys, its buttons are on the
Tab chain with mnemonics, findings say their severity in words, and text can be selected with
the keyboard."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton, QWidget

from gui.pages.base import PageId
from gui.wizard import RocWizard
from tests.gui.support import open_wizard


def _wizard(qtbot: Any) -> RocWizard:
    return open_wizard(qtbot, "rx6700xt-ubuntu2204-needs-override")


def _tab_chain(start: QWidget) -> list[QWidget]:
    chain, widget = [], start.nextInFocusChain()
    while widget is not start and len(chain) < 500:
        chain.append(widget)
        widget = widget.nextInFocusChain()
    return chain


def test_the_wizard_is_walked_with_the_keyboard(qtbot: Any) -> None:
    wizard = _wizard(qtbot)
    assert wizard.currentId() == PageId.WELCOME
    qtbot.keyClick(wizard, Qt.Key.Key_Return)  # Next is the default button
    assert wizard.currentId() == PageId.SYSTEM_CHECK
    qtbot.keyClick(wizard, Qt.Key.Key_Return)
    assert wizard.currentId() == PageId.SETUP_PLAN
    qtbot.keyClick(wizard, Qt.Key.Key_Return)
    assert wizard.currentId() == PageId.RUN_SETUP  # there, Next waits until the set-up ran


def test_every_button_is_on_the_tab_chain_and_has_a_mnemonic(qtbot: Any) -> None:
    wizard = _wizard(qtbot)
    wizard.next()
    page = wizard.pages[PageId.SYSTEM_CHECK]
    chain = _tab_chain(wizard)
    copies = 0
    for button in page.findChildren(QPushButton):
        assert button in chain, button.text()
        assert button.focusPolicy() != Qt.FocusPolicy.NoFocus
        if button.objectName() == "copy-command":
            # one per finding: a shared letter would only cycle between them, so they have
            # none and are reached with Tab, inside their finding's card
            copies += 1
            continue
        assert "&" in button.text(), button.text()
    assert copies >= 2  # the machine's fixes have commands to copy


def test_findings_say_their_severity_in_words_and_are_selectable(qtbot: Any) -> None:
    wizard = _wizard(qtbot)
    wizard.next()
    page = wizard.pages[PageId.SYSTEM_CHECK]
    words = ("Problem: ", "Warning: ", "Note: ", "OK: ")
    for card in page.findings.cards:
        labels = card.findChildren(QLabel)
        texts = [label.text() for label in labels if label.text()]
        assert texts and texts[0].startswith(words), texts[0]
        flags = labels[-1].textInteractionFlags()
        assert flags & Qt.TextInteractionFlag.TextSelectableByKeyboard
    assert page.verdict.text()  # the banner says the verdict in words beside its icon
