"""Run set-up (a commit page: Back cannot undo what ran): the plan carried out by core's runner —
each step's state in words and marks, the step count and apt/pip percent where known, a bounded
live log (search, copy), one password prompt for the root block, and how it ended: done, log
out and back in, reboot, or failed with the reason and a way to resume.

Stop means "stop after this step": a root step behind pkexec cannot be signalled by the user
(the runner asks the helper through its stdin, and the helper rolls back what it wrote).
Events arrive as the runner emits them; the page takes them in batches on a 40 ms timer, never
one redraw per line.
"""

from __future__ import annotations

import html
import re
from collections import deque
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, QTimer
from PySide6.QtGui import QGuiApplication, QTextDocument
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWizard,
)

from core.install.plan import Plan
from core.install.runner import Runner
from core.operations.errors import OperationError
from core.operations.setup import (
    SetupResult,
    finished_steps,
    prepare_setup,
    replay_refusal,
    run_setup,
)
from gui.bridge import Bridge
from gui.pages.base import PageId, RocPage
from gui.session import Session

LOG_LINES = 5000  # the view keeps the newest lines; the runner's log file keeps every one
LINES_PER_TICK = 200
"""Log lines added to the view per tick (25 ticks a second): 5,000 lines a second leave the GUI
thread free (the view takes about 0.05 ms a line on a 2-core machine, more as a tick's batch
grows). A faster flood is shown as the view catches up; lines it could not keep anyway (older
than its newest LOG_LINES) are skipped. The runner's log file has every line."""
STATUS_WORDS = {
    "waiting": QT_TRANSLATE_NOOP("RunSetupPage", "waiting"),
    "earlier": QT_TRANSLATE_NOOP("RunSetupPage", "done in an earlier run"),
    "start": QT_TRANSLATE_NOOP("RunSetupPage", "running"),
    "done": QT_TRANSLATE_NOOP("RunSetupPage", "done"),
    "unchanged": QT_TRANSLATE_NOOP("RunSetupPage", "done (nothing to change)"),
    "failed": QT_TRANSLATE_NOOP("RunSetupPage", "failed"),
    "skipped": QT_TRANSLATE_NOOP("RunSetupPage", "skipped"),
    "cancelled": QT_TRANSLATE_NOOP("RunSetupPage", "stopped"),
    "not-run": QT_TRANSLATE_NOOP("RunSetupPage", "not run"),
    "not-ticked": QT_TRANSLATE_NOOP("RunSetupPage", "skipped (not ticked)"),
}
"""A step's state in words (the runner's statuses; ``waiting`` before it ran, ``earlier`` done in
an earlier run, ``not-run`` never started by a run that stopped), translated when shown."""
DONE_STATES = ("done", "unchanged", "earlier")
"""The states of a step that Resume would skip."""


def state_text(status: str, error: str = "") -> str:
    """A step's state in the current language, with the runner's error where it gave one."""
    words = STATUS_WORDS.get(status)
    text = QCoreApplication.translate("RunSetupPage", str(words)) if words else status
    if not error:
        return text
    return QCoreApplication.translate("RunSetupPage", "%1: %2").replace("%1", text).replace(
        "%2", error)


MAX_ROWS_SHOWN = 16  # steps the list shows at once; a longer plan scrolls


class RunSetupPage(RocPage):
    PAGE_ID = PageId.RUN_SETUP

    def __init__(self, session: Session, bridge: Bridge) -> None:
        super().__init__(session, bridge)
        self.setCommitPage(True)
        self.steps = QTreeWidget()
        self.steps.setColumnCount(2)
        self.steps.setRootIsDecorated(False)
        self.progress = QProgressBar()
        self.step_progress = QProgressBar()  # the running step's percent, where it prints one
        self.step_progress.setRange(0, 100)
        self.step_progress.setFormat("%p %")
        self.step_progress.hide()
        self.eta = QLabel()
        self.outcome = QLabel()
        self.outcome.setWordWrap(True)
        self.outcome.setTextFormat(Qt.TextFormat.RichText)  # said through tell(): escaped
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(LOG_LINES)
        self.search = QLineEdit()
        self.search.returnPressed.connect(self.find_in_log)
        self.copy_log = QPushButton()
        self.copy_log.clicked.connect(
            lambda: QGuiApplication.clipboard().setText(self.log.toPlainText()))
        self.start_button = QPushButton()
        self.start_button.clicked.connect(lambda: self.start(resume=False))
        self.resume_button = QPushButton()
        self.resume_button.clicked.connect(lambda: self.start(resume=True))
        self.resume_button.hide()
        self.stop_button = QPushButton()
        self.stop_button.clicked.connect(self.stop)
        self.stop_button.setEnabled(False)
        buttons = QHBoxLayout()
        for widget in (self.start_button, self.resume_button, self.stop_button):
            buttons.addWidget(widget)
        buttons.addStretch(1)
        log_row = QHBoxLayout()
        log_row.addWidget(self.search, 1)
        log_row.addWidget(self.copy_log)
        layout = QVBoxLayout(self)
        layout.addWidget(self.steps, 2)
        layout.addWidget(self.progress)
        step_row = QHBoxLayout()
        step_row.addWidget(self.step_progress, 1)
        step_row.addWidget(self.eta)
        layout.addLayout(step_row)
        layout.addWidget(self.outcome)
        layout.addLayout(log_row)
        layout.addWidget(self.log, 3)
        layout.addLayout(buttons)
        self.events: deque[dict[str, Any]] = deque()
        self.pending: deque[str] = deque(maxlen=LOG_LINES)  # log lines not in the view yet
        self.items: dict[str, QTreeWidgetItem] = {}
        self.states: dict[str, tuple[str, str]] = {}
        """Each step's state (a key of STATUS_WORDS or the runner's) and the runner's error."""
        self.plan: Plan | None = None
        """The plan the steps on the page come from (a running set-up keeps its own)."""
        self.runner: Runner | None = None
        self.result: SetupResult | None = None
        self.finished_steps = 0
        self.started_any = False
        """A step of this run started (a run that stops before any changed nothing)."""
        self.percent_from: tuple[float, float] | None = None  # (time, percent) of the first
        self.refused = False
        """Core refused to carry the plan out here (a replayed machine's): Next goes on."""
        self.close_when_stopped = False
        """Set when the window was closed during the run: close it once the runner stops."""
        self.timer = QTimer(self)
        self.timer.setInterval(40)
        self.timer.timeout.connect(self.drain)
        self.earlier_steps: Callable[[Plan], list[str]] = finished_steps
        self.make_runner: Callable[[Plan, Callable[[dict[str, Any]], None], bool], Runner] = (
            lambda plan, emit, resume: prepare_setup(plan, emit, via="pkexec", resume=resume))
        self.retranslate()

    def retranslate(self) -> None:
        """The page's own words again; the steps' titles and states too (a running set-up's
        titles stay those of the plan it runs). The log and the progress stay as they are."""
        self.setTitle(self.tr("Run the set-up"))
        self.setSubTitle(
            self.tr("The plan's steps, as they would run on that machine: a recorded machine's "
                    "plan is shown, never carried out here.") if self.session.root is not None
            else self.tr("The plan's steps, carried out. Root steps ask for the "
                         "administrator's password once."))
        self.setButtonText(QWizard.WizardButton.CommitButton, self.tr("&Next >"))
        self.steps.setHeaderLabels([self.tr("Step"), self.tr("State")])
        self.search.setPlaceholderText(self.tr("Search the log"))
        self.copy_log.setText(self.tr("Copy the &log"))
        self.start_button.setText(self.tr("&Start"))
        self.resume_button.setText(self.tr("&Resume"))
        self.stop_button.setText(self.tr("Stop after this step"))
        fresh, held = self.session.plan, self.plan
        if (not self.busy and fresh is not None and held is not None
                and [s.id for s in fresh.steps] == [s.id for s in held.steps]):
            self.plan = fresh  # the same plan, its titles in the new language
        self._show_steps()
        if self.items:
            self.steps.resizeColumnToContents(0)

    def _show_steps(self) -> None:
        """Each step's title and state, in the current language."""
        for number, step in enumerate(self.plan.steps if self.plan is not None else (),
                                      start=1):
            item = self.items.get(step.id)
            if item is None:
                continue
            who = self.tr(" (root)") if step.privileged else ""
            item.setText(0, f"{number}. {step.title}{who}")
            item.setText(1, state_text(*self.states.get(step.id, ("waiting", ""))))

    def _fit_rows(self) -> None:
        """The step list as tall as its rows (every step shows; no empty band under the last),
        up to MAX_ROWS_SHOWN rows, past which it scrolls. Rows and the list's own frame and
        header are measured, not assumed (a Chinese font's rows are taller than a Latin one's);
        measured again once the page is laid out."""
        tree = self.steps
        count = tree.topLevelItemCount()
        rows = sum(max(tree.sizeHintForRow(i), 1) for i in range(min(count, MAX_ROWS_SHOWN)))
        if tree.isVisible() and tree.viewport().height() > 0:
            chrome = tree.height() - tree.viewport().height()  # frame and header, as drawn
        else:
            chrome = tree.header().sizeHint().height() + 2 * tree.frameWidth()
        height = chrome + rows + 2
        if count > MAX_ROWS_SHOWN:
            height += tree.horizontalScrollBar().sizeHint().height()
        if tree.maximumHeight() != height:
            tree.setMinimumHeight(height)
            tree.setMaximumHeight(height)
            if tree.isVisible():  # the new height changes the chrome's measure: once more
                QTimer.singleShot(0, self._fit_rows)

    def initializePage(self) -> None:
        self.steps.clear()
        self.items = {}
        self.states = {}
        plan = self.plan = self.session.plan
        for step in plan.steps if plan is not None else ():
            item = QTreeWidgetItem(["", ""])
            self.steps.addTopLevelItem(item)
            self.items[step.id] = item
            self.states[step.id] = ("waiting", "")
            if step.consent is False:  # a removal not agreed to on the plan page
                self.states[step.id] = ("not-ticked", "")
        self.progress.setRange(0, max(1, len(self.items)))
        self.progress.setValue(0)
        refusal = replay_refusal(plan) if plan is not None else None
        self.refused = refusal is not None
        self.start_button.setEnabled(plan is not None and not plan.blocked and not refusal)
        if plan is not None and refusal is not None:  # a replay: shown, never carried out
            self.resume_button.hide()
            self._show_steps()
            self.steps.resizeColumnToContents(0)
            self._fit_rows()
            QTimer.singleShot(0, self._fit_rows)  # once laid out, measured as drawn
            self.tell(lambda: replay_refusal(plan) or "")
            return
        done = self.earlier_steps(plan) if plan is not None else []
        for step_id in done:
            self.states[step_id] = ("earlier", "")
        self._show_steps()
        self.steps.resizeColumnToContents(0)
        self._fit_rows()
        QTimer.singleShot(0, self._fit_rows)
        self.resume_button.setVisible(bool(done))
        if done:
            count = len(done)
            self.tell(lambda: self.tr(
                "An earlier run stopped after %n step(s): Resume goes on from there, Start "
                "begins again.", "", count))

    def tell(self, words: Callable[[], str]) -> None:
        """Say ``words()`` in the outcome line (again after a language change): as text, a
        command between backticks shown as code."""
        self.say(self.outcome, lambda: code_spans(words()))

    def start(self, *, resume: bool) -> None:
        """Carry the session's plan out (``resume``: skip what an earlier run finished); a
        plan core refuses to carry out here (a replayed machine's) is refused in words."""
        plan = self.session.plan
        if plan is None:
            return
        try:
            runner = self.make_runner(plan, self.events.append, resume)
        except OperationError as exc:
            refused = str(exc)
            self.start_button.setEnabled(False)
            self.refused = True
            self.tell(lambda: refused)
            self.completeChanged.emit()
            return
        self.set_busy(True)
        self.finished_steps = 0
        self.started_any = False
        self.result = None
        self.tell(lambda: self.tr("Running…"))
        self.start_button.setEnabled(False)
        self.resume_button.hide()
        self.stop_button.setEnabled(True)
        self.runner = runner
        self.timer.start()
        self.bridge.run_async("setup", lambda: run_setup(runner), owner=self,
                              on_done=self._finished, on_failed=self._failed)

    def stop(self) -> None:
        if self.runner is not None:
            self.runner.cancel()
            self.stop_button.setEnabled(False)
            self.tell(lambda: self.tr("Stopping after this step…"))

    def drain(self, everything: bool = False) -> None:
        """Take the events that came since the last tick: states, progress, and log lines
        (at most LINES_PER_TICK of them into the view, unless ``everything``)."""
        lines = self.pending
        while self.events:
            event = self.events.popleft()
            kind = event.get("event")
            if kind == "step":
                self._step(event)
            elif kind == "output":
                lines.append(str(event.get("line", "")))
                self._percent(event)
            elif kind == "progress" and isinstance(event.get("percent"), (int, float)):
                lines.append(f"[{event.get('phase', '')} {float(event['percent']):.0f} %] "
                             f"{event.get('message', '')}")
                self._percent(event)
            elif kind == "stopping":
                lines.append(str(event.get("message", "")))
            elif kind == "done":
                lines.append(self.tr("Done.") if event.get("ok") else
                             self.tr("Stopped: %1").replace("%1", str(event.get("error"))))
                self._done(event)
        count = len(lines) if everything else min(len(lines), LINES_PER_TICK)
        if count:
            self.log.appendPlainText("\n".join(lines.popleft() for _ in range(count)))

    def _percent(self, event: dict[str, Any]) -> None:
        """A step's percent (apt, pip): the bar, and the time left at the pace so far."""
        percent, when = event.get("percent"), event.get("time")
        if not isinstance(percent, (int, float)) or not isinstance(when, (int, float)):
            return
        self.step_progress.show()
        self.step_progress.setValue(int(percent))
        if self.percent_from is None or percent < self.percent_from[1]:
            self.percent_from = (float(when), float(percent))
            self.say(self.eta, None)
            return
        first, now = self.percent_from, (float(when), float(percent))
        self.say(self.eta, lambda: eta_text(first, now))

    def _step(self, event: dict[str, Any]) -> None:
        item = self.items.get(str(event.get("id")))
        status = str(event.get("status"))
        if status == "start":
            self.started_any = True
            self.percent_from = None
            self.step_progress.hide()
            self.say(self.eta, None)
        if item is not None:
            step_id = str(event.get("id"))
            self.states[step_id] = (status, str(event["error"]) if event.get("error") else "")
            item.setText(1, state_text(*self.states[step_id]))
        if status in ("done", "unchanged", "skipped"):
            self.finished_steps += 1
            self.progress.setValue(self.finished_steps)

    def _done(self, event: dict[str, Any]) -> None:
        needs = event.get("needs") or []
        ok, error = bool(event.get("ok")), str(event.get("error"))
        started = self.started_any
        if not ok:
            self._not_run()
            # Resume where it has something to skip; else Start is the way again
            self.resume_button.setVisible(any(
                state in DONE_STATES for state, _error in self.states.values()))
        self.tell(lambda: self._outcome_text(ok, needs, error, started))

    def _not_run(self) -> None:
        """The steps a stopped run never started: "not run", not "waiting" for nothing."""
        for step_id, (state, _error) in self.states.items():
            if state == "waiting":
                self.states[step_id] = ("not-run", "")
        self._show_steps()

    def _outcome_text(self, ok: bool, needs: list[str], error: str,
                      started: bool = True) -> str:
        if ok and "reboot" in needs:
            return self.tr("Done. Restart the computer, then open rocmate again to verify.")
        if ok and needs:
            return self.tr("Done. Log out and back in (the new group counts from the next "
                           "login), then open rocmate again to verify.")
        if ok:
            return self.tr("Done: everything in the plan is in place.")
        reason = error.rstrip(".。")
        if not started:
            return self.tr("Not started: %1. Nothing was changed; Start tries again.") \
                .replace("%1", reason)
        return self.tr("Not finished: %1. What a root step wrote was rolled back; the steps "
                       "that finished are kept, and Resume goes on from there.") \
            .replace("%1", reason)

    def _finished(self, result: object) -> None:
        if isinstance(result, SetupResult):
            self.result = result
            self.drain(everything=True)
            self.timer.stop()
            self.stop_button.setEnabled(False)
            self.start_button.setEnabled(not result.ok)
            self.set_busy(False)
            if self.close_when_stopped:
                self.window().close()

    def _failed(self, message: str, details: str) -> None:
        self.drain(everything=True)
        self.timer.stop()
        self.tell(lambda: message)
        self.stop_button.setEnabled(False)
        self.start_button.setEnabled(True)
        self.set_busy(False)

    def find_in_log(self) -> None:
        text = self.search.text()
        if text and not self.log.find(text):
            self.log.moveCursor(self.log.textCursor().MoveOperation.Start)
            self.log.find(text, QTextDocument.FindFlag(0))

    def isComplete(self) -> bool:
        return not self.busy and (self.result is not None or self.refused)

    def nextId(self) -> int:
        return int(PageId.OVERRIDE_TESTER if self.session.needs_override else PageId.VERIFY)


def code_spans(text: str) -> str:
    """``text`` as Qt rich text: escaped, a `command` between backticks shown as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text, quote=False))


def eta_text(first: tuple[float, float], now: tuple[float, float]) -> str:
    """"about N min left" from two (time, percent) points of one step; "" until it moves."""
    (t0, p0), (t1, p1) = first, now
    if p1 <= p0 or t1 <= t0 or p1 >= 100:
        return ""
    left = (t1 - t0) * (100.0 - p1) / (p1 - p0)
    if left < 60:
        return QCoreApplication.translate("RunSetupPage", "about %1 s left").replace(
            "%1", str(max(1, round(left))))
    return QCoreApplication.translate("RunSetupPage", "about %1 min left").replace(
        "%1", str(round(left / 60)))
