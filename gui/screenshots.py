"""``rocmate gui --screenshot-dir OUT``: every page of the wizard on the (replayed) machine,
rendered to ``OUT/<nn>-<page>.png``, then the History and Compare windows (docs/contracts.md,
"GUI screenshots").

The doctor and the plan are computed first (synchronously: there is no one to wait for), then
each page is shown as a user reaches it and grabbed. With ``--screenshot-report FILE`` the
Benchmark page's graphs hold the first report's last run (a recorded run: nothing is measured),
the Results page shows it, and the reports fill a throwaway history for History and Compare."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEventLoop
from PySide6.QtWidgets import QApplication, QWidget

from core.operations.errors import OperationError
from core.operations.machine import check_machine
from core.operations.setup import plan_facts, plan_setup, verify_pytorch
from core.report.history import HistoryEntry
from core.report.model import from_json
from gui.bridge import Bridge
from gui.pages.base import PageId
from gui.session import Session


def render_pages(app: QApplication, session: Session, out: Path,
                 reports: list[Path] | None = None) -> int:
    from gui.history import HistoryWindow
    from gui.memory import MemoryDialog, has_apu
    from gui.pages.benchmark import BenchmarkPage
    from gui.wizard import RocWizard

    reports = reports or []
    out.mkdir(parents=True, exist_ok=True)
    session.report = check_machine(session.root, python=session.python)
    try:
        session.plan = plan_setup(session.root,
                                  facts=plan_facts(session.root, report=session.report))
    except OperationError as exc:
        session.plan_error = str(exc)
    session.check = verify_pytorch(session.root, session.python)
    shown = from_json(reports[0].read_text(encoding="utf-8")) if reports else None
    session.bench_report = shown
    with tempfile.TemporaryDirectory(prefix="rocmate-shots-") as tmp:
        session.history_path = Path(tmp) / "history.sqlite"
        if reports:
            from gui.history_rows import demo_history

            demo_history(session.history_path, reports)
        wizard = RocWizard(session)
        wizard.resize(900, 720)
        wizard.show()
        number = 1
        page_id: int = int(PageId.WELCOME)
        seen: set[int] = set()
        while page_id != -1 and page_id not in seen:
            seen.add(page_id)
            wizard.setStartId(page_id)  # as a user reaches it (a run page waits at its start)
            wizard.restart()
            page = wizard.currentPage()
            number = _grab(app, wizard, out, number, PageId(page_id).name)
            if page_id == PageId.SYSTEM_CHECK and session.report is not None \
                    and has_apu(session.report):  # an APU's GPU memory window, beside it
                memory = MemoryDialog(session.report, wizard, root=session.root,
                                      bridge=Bridge(wizard))
                memory.read_now()
                memory.show()
                number = _grab(app, memory, out, number, "gpu-memory")
                if session.root is not None and memory.plan is not None \
                        and memory.plan.steps:  # a change to show (not for every APU)
                    memory.apply()  # a replay: core's refusal, with the change it shows
                    number = _grab(app, memory, out, number, "gpu-memory-apply")
                memory.close()
            if page_id == PageId.SYSTEM_CHECK and session.report is not None \
                    and session.report.apps:  # an app's repair window, beside it
                number = _grab_repair(app, wizard, session, out, number)
            if isinstance(page, BenchmarkPage) and shown is not None:
                page.show_recorded(shown)  # the graphs, as they were at the end of a run
                number = _grab(app, wizard, out, number, "benchmark-graphs")
            page_id = page.nextId()
        history = HistoryWindow(wizard.bridge, session.history_path, wizard)
        history.show()
        history.load_now()
        history.resize(900, 720)
        number = _grab(app, history, out, number, "history")
        pair = _pair([row.entry for row in history.model.rows])
        if pair is not None:
            _wait_for(app, history.bridge, lambda: history.compare_ids(*pair))
            number = _grab(app, history, out, number, "compare")
        history.close()
        wizard.close()
    return 0


def _grab_repair(app: QApplication, wizard: QWidget, session: Session, out: Path,
                 number: int) -> int:
    """The repair window of the first app whose PyTorch cannot reach the card (else the
    first app), its plan read at once."""
    from gui.repair import RepairDialog

    assert session.report is not None
    apps = session.report.apps
    check = next((a for a in apps if a.repairable), apps[0])
    dialog = RepairDialog(session.root, check.env.python, check.env.name, Bridge(wizard),
                          wizard)
    dialog.load_now()
    dialog.show()
    number = _grab(app, dialog, out, number, "repair")
    dialog.close()
    return number


def _pair(entries: list[HistoryEntry]) -> tuple[int, int] | None:
    """Two runs to compare: the first two of one suite, else the first two."""
    ids = sorted(e.id for e in entries)
    for suite in dict.fromkeys(e.suite for e in sorted(entries, key=lambda e: e.id)):
        same = sorted(e.id for e in entries if e.suite == suite)
        if len(same) >= 2:
            return same[0], same[1]
    return (ids[0], ids[1]) if len(ids) >= 2 else None


def _wait_for(app: QApplication, bridge: Bridge, start: Callable[[], None]) -> None:
    """Run what ``start`` hands to the bridge to its end, on a qasync loop of its own."""
    import qasync

    from gui.runtime import use_python_threads

    loop = qasync.QEventLoop(app, already_running=False)
    asyncio.set_event_loop(loop)
    use_python_threads(loop)

    async def until_idle() -> None:
        start()
        await asyncio.sleep(0)
        while bridge.busy():
            await asyncio.sleep(0.02)

    loop.run_until_complete(until_idle())


def _grab(app: QApplication, widget: QWidget, out: Path, number: int, name: str) -> int:
    _settle(app)
    widget.grab().save(str(out / f"{number:02d}-{name.lower().replace('_', '-')}.png"))
    return number + 1


def _settle(app: QApplication) -> None:
    for _ in range(5):
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
    app.processEvents()
