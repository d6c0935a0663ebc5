"""The wizard with the keyboard: Enter goes on with Next (the System check's first visit
included, whose Next is known only when the check answers), every page's mnemonics are
distinct (English and Chinese), Tab goes through the page before the wizard's own buttons, and
the focus is drawn so that it can be seen."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QGuiApplication, QImage
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QWidget, QWizard

from gui import i18n
from gui.pages.base import PageId
from gui.wizard import RocWizard
from scripts import qt_catalogue
from tests.gui.keys import press
from tests.gui.support import open_wizard

MACHINE = "rx6700xt-ubuntu2204-needs-override"
OWN_BUTTONS = (QWizard.WizardButton.CustomButton1, QWizard.WizardButton.CustomButton2,
               QWizard.WizardButton.CustomButton3, QWizard.WizardButton.BackButton,
               QWizard.WizardButton.NextButton, QWizard.WizardButton.CommitButton,
               QWizard.WizardButton.FinishButton, QWizard.WizardButton.CancelButton)


def _settle() -> None:
    for _ in range(3):
        QCoreApplication.sendPostedEvents()
        QCoreApplication.processEvents()


def _next(qtbot: Any, wizard: RocWizard) -> None:
    qtbot.mouseClick(wizard.button(QWizard.WizardButton.NextButton), Qt.MouseButton.LeftButton)
    _settle()


# -- Enter ----------------------------------------------------------------------------------------

def test_enter_on_the_checks_first_visit_goes_to_the_next_page(qtbot: Any, aloop: Any) -> None:
    wizard = open_wizard(qtbot, MACHINE, checked=False)
    press(qtbot, wizard, Qt.Key.Key_Return)  # Welcome: Next
    assert wizard.currentId() == PageId.SYSTEM_CHECK
    page = wizard.pages[PageId.SYSTEM_CHECK]
    qtbot.waitUntil(page.isComplete, timeout=60_000)
    _settle()
    assert wizard.button(QWizard.WizardButton.NextButton).isVisible()
    assert not wizard.button(QWizard.WizardButton.FinishButton).isVisible()
    press(qtbot, wizard, Qt.Key.Key_Return)
    assert wizard.isVisible() and wizard.currentId() == PageId.SETUP_PLAN


def test_enter_goes_to_next_after_a_page_button_was_used(qtbot: Any) -> None:
    """Re-check (or any page button) pressed with the keyboard keeps no claim on Enter."""
    wizard = open_wizard(qtbot, MACHINE)
    _next(qtbot, wizard)
    page: Any = wizard.pages[PageId.SYSTEM_CHECK]
    page.copy_post.setFocus()
    press(qtbot, wizard, Qt.Key.Key_Space)  # the focused page button, pressed
    press(qtbot, wizard, Qt.Key.Key_Return)
    assert wizard.currentId() == PageId.SETUP_PLAN


# -- mnemonics -------------------------------------------------------------------------------------

def _mnemonic(text: str) -> str | None:
    """The letter after a single & (Qt's rule: && is a plain &)."""
    found = re.search(r"(?<!&)&([^&\s])", text.replace("&&", ""))
    return found.group(1).lower() if found else None


def _mnemonics(wizard: RocWizard) -> dict[str, list[str]]:
    """Every mnemonic the current page offers, with the texts that claim it: visible buttons
    (the page's and the wizard's own) and labels that name a buddy."""
    claims: dict[str, list[str]] = {}
    widgets: list[QWidget] = [*wizard.findChildren(QAbstractButton),
                              *wizard.findChildren(QLabel)]
    for widget in widgets:
        if not widget.isVisibleTo(wizard):
            continue
        if isinstance(widget, QLabel) and widget.buddy() is None:
            continue
        text = widget.text()  # type: ignore[attr-defined]
        letter = _mnemonic(text)
        if letter is not None:
            claims.setdefault(letter, []).append(text)
    return claims


def _walk(qtbot: Any, wizard: RocWizard) -> dict[str, dict[str, list[str]]]:
    """Each page of the recorded machine, reached with Next (the run page's Next needs a
    set-up that ran: the pages after it are shown as the wizard would show them); the
    benchmark with its advanced settings open, and as after a run ("Choose again")."""
    seen: dict[str, dict[str, list[str]]] = {}
    for page_id in (PageId.WELCOME, PageId.SYSTEM_CHECK, PageId.SETUP_PLAN, PageId.RUN_SETUP,
                    PageId.OVERRIDE_TESTER, PageId.VERIFY, PageId.BENCHMARK):
        if wizard.currentId() != page_id:
            if wizard.button(QWizard.WizardButton.NextButton).isEnabled() and \
                    wizard.currentPage().nextId() == page_id:
                _next(qtbot, wizard)
            else:
                wizard.setStartId(int(page_id))
                wizard.restart()
                _settle()
        assert wizard.currentId() == page_id
        if page_id == PageId.BENCHMARK:
            page = wizard.pages[PageId.BENCHMARK]
            page.fold.setChecked(True)  # type: ignore[attr-defined]
            _settle()
            seen["BENCHMARK (settings)"] = _mnemonics(wizard)
            page.show_choices(False)  # type: ignore[attr-defined]
            _settle()
            seen["BENCHMARK (a run shown)"] = _mnemonics(wizard)
        else:
            seen[page_id.name] = _mnemonics(wizard)
    return seen


def _clashes(seen: dict[str, dict[str, list[str]]]) -> list[str]:
    return [f"{page}: Alt+{letter.upper()} = {texts}" for page, claims in seen.items()
            for letter, texts in claims.items() if len(texts) > 1]


@pytest.fixture
def chinese(qapp: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    qt_catalogue.lrelease(qt_catalogue.ts_path("zh_CN"), tmp_path / "rocmate_zh_CN.qm")
    monkeypatch.setattr(i18n, "catalogue_dir", lambda: tmp_path)
    assert i18n.switch("zh_CN")
    yield
    i18n.switch("en")
    _settle()


def test_no_two_things_on_a_page_share_a_mnemonic(qtbot: Any) -> None:
    wizard = open_wizard(qtbot, MACHINE)
    seen = _walk(qtbot, wizard)
    assert _clashes(seen) == []
    assert _mnemonic(wizard.pages[PageId.BENCHMARK].fold.text())  # type: ignore[attr-defined]


def test_no_two_things_on_a_page_share_a_mnemonic_in_chinese(qtbot: Any, chinese: None) -> None:
    wizard = open_wizard(qtbot, MACHINE)
    seen = _walk(qtbot, wizard)
    assert _clashes(seen) == []
    assert "(&" in wizard.pages[PageId.BENCHMARK].fold.text()  # type: ignore[attr-defined]


@pytest.mark.qt_log_ignore(r"^This plugin does not support raise\(\)")  # offscreen
def test_alt_h_opens_the_history_on_the_benchmark_page(qtbot: Any, aloop: Any) -> None:
    wizard = open_wizard(qtbot, MACHINE)
    wizard.open_at(PageId.BENCHMARK)
    _settle()
    page: Any = wizard.pages[PageId.BENCHMARK]
    page.show_choices(False)  # as after a run: "Choose again" is shown
    wizard.activateWindow()  # offscreen: the graphs' native child window took the activation
    _settle()
    assert QApplication.activeWindow() is wizard
    assert QGuiApplication.focusWindow() is wizard.windowHandle()
    press(qtbot, wizard, Qt.Key.Key_H, Qt.KeyboardModifier.AltModifier)
    # a mnemonic clicks its button after a short animation; a clash only moves the focus
    qtbot.waitUntil(lambda: wizard.history_window is not None
                    and wizard.history_window.isVisible(), timeout=3_000)
    assert wizard.history_window is not None
    wizard.history_window.close()


# -- Tab -------------------------------------------------------------------------------------------

def _tab_round(qtbot: Any, wizard: RocWizard) -> list[QWidget]:
    """The widget with the focus on arrival, then those Tab visits, once round."""
    start = QApplication.focusWidget()
    visited: list[QWidget] = [start] if start is not None else []
    for _ in range(80):
        press(qtbot, wizard, Qt.Key.Key_Tab)
        focused = QApplication.focusWidget()
        if focused is None or focused is start:
            break
        visited.append(focused)
    return visited


def _arrive(qtbot: Any, arrival: str) -> RocWizard:
    """The wizard on a page reached with Next: the System check's first visit (its findings
    come with the answer), the plan, the benchmark."""
    if arrival == "first-check":
        wizard = open_wizard(qtbot, MACHINE, checked=False)
        _next(qtbot, wizard)
        qtbot.waitUntil(wizard.pages[PageId.SYSTEM_CHECK].isComplete, timeout=60_000)
    elif arrival == "plan":
        wizard = open_wizard(qtbot, MACHINE)
        _next(qtbot, wizard)
        _next(qtbot, wizard)
        assert wizard.currentId() == PageId.SETUP_PLAN
    else:
        wizard = open_wizard(qtbot, "popos2204-rx6800-ready")
        for _ in range(3):
            _next(qtbot, wizard)
        assert wizard.currentId() == PageId.BENCHMARK
    _settle()
    if QApplication.activeWindow() is None:
        # offscreen only: the graphs' native child window takes the activation, and no
        # window manager gives it back to the window
        wizard.activateWindow()
        _settle()
    return wizard


@pytest.mark.parametrize("arrival", ["first-check", "plan", "benchmark"])
def test_tab_goes_through_the_page_before_the_wizards_buttons(qtbot: Any, aloop: Any,
                                                             arrival: str) -> None:
    wizard = _arrive(qtbot, arrival)
    own = {wizard.button(b) for b in OWN_BUTTONS}
    round_ = _tab_round(qtbot, wizard)
    kinds = ["wizard" if w in own else "page" for w in round_]
    names = [w.text() if isinstance(w, QAbstractButton) else type(w).__name__
             for w in round_]
    assert "page" in kinds and "wizard" in kinds, names
    first_own = kinds.index("wizard")
    assert kinds[0] == "page" and "page" not in kinds[first_own:], names
    assert all(wizard.currentPage().isAncestorOf(w) for w in round_[:first_own]), names
    # with the focus nowhere (a click on the page's background), Tab starts on the page too
    focused = QApplication.focusWidget()
    assert focused is not None
    focused.clearFocus()
    press(qtbot, wizard, Qt.Key.Key_Tab)
    landed = QApplication.focusWidget()
    assert landed is not None and wizard.currentPage().isAncestorOf(landed), \
        landed.text() if isinstance(landed, QAbstractButton) else landed


# -- the focus ring --------------------------------------------------------------------------------

def _pixels(image: QImage) -> set[int]:
    return {image.pixel(x, y) for x in range(image.width()) for y in range(image.height())}


def test_the_focused_button_is_drawn_with_a_clear_ring(qtbot: Any) -> None:
    """The focused button looks different from the same button without the focus, by a
    ring in the highlight colour."""
    wizard = open_wizard(qtbot, MACHINE)
    _next(qtbot, wizard)
    button = wizard.pages[PageId.SYSTEM_CHECK].recheck  # type: ignore[attr-defined]
    wizard.pages[PageId.SYSTEM_CHECK].save_snapshot.setFocus()  # type: ignore[attr-defined]
    _settle()
    plain = button.grab().toImage()
    button.setFocus(Qt.FocusReason.TabFocusReason)
    _settle()
    assert button.hasFocus()
    focused = button.grab().toImage()
    highlight = wizard.palette().highlight().color().rgb()
    ring = [focused.pixel(x, focused.height() // 2) for x in range(3)]
    assert highlight in _pixels(focused) and highlight not in _pixels(plain), ring
