"""The language switch: every window sets all its texts again, its own words and core's.

The app's catalogue here is a pseudo one that wraps every app text in ⟦ ⟧ (made from the code
by lupdate, so it always holds every text), so that a text a page failed to set again stands
out whatever the real translation says. Core's words come from core's real catalogue. Each page,
switched to Chinese while open, must show exactly what it shows when the app starts in Chinese,
and switched back, what it showed before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QSettings
from PySide6.QtWidgets import QWidget

from core import i18n as core_i18n
from core.operations.machine import check_machine
from core.operations.setup import plan_setup, verify_pytorch
from gui import i18n
from gui.pages.base import PageId
from gui.session import Session
from gui.wizard import RocWizard
from tests.gui.texts import OPEN, window_texts

ROOT = Path(__file__).resolve().parents[2]
MACHINES = ROOT / "tests" / "fixtures" / "machines"


def _settle() -> None:
    for _ in range(3):
        QCoreApplication.sendPostedEvents()
        QCoreApplication.processEvents()


def _session(machine: str) -> Session:
    root = str(MACHINES / machine)
    session = Session(root=root)
    session.report = check_machine(root)
    if session.report.verdict != "Not supported":
        session.plan = plan_setup(root)
    session.check = verify_pytorch(root)
    return session


def _open(qtbot: Any, session: Session, page: PageId) -> RocWizard:
    wizard = RocWizard(session)
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.setStartId(int(page))
    wizard.restart()
    _settle()
    return wizard


def _texts(window: QWidget) -> list[str]:
    return sorted(window_texts(window))


def _pages(machine: str) -> list[PageId]:
    session = _session(machine)
    shown = [PageId.WELCOME]
    wizard = RocWizard(session)
    while (following := wizard.page(int(shown[-1])).nextId()) != -1:
        shown.append(PageId(following))
    wizard.deleteLater()
    return shown


P = PageId
MACHINES_PAGES = {  # the pages each machine gets (tests/gui/test_wizard.py says why)
    "rx6600-ubuntu2404-fresh": [P.WELCOME, P.SYSTEM_CHECK, P.SETUP_PLAN, P.RUN_SETUP,
                                P.OVERRIDE_TESTER, P.VERIFY, P.BENCHMARK, P.RESULTS],
    "wsl2-ubuntu2204-rx7900xtx-ready": [P.WELCOME, P.SYSTEM_CHECK, P.WINDOWS_SIDE, P.VERIFY,
                                        P.BENCHMARK, P.RESULTS],
    "nvidia-only-desktop": [P.WELCOME, P.SYSTEM_CHECK],
}
MACHINE_PAGES = [(machine, page) for machine, pages in MACHINES_PAGES.items() for page in pages]


@pytest.mark.parametrize(("machine", "page"), MACHINE_PAGES,
                         ids=[f"{m}-{p.name.lower()}" for m, p in MACHINE_PAGES])
def test_a_page_switched_to_chinese_shows_what_it_shows_when_started_in_chinese(
        qtbot: Any, catalogue: set[str], machine: str, page: PageId) -> None:
    assert page in _pages(machine)
    wizard = _open(qtbot, _session(machine), page)
    english = _texts(wizard)
    wizard.set_language("zh_CN")
    _settle()
    switched = _texts(wizard)
    left = sorted({text for text in switched if text in catalogue and OPEN not in text})
    assert left == [], "texts not set again after the switch"

    started = _open(qtbot, _session(machine), page)  # the language is zh_CN by now
    assert _texts(started) == switched

    wizard.set_language("en")
    _settle()
    assert _texts(wizard) == english


def test_the_choice_on_the_welcome_page_switches_and_is_remembered(
        qtbot: Any, catalogue: set[str]) -> None:
    wizard = _open(qtbot, _session("popos2204-rx6800-ready"), PageId.WELCOME)
    welcome = wizard.pages[PageId.WELCOME]
    combo = welcome.language  # type: ignore[attr-defined]
    combo.setCurrentIndex(combo.findData("zh_CN"))
    _settle()
    assert core_i18n.language() == "zh_CN"
    assert welcome.title() == OPEN + "Welcome to rocmate" + "⟧"
    assert QSettings().value("language") == "zh_CN"
    assert i18n.chosen(None) == "zh_CN"
    assert i18n.chosen("en") == "en"  # --lang wins over the choice kept
    finding = wizard.session.report.findings[0]  # type: ignore[union-attr]
    assert any("\u4e00" <= c <= "\u9fff" for c in finding.title)


def test_a_missing_catalogue_leaves_the_app_in_english(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(i18n, "catalogue_dir", lambda: tmp_path)
    try:
        assert i18n.switch("zh_CN") is False
        assert core_i18n.language() == "en"  # never Chinese findings in English pages
    finally:
        i18n.switch("en")

