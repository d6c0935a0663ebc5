"""A card past AMD's support reaches its last route in the wizard (issue 33): the System check
says the route is unverified and Next leads to the Set-up plan, which shows the route's caveats
(AMD's words for an Instinct card) and goes on where the plan can be carried out; a plan whose
wheel has no build for the machine's python3 keeps Next off with the reason. A machine with no
route at all (no ROCm target for its card) stays as before: the check is where it ends."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QWizard

from gui.pages.base import PageId
from tests.gui.support import click_next, open_wizard


def test_vega20_reaches_its_last_route_but_its_python_stops_it(qtbot: Any) -> None:
    wizard = open_wizard(qtbot, "vega20-x8-epyc-aspeed")  # checked: the doctor's answer
    click_next(qtbot, wizard)
    check = wizard.pages[PageId.SYSTEM_CHECK]
    assert wizard.session.report is not None
    assert wizard.session.report.verdict == "Not supported"
    assert "last route" in check.verdict.text() and "unverified" in check.verdict.text()
    assert check.benchmark_note.isVisible() and "Set-up plan" in check.benchmark_note.text()
    click_next(qtbot, wizard)
    assert wizard.currentId() == int(PageId.SETUP_PLAN)
    page = wizard.pages[PageId.SETUP_PLAN]
    assert page.summary.text().startswith("⚠ Unverified")
    assert "torch==2.5.1+rocm6.2" in " ".join(wizard.session.plan.torch_packages)
    notes = page.notes.text()
    assert "Known problems" in notes and "maintenance with ROCm 5.7" in notes  # AMD's words
    assert page.strategy.currentText() == "pip-only (last route, unverified)"
    # Ubuntu 18.04's python3 3.6: torch 2.5 has wheels for 3.9-3.12 only
    assert "✗ The system's python3 is 3.6" in page.summary.text()
    assert "3.9-3.12" in page.message.text() and "RELEASE.md" in page.message.text()
    assert not wizard.button(QWizard.WizardButton.NextButton).isEnabled()


def test_mi25_whose_python_fits_goes_on_to_run_set_up(qtbot: Any) -> None:
    wizard = open_wizard(qtbot, "mi25-x7-gfx900")
    click_next(qtbot, wizard)
    assert wizard.currentId() == int(PageId.SYSTEM_CHECK)
    click_next(qtbot, wizard)
    assert wizard.currentId() == int(PageId.SETUP_PLAN)
    page = wizard.pages[PageId.SETUP_PLAN]
    assert page.summary.text().startswith("⚠ Unverified")
    assert "Instinct" in page.notes.text() and "MI100 (gfx908)" in page.notes.text()
    assert wizard.session.plan is not None and not wizard.session.plan.stopped_by
    click_next(qtbot, wizard)  # the user's choice to go on
    assert wizard.currentId() == int(PageId.RUN_SETUP)


def test_a_card_with_no_route_still_ends_at_the_check(qtbot: Any) -> None:
    wizard = open_wizard(qtbot, "lucienne-5700u-proxmox")
    click_next(qtbot, wizard)
    check = wizard.pages[PageId.SYSTEM_CHECK]
    assert wizard.session.report is not None
    assert wizard.session.report.verdict == "Not supported"
    assert check.verdict.text() == "Not supported: see the problems below."
    assert check.nextId() != int(PageId.SETUP_PLAN)
    assert wizard.session.plan is not None and wizard.session.plan.blocked
    if check.nextId() == -1:  # the wizard ends here, as before
        assert not wizard.button(QWizard.WizardButton.NextButton).isVisible()
