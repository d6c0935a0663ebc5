"""The Set-up plan page's choices say what they do: an unticked removal is visibly skipped and
never in the shell script; a strategy or release that cannot apply here is greyed out with the
reason, and Next never slips past Run set-up; the remove-old box shows only where it removes
something; TheRock's plan names no empty ROCm, and its ignored release picker is off. Walked
from Welcome through the wizard's own Next, on real recorded machines."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QStandardItemModel
from PySide6.QtWidgets import QComboBox, QWizard

from gui.pages.base import PageId
from gui.pages.setup_plan import SetupPlanPage
from gui.wizard import RocWizard
from tests.gui.support import click_next, open_wizard, walk_to


def _plan_page(qtbot: Any, machine: str) -> tuple[RocWizard, SetupPlanPage]:
    """The wizard on ``machine``, walked from Welcome to the Set-up plan page."""
    wizard = open_wizard(qtbot, machine, checked=False)
    walk_to(qtbot, wizard, PageId.SETUP_PLAN)
    page = wizard.pages[PageId.SETUP_PLAN]
    assert isinstance(page, SetupPlanPage)
    return wizard, page


def _enabled(combo: QComboBox, data: str) -> bool:
    model = combo.model()
    assert isinstance(model, QStandardItemModel)
    item = model.item(combo.findData(data))
    return item is not None and item.isEnabled()


def _card_text(page: SetupPlanPage, step_id: str) -> str:
    card = next(c for c in page.steps.cards if c.step_id == step_id)
    return " ".join(label.text() for label in card.findChildren(type(page.summary)))


def _copied_script(qtbot: Any, page: SetupPlanPage) -> str:
    qtbot.mouseClick(page.copy_script, Qt.MouseButton.LeftButton)
    return QGuiApplication.clipboard().text()


def test_an_unticked_removal_is_skipped_on_the_page_and_absent_from_the_script(
        qtbot: Any, aloop: Any) -> None:
    wizard, page = _plan_page(qtbot, "rocm-multiple-2x-rx7900xtx")
    assert page.remove_old.isVisibleTo(page) and not page.remove_old.isChecked()
    shown = _card_text(page, "remove-old-rocm")
    assert "skipped" in shown.lower() and "tick" in shown.lower(), shown
    assert "apt-get purge" not in _copied_script(qtbot, page)
    page.remove_old.setFocus()
    qtbot.keyClick(page.remove_old, Qt.Key.Key_Space)  # ticked: the removal is in
    assert page.remove_old.isChecked()
    assert "skipped" not in _card_text(page, "remove-old-rocm").lower()
    assert "sudo apt-get purge -y" in _copied_script(qtbot, page)
    qtbot.keyClick(page.remove_old, Qt.Key.Key_Space)  # unticked again: out again
    assert "apt-get purge" not in _copied_script(qtbot, page)
    click_next(qtbot, wizard)
    run = wizard.pages[PageId.RUN_SETUP]
    assert wizard.currentId() == int(PageId.RUN_SETUP)
    assert run.items["remove-old-rocm"].text(1).startswith("skipped")


def test_a_strategy_that_cannot_apply_is_greyed_out_and_next_leads_to_run_setup(
        qtbot: Any, aloop: Any) -> None:
    wizard, page = _plan_page(qtbot, "rx6600-ubuntu2404-fresh")  # native Ubuntu: no WSL
    assert not _enabled(page.strategy, "wsl")
    wsl = page.strategy.findData("wsl")
    assert "WSL 2" in str(page.strategy.itemData(wsl, Qt.ItemDataRole.ToolTipRole))
    page.strategy.setFocus()
    for _ in range(page.strategy.count()):  # the keys pass over what cannot be chosen
        qtbot.keyClick(page.strategy, Qt.Key.Key_Down)
        assert page.strategy.currentData() != "wsl"
    page.strategy.setCurrentIndex(wsl)  # even if it were chosen: Next does not slip past
    assert not wizard.button(QWizard.WizardButton.NextButton).isEnabled()
    assert "WSL 2" in page.message.text()
    page.strategy.setCurrentIndex(page.strategy.findData("pip-only"))
    click_next(qtbot, wizard)
    assert wizard.currentId() == int(PageId.RUN_SETUP)


def test_therock_names_no_empty_rocm_and_its_ignored_release_picker_is_off(
        qtbot: Any, aloop: Any) -> None:
    _wizard, page = _plan_page(qtbot, "rx6600-ubuntu2404-fresh")
    assert page.release.isEnabled()
    assert not _enabled(page.release, "7.14")  # no PyTorch for this card on ROCm 7.14
    page.strategy.setCurrentIndex(page.strategy.findData("therock"))
    assert "ROCm -" not in page.summary.text() and "rocm.nightlies" in page.summary.text()
    assert not page.release.isEnabled() and page.release.toolTip()
    page.strategy.setCurrentIndex(page.strategy.findData("pip-only"))
    assert page.release.isEnabled()


def test_the_remove_old_box_shows_only_where_it_removes_something(
        qtbot: Any, aloop: Any) -> None:
    _wizard, page = _plan_page(qtbot, "rx9070xt-x2-ubuntu2404-rocm711")  # one ROCm, 7.1.1
    assert page.strategy.currentData() == "pip-only"
    assert not page.remove_old.isVisibleTo(page)  # the wheel's ROCm: nothing to remove
    page.strategy.setCurrentIndex(page.strategy.findData("rocm-apt"))
    assert page.remove_old.isVisibleTo(page)  # AMD's 7.2 replaces 7.1.1
