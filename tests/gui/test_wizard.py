"""The wizard on replayed machines: which pages a machine gets, every finding on screen, the
plan's steps on screen equal to ``rocmate install --dry-run``; the check runs off the GUI
thread through the bridge; the screenshot command renders every page."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QLabel

from core.install.planner import Choices
from core.operations.setup import plan_setup
from gui.pages.base import PageId
from gui.wizard import RocWizard
from tests.gui.support import open_wizard
from tests.waits import call_ends, wait_until

ROOT = Path(__file__).resolve().parents[2]
MACHINES = ROOT / "tests" / "fixtures" / "machines"
REPORTS = ROOT / "tests" / "fixtures" / "reports"


def _wizard(qtbot: Any, machine: str, *, checked: bool = True) -> RocWizard:
    return open_wizard(qtbot, machine, checked=checked)


def _pages(wizard: RocWizard) -> list[PageId]:
    """The pages a user goes through, page by page as each one's Next leads (the run page is
    followed without running anything)."""
    shown = [PageId(wizard.currentId())]
    while (following := wizard.page(int(shown[-1])).nextId()) != -1:
        shown.append(PageId(following))
    return shown


def _reach(wizard: RocWizard, page: PageId) -> None:
    """Go to ``page`` the way the screenshots do (the pages before it are not run)."""
    wizard.setStartId(int(page))
    wizard.restart()


@pytest.mark.parametrize(("machine", "pages"), [
    ("rx6600-ubuntu2404-fresh",  # groups, override and PyTorch to set up
     [PageId.WELCOME, PageId.SYSTEM_CHECK, PageId.SETUP_PLAN, PageId.RUN_SETUP,
      PageId.OVERRIDE_TESTER, PageId.VERIFY, PageId.BENCHMARK, PageId.RESULTS]),
    ("rx6700xt-ubuntu2204-needs-override",
     [PageId.WELCOME, PageId.SYSTEM_CHECK, PageId.SETUP_PLAN, PageId.RUN_SETUP,
      PageId.OVERRIDE_TESTER, PageId.VERIFY, PageId.BENCHMARK, PageId.RESULTS]),
    ("not-in-render-group-ubuntu2204",
     [PageId.WELCOME, PageId.SYSTEM_CHECK, PageId.SETUP_PLAN, PageId.RUN_SETUP,
      PageId.VERIFY, PageId.BENCHMARK, PageId.RESULTS]),
    ("wsl2-ubuntu2204-rx7900xtx-ready",
     [PageId.WELCOME, PageId.SYSTEM_CHECK, PageId.WINDOWS_SIDE, PageId.VERIFY,
      PageId.BENCHMARK, PageId.RESULTS]),
    ("wsl2-ubuntu2404-rx7900xt-nightly-no-hip-gpus",
     [PageId.WELCOME, PageId.SYSTEM_CHECK, PageId.WINDOWS_SIDE, PageId.SETUP_PLAN,
      PageId.RUN_SETUP, PageId.VERIFY, PageId.BENCHMARK, PageId.RESULTS]),
    ("popos2204-rx6800-ready",
     [PageId.WELCOME, PageId.SYSTEM_CHECK, PageId.VERIFY, PageId.BENCHMARK, PageId.RESULTS]),
    ("nvidia-only-desktop",  # no ROCm, but PyTorch sees the card: its benchmarks still run
     [PageId.WELCOME, PageId.SYSTEM_CHECK, PageId.BENCHMARK, PageId.RESULTS]),
    ("no-gpu-aspeed-server", [PageId.WELCOME, PageId.SYSTEM_CHECK]),
])
def test_each_machine_gets_the_pages_it_needs(qtbot: Any, machine: str,
                                              pages: list[PageId]) -> None:
    wizard = _wizard(qtbot, machine)
    assert _pages(wizard) == pages


@pytest.mark.parametrize("machine", ["rx6600-ubuntu2404-fresh",
                                     "rx6700xt-ubuntu2204-needs-override",
                                     "nvidia-only-desktop", "wsl2-ubuntu2204-rx7900xtx-ready",
                                     "ubuntu2004-kernel54-rx7900xtx"])
def test_every_finding_is_on_screen_in_the_doctors_order(qtbot: Any, machine: str) -> None:
    wizard = _wizard(qtbot, machine)
    wizard.next()
    page = wizard.pages[PageId.SYSTEM_CHECK]
    report = wizard.session.report
    assert report is not None
    assert [c.finding_id for c in page.findings.cards] == [f.id for f in report.findings]
    assert page.verdict.accessibleName() == report.verdict
    assert page.gpus.rowCount() == len(report.facts.gpus.gpus)


@pytest.mark.parametrize("machine", ["rx6600-ubuntu2404-fresh",
                                     "rx6700xt-ubuntu2204-needs-override",
                                     "not-in-render-group-ubuntu2204",
                                     "wsl2-ubuntu2404-rx7900xt-nightly-no-hip-gpus"])
def test_the_plans_steps_on_screen_are_install_dry_run(qtbot: Any, machine: str) -> None:
    wizard = _wizard(qtbot, machine)
    _reach(wizard, PageId.SETUP_PLAN)
    page = wizard.pages[PageId.SETUP_PLAN]
    dry_run = subprocess.run([sys.executable, "-m", "core.cli", "install", "--dry-run", "--json",
                              "--root", str(MACHINES / machine)], cwd=ROOT, capture_output=True,
                             text=True, timeout=120, check=True)
    plan = json.loads(dry_run.stdout)
    assert [c.step_id for c in page.steps.cards] == [s["id"] for s in plan["steps"]]
    assert page.strategy.currentData() == plan["strategy"]


def test_a_strategy_chosen_on_the_page_replans(qtbot: Any) -> None:
    machine = "rx6700xt-ubuntu2204-needs-override"
    wizard = _wizard(qtbot, machine)
    _reach(wizard, PageId.SETUP_PLAN)
    page = wizard.pages[PageId.SETUP_PLAN]
    page.strategy.setCurrentIndex(page.strategy.findData("rocm-apt"))
    expected = plan_setup(str(MACHINES / machine), Choices(strategy="rocm-apt"))
    assert [c.step_id for c in page.steps.cards] == [s.id for s in expected.steps]
    root_steps = [s.id for s in expected.steps if s.privileged]
    assert root_steps
    for card in page.steps.cards:
        heading = card.findChildren(QLabel)[0].text()
        assert ("as root" in heading) == (card.step_id in root_steps), heading


def test_the_check_runs_through_the_bridge_and_the_page_waits_for_it(
        qtbot: Any, aloop: Any) -> None:
    wizard = _wizard(qtbot, "rx6700xt-ubuntu2204-needs-override", checked=False)
    page = wizard.pages[PageId.SYSTEM_CHECK]
    with call_ends(qtbot, wizard.bridge, timeout_ms=30_000):
        wizard.next()
        assert page.busy and not page.isComplete()  # Next is greyed while it runs
    qtbot.waitUntil(lambda: page.isComplete())
    assert wizard.session.report is not None
    assert page.findings.cards and "fix" in page.verdict.text()


def test_the_screenshot_command_renders_every_page(tmp_path: Path) -> None:
    out = tmp_path / "shots"
    done = subprocess.run(
        [sys.executable, "-c", "from gui.launcher import main; raise SystemExit(main())", "gui",
         "--root", str(MACHINES / "rx6700xt-ubuntu2204-needs-override"),
         "--screenshot-dir", str(out),
         "--screenshot-report", str(REPORTS / "cpu-tiny-resnet50-train.json"),
         "--screenshot-report", str(REPORTS / "h200-resnet50-train-amp-bf16-cl-bs256.json")],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
        env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen",
             "XDG_STATE_HOME": str(tmp_path / "state")})
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "01-welcome.png", "02-system-check.png", "03-setup-plan.png", "04-run-setup.png",
        "05-override-tester.png", "06-verify.png", "07-benchmark.png",
        "08-benchmark-graphs.png", "09-results.png", "10-history.png", "11-compare.png"]
    assert all(p.stat().st_size > 10_000 for p in out.iterdir())


def test_verify_shows_what_a_replayed_machine_recorded(qtbot: Any) -> None:
    wizard = _wizard(qtbot, "popos2204-rx6800-ready")
    _reach(wizard, PageId.VERIFY)
    page = wizard.pages[PageId.VERIFY]
    check = wizard.session.check
    assert check is not None and check.replayed
    assert len(page.rows) == len(check.lines)
    assert [line.ok for line in check.lines][-1] is None  # no GPU computation is replayed
    # nothing failed, but nothing ran on the card: not "works" (issue 32: not yet proved)
    assert not check.proved
    assert "computations on the card are not checked yet" in page.summary.text()
    assert "PyTorch works on the card" not in page.summary.text()


def test_verify_runs_pytorch_for_real_in_another_python(qtbot: Any, aloop: Any) -> None:
    """This machine's test Python (torch, no GPU): green version, red 'no GPU' with a fix."""
    wizard = _wizard(qtbot, "popos2204-rx6800-ready")
    wizard.session.root = None
    wizard.session.python = sys.executable
    wizard.session.check = None
    _reach(wizard, PageId.VERIFY)
    page = wizard.pages[PageId.VERIFY]
    wait_until(qtbot, page.isComplete, ended=lambda: not page.busy,
               said=lambda: page.summary.text(), timeout_ms=120_000, what="PyTorch's answer")
    check = wizard.session.check
    assert check is not None and not check.replayed and not check.ok
    names = {line.name: line for line in check.lines}
    assert names["PyTorch"].ok and names["GPU visible (torch.cuda.is_available())"].ok is False
    assert "system check" in names["GPU visible (torch.cuda.is_available())"].fix
    assert "Not yet" in page.summary.text()


def test_the_windows_side_shows_what_windows_has(qtbot: Any) -> None:
    wizard = _wizard(qtbot, "wsl2-ubuntu2204-rx7900xtx-ready")
    _reach(wizard, PageId.WINDOWS_SIDE)
    page = wizard.pages[PageId.WINDOWS_SIDE]
    report = wizard.session.report
    assert report is not None and report.facts.windows is not None
    shown = [page.gpus.item(r, 0).text() for r in range(page.gpus.rowCount())]
    assert shown == [g.name for g in report.facts.windows.gpus]
    assert "wsl-windows-driver" in [c.finding_id for c in page.findings.cards]
    assert "wsl --shutdown" in page.steps.text()


STANDIN = str(ROOT / "tests" / "fixtures" / "standin" / "override-python")


def test_the_override_tester_tries_each_value_in_a_real_process(qtbot: Any, aloop: Any) -> None:
    """An RX 6700 XT's values (10.3.0, then none) through the stand-in Python: 10.3.0 works."""
    wizard = _wizard(qtbot, "rx6700xt-ubuntu2204-needs-override")
    _reach(wizard, PageId.OVERRIDE_TESTER)
    page = wizard.pages[PageId.OVERRIDE_TESTER]
    assert not page.start_button.isEnabled()  # a replay runs nothing
    wizard.session.root, wizard.session.python = None, STANDIN  # as on the machine itself
    with call_ends(qtbot, wizard.bridge, timeout_ms=60_000):
        page.start()
        assert not page.isComplete()
    assert [(t.value, t.outcome) for t in page.trials] == [("10.3.0", "works"), (None, "no-gpu")]
    assert len(page.row_widgets) == 2
    assert page.result.text() == "Keep HSA_OVERRIDE_GFX_VERSION=10.3.0."
    assert page.isComplete() and page.keep_button.isVisibleTo(page)


def test_the_kept_value_is_written_into_the_environment(qtbot: Any, aloop: Any,
                                                        tmp_path: Path) -> None:
    from core.operations.setup import keep_override
    from core.probe.override_trial import Trial

    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    for name in ("activate", "activate.fish", "activate.csh"):
        (venv / "bin" / name).write_text("# activation\n")
    machine = str(MACHINES / "rx6700xt-ubuntu2204-needs-override")
    wizard = _wizard(qtbot, "rx6700xt-ubuntu2204-needs-override")
    _reach(wizard, PageId.OVERRIDE_TESTER)
    page = wizard.pages[PageId.OVERRIDE_TESTER]
    page.best = Trial("10.3.0", "works")
    page.keep_override = lambda value, root: keep_override(
        value, machine, venv=str(venv), folder=tmp_path / "state")
    with call_ends(qtbot, wizard.bridge, timeout_ms=60_000):
        page.keep()
    assert "HSA_OVERRIDE_GFX_VERSION-10.3.0" in (venv / "bin" / "rocmate-env.sh").read_text()
    assert page.result.text().startswith("Written into the environment's variables")


def test_the_release_and_package_set_are_choices_on_the_plan_page(qtbot: Any) -> None:
    machine = "rx6600-ubuntu2404-fresh"
    wizard = _wizard(qtbot, machine)
    _reach(wizard, PageId.SETUP_PLAN)
    page = wizard.pages[PageId.SETUP_PLAN]
    assert not page.form.isRowVisible(page.packages)  # pip-only: no package set to choose
    page.strategy.setCurrentIndex(page.strategy.findData("rocm-apt"))
    assert page.form.isRowVisible(page.packages)
    page.packages.setCurrentIndex(page.packages.findData("sdk"))
    plan = wizard.session.plan
    assert plan is not None and plan.strategy == "rocm-apt"
    expected = plan_setup(str(MACHINES / machine), Choices(strategy="rocm-apt",
                                                           package_set="sdk"))
    assert [c.step_id for c in page.steps.cards] == [s.id for s in expected.steps]
    assert any("rocm-hip-sdk" in " ".join(s.argv or ()) for s in expected.steps)
    releases = [page.release.itemData(i) for i in range(page.release.count())]
    assert releases[0] == "" and len(releases) > 1  # the best fit first, then each release


def test_welcome_offers_one_language_choice_and_the_other_pages_theirs(qtbot: Any) -> None:
    """Welcome's own labelled list is its only language choice; from the System check on,
    the wizard's language button is there (issue 31/17: two selectors on Welcome)."""
    from PySide6.QtWidgets import QWizard

    from tests.gui.support import click_next, open_wizard

    wizard = open_wizard(qtbot, "rx6600-ubuntu2404-fresh")

    def shown() -> bool:  # the wizard's language button (asked anew: QWizard may remake it)
        return wizard.button(QWizard.WizardButton.CustomButton3).isVisible()

    assert wizard.currentId() == PageId.WELCOME
    assert wizard.pages[PageId.WELCOME].language.isVisible()  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: not shown(), timeout=2000)
    click_next(qtbot, wizard)
    assert wizard.currentId() == PageId.SYSTEM_CHECK
    qtbot.waitUntil(shown, timeout=2000)
    wizard.back()
    assert wizard.currentId() == PageId.WELCOME
    qtbot.waitUntil(lambda: not shown(), timeout=2000)


def test_re_check_says_that_it_ran_and_what_changed(qtbot: Any, aloop: Any) -> None:
    """Re-check answers in words under the findings: when it ran, and whether anything
    changed since the check before (issue 31/17: it gave no sign that it ran)."""
    from PySide6.QtCore import Qt

    from core.operations.machine import check_machine
    from gui.pages.base import PageId
    from tests.gui.support import MACHINES, click_next, open_wizard

    wizard = open_wizard(qtbot, "rx6600-ubuntu2404-fresh")
    click_next(qtbot, wizard)
    page = wizard.pages[PageId.SYSTEM_CHECK]
    qtbot.waitUntil(lambda: not page.busy, timeout=60_000)
    assert page.message.text() == ""  # type: ignore[attr-defined]
    qtbot.mouseClick(page.recheck, Qt.MouseButton.LeftButton)  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: "Checked again at" in page.message.text(),  # type: ignore
                    timeout=60_000)
    assert "the same as before" in page.message.text()  # type: ignore[attr-defined]
    # the check before found other things (another machine's): the words count them
    wizard.session.report = check_machine(str(MACHINES / "rx7900xtx-ubuntu2404-ready"))
    qtbot.mouseClick(page.recheck, Qt.MouseButton.LeftButton)  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: "fixed since" in page.message.text(), timeout=60_000)  # type: ignore
    assert "0 fixed since," in page.message.text()  # type: ignore[attr-defined]
    assert " 0 new" not in page.message.text()  # type: ignore[attr-defined]


def test_the_windows_side_names_its_pages_as_links(qtbot: Any) -> None:
    """The pages the Windows steps name are links the browser opens (issue 31/17: "AMD's
    ROCm-on-WSL page" was words only), in both languages."""
    from PySide6.QtCore import QCoreApplication

    from gui import i18n
    from gui.pages.base import PageId
    from tests.gui.support import open_wizard

    wizard = open_wizard(qtbot, "wsl2-ubuntu2204-rx7900xtx-ready")
    page = wizard.pages[PageId.WINDOWS_SIDE]
    wizard.setStartId(int(PageId.WINDOWS_SIDE))
    wizard.restart()
    links = page.links  # type: ignore[attr-defined]
    assert links.isVisible() and links.openExternalLinks()
    for url in ("https://rocm.docs.amd.com/projects/radeon-ryzen/",
                "https://github.com/ROCm/librocdxg"):
        assert f'<a href="{url}' in links.text()
    try:
        i18n.switch("zh_CN")
        QCoreApplication.processEvents()  # the language change reaches the page
        assert "librocdxg" in links.text() and "AMD" in links.text()
        assert "Windows driver" not in links.text()
    finally:
        i18n.switch("en")


def test_how_to_fix_it_copies_the_command_alone(qtbot: Any) -> None:
    """A fix's commands are one click from the clipboard, without the sentence around them;
    where a fix names rocmate's own command, the card says where the app does the same
    (issue 31/17)."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication

    from gui.pages.base import PageId
    from gui.widgets.findings import FindingCard
    from tests.gui.support import click_next, open_wizard

    wizard = open_wizard(qtbot, "rx6600-ubuntu2404-fresh")
    click_next(qtbot, wizard)
    page = wizard.pages[PageId.SYSTEM_CHECK]
    cards = {c.finding_id: c for c in page.findChildren(FindingCard)}
    group = cards["not-in-render-group"]
    assert group.copy_button is not None and group.copy_button.text() == "Copy the command"
    qtbot.mouseClick(group.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == "sudo usermod -aG render,video $USER"
    assert group.copy_button.text() == "Copied"
    torch = cards["torch-missing"]
    assert torch.app_way is not None and "In this app" in torch.app_way.text()


def test_a_target_newer_than_the_tables_reads_in_words(qtbot: Any, tmp_path: Path) -> None:
    """The System check's table says a gfx target newer than rocmate's tables is "newer than
    rocmate knows", not the raw status "unknown" (issue 32, item 3). The recorded 780M laptop,
    its KFD node saying gfx1170 (a target after the tables), as in the core test."""
    import re
    import shutil

    from core.operations.machine import check_machine
    from gui.pages.base import PageId
    from gui.session import Session
    from gui.wizard import RocWizard
    from tests.gui.support import MACHINES, click_next

    root = tmp_path / "machine"
    shutil.copytree(MACHINES / "phoenix-780m-arch-laptop", root, symlinks=True)
    props = root / "files/sys/devices/virtual/kfd/kfd/topology/nodes/1/properties"
    props.write_text(re.sub(r"gfx_target_version \d+", "gfx_target_version 110700",
                            props.read_text()))
    session = Session(root=str(root))
    session.report = check_machine(str(root))
    wizard = RocWizard(session)
    qtbot.addWidget(wizard)
    wizard.show()
    click_next(qtbot, wizard)
    table = wizard.pages[PageId.SYSTEM_CHECK].gpus  # type: ignore[attr-defined]
    assert table.item(0, 1).text() == "gfx1170"
    assert table.item(0, 3).text() == "newer than rocmate knows"


def test_a_windows_side_check_that_fails_frees_the_page_and_says_why(
        qtbot: Any, aloop: Any, tmp_path: Path) -> None:
    """Re-check on the Windows side that cannot finish (its recorded machine gone) says so and
    leaves the page usable; it stayed busy for good, Next grey and nothing said (issue 38)."""
    import shutil

    from PySide6.QtCore import Qt

    from core.operations.machine import check_machine
    from gui.pages.base import PageId
    from gui.session import Session
    from gui.wizard import RocWizard
    from tests.gui.support import MACHINES

    root = tmp_path / "machine"
    shutil.copytree(MACHINES / "wsl2-ubuntu2204-rx7900xtx-ready", root, symlinks=True)
    session = Session(root=str(root))
    session.report = check_machine(str(root))
    wizard = RocWizard(session)
    qtbot.addWidget(wizard)
    wizard.setStartId(int(PageId.WINDOWS_SIDE))
    wizard.show()
    page = wizard.pages[PageId.WINDOWS_SIDE]
    shutil.rmtree(root)
    qtbot.mouseClick(page.recheck, Qt.MouseButton.LeftButton)  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: not page.busy, timeout=30_000)
    assert page.message.text().startswith("The check could not finish: ")  # type: ignore
    assert "no snapshot folder" in page.message.text()  # type: ignore[attr-defined]
    assert page.isComplete()


def test_the_system_check_says_the_driver_did_not_start_a_gpu(qtbot: Any) -> None:
    """The GPU table does not call a GPU the driver did not start "official" (the MI210s of
    ROCm/legacy-rocm-build#6281, issue 32 item 2)."""
    from gui.pages.base import PageId
    from tests.gui.support import click_next, open_wizard

    wizard = open_wizard(qtbot, "mi210-x2-probe-failed-error12")
    click_next(qtbot, wizard)
    table = wizard.pages[PageId.SYSTEM_CHECK].gpus  # type: ignore[attr-defined]
    assert table.item(0, 3).text() == "the driver did not start it (official once it does)"
