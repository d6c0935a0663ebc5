"""Repair an app's PyTorch in place (issue 34): the window shows what core.operations.repair
returns — the plan (what is replaced, from which index, the record kept before anything
changes), Start with its progress, the kernel check of the doctor run in that Python after,
Roll back, and the earlier repairs. It decides nothing itself.

On a replayed machine the plan is only shown: Start, Roll back and the history (this
computer's) are not offered, and nothing of this computer is read or changed."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QSize, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QDialog,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.diagnose.doctor import DoctorReport, reword
from core.install.plan import Plan
from core.operations.errors import OperationError
from core.operations.repair import (
    AfterRepair,
    RepairRecord,
    check_after_repair,
    list_repairs,
    plan_repair,
    prepare_repair,
    rollback_plan,
)
from core.operations.setup import replay_refusal
from gui.bridge import Bridge, Call
from gui.calls import OwnCalls
from gui.widgets.findings import selectable_label

KERNEL_PREFIXES = ("kernel-check-", "torch-", "no-gpu")
"""The doctor's findings that say how PyTorch did in that Python (shown after a repair): the
kernel check's, the PyTorch probe's (``torch-probe-failed`` where it could not answer) and
whether there is a GPU at all."""


STATE_WORDS = {
    "recorded": QT_TRANSLATE_NOOP("RepairDialog", "recorded, not finished"),
    "repaired": QT_TRANSLATE_NOOP("RepairDialog", "repaired"),
    "check-failed": QT_TRANSLATE_NOOP("RepairDialog", "repaired; the check on the card failed"),
    "failed-rolled-back": QT_TRANSLATE_NOOP("RepairDialog", "failed, rolled back"),
    "rolled-back": QT_TRANSLATE_NOOP("RepairDialog", "rolled back"),
    "rolled-back-partly": QT_TRANSLATE_NOOP("RepairDialog", "rolled back in part"),
    "rollback-failed": QT_TRANSLATE_NOOP("RepairDialog", "roll back failed"),
}
"""A repair record's state (core.install.repair_record.STATES) in words, in the history list."""


class _FittedArea(QScrollArea):
    """A scroll area that asks for the height set as its maximum (the plan's): its box then
    takes no more room than the plan needs, and scrolls it in a smaller window."""

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(hint.width(), min(self.maximumHeight(), 2000))


class RepairDialog(OwnCalls, QDialog):
    """Non-modal; one per Python. ``root``: a replayed machine (the plan is only shown).
    ``card``: the test seam of :func:`core.operations.repair.plan_repair` (a recorded
    machine's card for this computer's Python); the app never passes it."""

    call_prefix = "repair"

    checked = Signal(object)
    """An :class:`~core.operations.repair.AfterRepair`: the environment checked again after a
    repair or a rollback ended (the System check's apps list shows its row anew)."""

    def __init__(self, root: str | None, python: str, name: str, bridge: Bridge,
                 parent: QWidget | None = None, *, card: str | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("repair")
        self.root, self.python, self.name, self.bridge = root, python, name, bridge
        self.card = card
        self.plan: Plan | None = None
        self.refused: str | None = None
        self.records: list[RepairRecord] = []
        self.after: DoctorReport | None = None
        self.running = False
        self.done_steps: set[str] = set()
        self.step_ids: set[str] = set()
        self.ended: dict[str, Any] | None = None  # the runner's last done event
        self.failed_step: dict[str, Any] | None = None  # the step that failed, with its error
        self.compared: bool | None = None  # pip freeze --all matched the record again
        self.outcome: tuple[bool, bool, str] | None = None  # ok, rollback, message
        self.loading = self.checking = self.rolling_back = False
        self.calls: dict[str, Call] = {}

        self.intro = selectable_label("")
        self.plan_box = QGroupBox()
        self.changes = QTreeWidget()
        self.changes.setColumnCount(4)
        self.changes.setRootIsDecorated(False)
        self.changes.setObjectName("repair-changes")
        self.source = selectable_label("")
        self.record_words = selectable_label("")
        self.notes = selectable_label("")
        self.changes.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        plan_page = QWidget()
        plan_column = QVBoxLayout(plan_page)
        for widget in (self.changes, self.source, self.record_words, self.notes):
            plan_column.addWidget(widget)
        plan_column.addStretch(1)
        self.plan_page = plan_page
        self.plan_area = _FittedArea()
        self.plan_area.setWidgetResizable(True)
        self.plan_area.setFrameShape(QFrame.Shape.NoFrame)
        self.plan_area.setWidget(plan_page)
        QVBoxLayout(self.plan_box).addWidget(self.plan_area)
        self.plan_box.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.replay_note = selectable_label("", bold=True)  # a replay: the plan is only shown
        self.replay_note.setObjectName("repair-replay")
        self.replay_note.setVisible(False)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.state = selectable_label("")
        self.state.setObjectName("repair-state")
        self.check_words = selectable_label("")  # the doctor in that Python, after
        self.check_words.setObjectName("repair-check")
        self.check_words.setVisible(False)
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(2000)
        self.log.setVisible(False)
        self.history_box = QGroupBox()
        self.history = QTreeWidget()
        self.history.setColumnCount(3)
        self.history.setRootIsDecorated(False)
        self.history.setObjectName("repair-history")
        self.history_note = selectable_label("")
        history_column = QVBoxLayout(self.history_box)
        history_column.addWidget(self.history)
        history_column.addWidget(self.history_note)
        self.start_button = QPushButton()
        self.start_button.setObjectName("repair-start")
        self.start_button.clicked.connect(self.start)
        self.rollback_button = QPushButton()
        self.rollback_button.setObjectName("repair-rollback")
        self.rollback_button.clicked.connect(self.roll_back)
        self.close_button = QPushButton()
        self.close_button.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.rollback_button)
        buttons.addStretch(1)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addWidget(self.plan_box, 2)  # as high as the plan (fit_plan), or less
        layout.addWidget(self.replay_note)
        layout.addWidget(self.progress)
        layout.addWidget(self.state)
        layout.addWidget(self.check_words)
        layout.addWidget(self.log, 3)
        layout.addWidget(self.history_box)
        layout.addStretch(0)  # below the rest while the log is hidden, not inside the plan
        layout.addLayout(buttons)
        self.resize(820, 700)
        self.retranslate()

    # -- words ------------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Repair %1's PyTorch").replace("%1", self.name))
        self.intro.setText(self.tr(
            "%2: %1\n\nA repair replaces this environment's PyTorch family (torch, torchvision, "
            "torchaudio and the like) with the ROCm build for this card, and nothing else. "
            "Before it changes anything, rocmate records the environment, so that Roll back "
            "can put it back.").replace("%1", self.python).replace("%2", self.name))
        self.plan_box.setTitle(self.tr("The plan"))
        self.changes.setHeaderLabels([self.tr("Package"), self.tr("Now"), self.tr("After"),
                                      self.tr("What happens")])
        self.history_box.setTitle(self.tr("Earlier repairs of this Python"))
        self.history.setHeaderLabels([self.tr("When"), self.tr("PyTorch"), self.tr("State")])
        self.rollback_button.setText(self.tr("Roll &back"))
        self.close_button.setText(self.tr("&Close"))
        self.show_plan()
        self.show_history()
        if self.after is not None:  # the doctor's words again, in this language
            self.after = reword(self.after)
        self.show_after()
        self.show_state()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def action_words(self, action: str) -> str:
        return {"replace": self.tr("replaced"), "remove": self.tr("removed"),
                "add": self.tr("added"), "keep": self.tr("kept (no ROCm build known)"),
                "follow": self.tr("follows the new torch")}.get(action, action)

    def state_words(self, state: str) -> str:
        """A record's state (core.install.repair_record.STATES) in words."""
        words = STATE_WORDS.get(state)
        return QCoreApplication.translate("RepairDialog", str(words)) if words else state

    # -- the plan ---------------------------------------------------------------------------

    def load(self) -> None:
        """Ask core for the plan and (on this computer) the history, in the background."""
        self.loading = True
        self.show_state()
        self.start_button.setEnabled(False)
        self.rollback_button.setEnabled(False)
        self.call("plan", plan_repair, self.root, self.python, card=self.card,
                  on_done=self._planned, on_failed=self._refused)
        if self.root is None:
            self.call("history", list_repairs, self.python, on_done=self._history,
                      on_failed=lambda message: self.history_note.setText(message))

    def load_now(self) -> None:
        """The plan and the history at once, on the GUI thread (for the screenshots: there is
        no one to wait for)."""
        try:
            self._planned(plan_repair(self.root, self.python, card=self.card))
        except OperationError as exc:
            self._refused(str(exc))
        if self.root is None:
            self._history(list_repairs(self.python))

    def _planned(self, plan: object) -> None:
        if isinstance(plan, Plan):
            self.plan, self.refused = plan, None
            self.loading = False
            self.show_state()
            self.show_plan()

    def _refused(self, message: str) -> None:
        self.plan, self.refused = None, message
        self.loading = False
        self.show_state()
        self.show_plan()

    def _history(self, records: object) -> None:
        self.records = [r for r in records if isinstance(r, RepairRecord)] \
            if isinstance(records, list) else []
        self.show_history()

    def show_plan(self) -> None:
        """The plan as core made it (or why there is none), in the language now set."""
        self.changes.clear()
        plan, repair = self.plan, getattr(self.plan, "repair", None)
        if self.refused is not None:
            self.source.setText(self.tr("No repair: %1").replace("%1", self.refused))
        elif plan is None or repair is None:
            self.source.setText("")
        else:
            for change in repair.changes:
                QTreeWidgetItem(self.changes, [change.name, change.before or "-",
                                               change.after or "-",
                                               self.tr("already this build")
                                               if change.action == "replace"
                                               and change.before == change.after
                                               else self.action_words(change.action)])
            for column in range(4):
                self.changes.resizeColumnToContents(column)
            rows = sum(self.changes.sizeHintForRow(0) for _ in repair.changes)
            self.changes.setFixedHeight(self.changes.header().sizeHint().height() + rows
                                        + 2 * self.changes.frameWidth() + 4)
            self.source.setText(self.tr("From: %1").replace(
                "%1", repair.index or self.tr("the index each package names")))
            pins = ", ".join(repair.app_pins)
            if pins:
                self.source.setText(self.source.text() + "\n" + self.tr(
                    "The app's own requirements: %1").replace("%1", pins))
        self.changes.setVisible(self.refused is None)
        self.record_words.setText(self.tr(
            "Kept before anything changes: the environment's pip freeze and its PyTorch "
            "family's versions, in rocmate's data folder (repairs/). A repair that fails is "
            "rolled back by itself.") if self.refused is None else "")
        self.notes.setText("\n".join(f"• {note}" for note in plan.notes) if plan is not None
                           else "")
        refusal = replay_refusal(plan) if plan is not None else None
        # the family holds these builds already (after a repair): Start would only reinstall
        self.start_button.setText(self.tr("Re&install these builds")
                                  if plan is not None and plan.nothing_to_do
                                  else self.tr("&Start the repair"))
        self.replay_note.setText(refusal or "")
        self.replay_note.setVisible(refusal is not None)
        self.start_button.setEnabled(plan is not None and refusal is None and not self.running
                                     and not plan.blocked)
        self.start_button.setToolTip(self.tr("A replayed machine's plan is only shown")
                                     if refusal is not None else "")
        self.fit_plan()

    def fit_plan(self) -> None:
        """The plan's box as high as what it holds (no empty area under a short plan); a
        window too small for it scrolls the plan."""
        layout = self.plan_page.layout()
        if layout is None:
            return
        width = max(self.plan_area.viewport().width(), 300)
        height = layout.totalHeightForWidth(width) if layout.hasHeightForWidth() else \
            layout.totalSizeHint().height()
        self.plan_area.setMaximumHeight(max(height, 0) + 2)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_plan()

    def show_history(self) -> None:
        self.history.clear()
        self.history.setVisible(self.root is None and bool(self.records))
        if self.root is not None:
            self.history_note.setText(self.tr("The repairs of a replayed machine are kept on "
                                              "that machine; none is shown here."))
            self.rollback_button.setEnabled(False)
            return
        for record in self.records:
            torch = f"{record.torch_before or '?'} → {record.torch_after or '?'}"
            when = record.time[:16].replace("T", " ")  # 2026-12-05 00:26 (the local time)
            QTreeWidgetItem(self.history, [when, torch, self.state_words(record.state)])
        for column in range(3):
            self.history.resizeColumnToContents(column)
        shown = min(len(self.records), 4)  # as high as its rows (four at most: it scrolls)
        self.history.setFixedHeight(self.history.header().sizeHint().height()
                                    + shown * max(self.history.sizeHintForRow(0), 1)
                                    + 2 * self.history.frameWidth() + 4)
        self.history_note.setText("" if self.records else self.tr("None yet."))
        self.rollback_button.setEnabled(any(r.undoable for r in self.records)
                                        and not self.running)

    # -- carrying it out ----------------------------------------------------------------------

    def start(self) -> None:
        if self.plan is not None:
            self._run(self.plan, rollback=False)

    def roll_back(self) -> None:
        self.call("rollback-plan", rollback_plan, self.root, self.python,
                  on_done=lambda plan: self._run(plan, rollback=True)
                  if isinstance(plan, Plan) else None,
                  on_failed=self._rollback_refused)

    def _rollback_refused(self, message: str) -> None:
        self.outcome = (False, True, message)
        self.ended = {"state": "rollback-failed"}
        self.show_state()

    def _run(self, plan: Plan, *, rollback: bool) -> None:
        self.running = True
        self.after = None
        self.ended = self.failed_step = self.compared = self.outcome = None
        self.check_words.setVisible(False)
        self.start_button.setEnabled(False)
        self.rollback_button.setEnabled(False)
        self.progress.setRange(0, max(1, len(plan.steps)))
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.log.clear()
        self.log.setVisible(True)
        self.rolling_back = rollback
        self.show_state()
        self.done_steps = set()
        self.step_ids = {s.id for s in plan.steps}
        try:  # the runner's events come on the GUI thread (it runs on the qasync loop)
            runner = prepare_repair(plan, self._event)
        except OperationError as exc:
            self._ran(False, rollback, str(exc))
            return
        self.call_async("run", runner.run, on_done=lambda ok: self._ran(bool(ok), rollback),
                        on_failed=lambda message: self._ran(False, rollback, message))

    def _event(self, event: dict[str, Any]) -> None:
        """One of the runner's events: a step's state (the bar), its output (the log), how
        the run ended (the words after it)."""
        kind = event.get("event")
        if kind == "step" and event.get("status") in ("done", "unchanged") \
                and event.get("id") in self.step_ids:  # the plan's steps (not the record's)
            self.done_steps.add(str(event.get("id")))
            self.progress.setValue(min(len(self.done_steps), self.progress.maximum()))
        if kind == "step" and event.get("status") not in ("start", "done", "skipped",
                                                          "unchanged") \
                and self.failed_step is None:
            title = next((s.title for s in (self.plan.steps if self.plan else ())
                          if s.id == event.get("id")), None)
            self.failed_step = {**event, "title": title or event.get("title") or event.get("id")}
        if kind == "output" and event.get("line"):
            self.log.appendPlainText(str(event["line"]))
        elif kind == "step" and event.get("status") == "start":
            self.log.appendPlainText(f"== {event.get('title') or event.get('id')}")
        elif kind == "rollback":
            self.log.appendPlainText("== " + self.tr("Putting the environment back as it was"))
        elif kind == "rollback-check":
            self.compared = bool(event.get("same"))
        elif kind == "done":
            self.ended = event

    def _ran(self, ok: bool, rollback: bool, message: str = "") -> None:
        self.running = False
        self.outcome = (ok, rollback, message)
        self.progress.setValue(self.progress.maximum() if ok else self.progress.value())
        self.checking = self.ended is not None and self.ended.get("state") is not None
        self.show_state()
        if self.checking:  # the environment may differ now: check it again, in that Python
            self.call("after", check_after_repair, self.root, self.python, self.name,
                      on_done=self._checked, on_failed=self._check_failed)
        self.load()

    def outcome_words(self) -> str:
        """How the last repair or rollback ended, from the runner's own events."""
        if self.outcome is None:
            return ""
        ok, rollback, message = self.outcome
        ended = self.ended or {}
        state = str(ended.get("state") or "")
        failed = self.failed_step or {}
        error = str(failed.get("error") or message or ended.get("error") or "") or \
            self.tr("see the log")
        step = str(failed.get("title") or "")
        same = self.tr("pip freeze --all matches the record again.")
        if rollback:
            if state == "rolled-back":
                return self.tr("Rolled back: %1").replace("%1", same)
            if state == "rolled-back-partly":
                return self.tr("Rolled back in part: a recorded build that no index carries "
                               "could not come back (see the log).")
            return self.tr("The roll back failed: %1").replace("%1", error)
        if state == "repaired":
            return self.tr("Repaired: the new builds are in place and the check on the card "
                           "passed.")
        if state == "check-failed":
            return self.tr("The new builds are in place, but the check on the card failed: "
                           "%1\nThey stay until you press Roll back, which puts the recorded "
                           "ones back.").replace("%1", error)
        if state == "failed-rolled-back":
            return self.tr("The repair failed at “%1”: %2\nrocmate put the environment back "
                           "by itself: %3").replace("%1", step or "?").replace(
                               "%2", error).replace("%3", same)
        if state == "rollback-failed":
            return self.tr("The repair failed at “%1”: %2\nPutting the environment back "
                           "failed too: Roll back tries again from the record.").replace(
                               "%1", step or "?").replace("%2", error)
        if ok:
            return self.tr("Done.")
        return self.tr("Nothing was changed: %1").replace("%1", error)

    def show_state(self) -> None:
        """What the window is doing, or how the last run ended, in the language now set."""
        if self.running:
            words = self.tr("Rolling back…") if self.rolling_back else self.tr("Repairing…")
        elif self.outcome is not None:
            words = self.outcome_words()
            if self.checking:
                words += "\n" + self.tr("Checking PyTorch in that Python…")
        elif self.loading:
            words = self.tr("Reading the environment…")
        else:
            words = ""
        self.state.setText(words)

    def _checked(self, after: object) -> None:
        if isinstance(after, AfterRepair):
            self.after = after.report
            self.checking = False
            self.show_state()
            self.show_after()
            self.checked.emit(after)

    def _check_failed(self, message: str) -> None:
        self.checking = False
        self.show_state()
        self.check_words.setText(self.tr("The check after could not run: %1")
                                 .replace("%1", message))
        self.check_words.setVisible(True)

    def show_after(self) -> None:
        """The doctor in that Python after the change, in its own words: the kernel check, or
        why PyTorch could not answer there."""
        report = self.after
        if report is None:
            return
        said = [f for f in report.findings if f.id.startswith(KERNEL_PREFIXES)]
        lines = [self.tr("PyTorch in that Python now (the doctor's check, run in it):")]
        for finding in said:
            lines.append(f"• {finding.title}")
            if finding.id.startswith(("torch-", "kernel-check-")) and \
                    finding.severity == "error" and finding.detail:
                lines.append(f"   {finding.detail}")  # why PyTorch could not answer
        if not said:
            lines.append(f"• {report.verdict}")
        self.check_words.setText("\n".join(lines))
        self.check_words.setVisible(True)
