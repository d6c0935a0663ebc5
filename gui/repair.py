"""Repair an app's PyTorch in place (issue 34): the window shows what core.operations.repair
returns — the plan (what is replaced, from which index, the record kept before anything
changes), Start with its progress, the kernel check of the doctor run in that Python after,
Roll back, and the earlier repairs. It decides nothing itself.

On a replayed machine the plan is only shown: Start, Roll back and the history (this
computer's) are not offered, and nothing of this computer is read or changed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, Qt
from PySide6.QtWidgets import (
    QDialog,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.diagnose.doctor import DoctorReport
from core.install.plan import Plan
from core.operations.errors import OperationError
from core.operations.machine import check_machine
from core.operations.repair import (
    RepairRecord,
    list_repairs,
    plan_repair,
    prepare_repair,
    rollback_plan,
)
from core.operations.setup import replay_refusal
from gui.bridge import Bridge
from gui.widgets.findings import selectable_label

Done = Callable[[Any], None]
Failed = Callable[[str], None]
KERNEL_IDS = ("kernel-check-ok", "kernel-check-not-run", "kernel-check-no-kernels",
              "kernel-check-crashed", "kernel-check-hung", "kernel-check-wrong",
              "kernel-check-failed", "torch-ok", "torch-not-rocm", "torch-no-gpu",
              "torch-arch-missing", "torch-missing")
"""The doctor's findings that say how PyTorch did in that Python (shown after a repair)."""


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


class RepairDialog(QDialog):
    """Non-modal; one per Python. ``root``: a replayed machine (the plan is only shown)."""

    def __init__(self, root: str | None, python: str, name: str, bridge: Bridge,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("repair")
        self.root, self.python, self.name, self.bridge = root, python, name, bridge
        self.plan: Plan | None = None
        self.refused: str | None = None
        self.records: list[RepairRecord] = []
        self.after: DoctorReport | None = None
        self.running = False
        self.done_steps: set[str] = set()
        self.calls: dict[str, tuple[Done, Failed]] = {}
        bridge.finished.connect(self._finished)
        bridge.failed.connect(self._failed)

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
        plan_area = QScrollArea()
        plan_area.setWidgetResizable(True)
        plan_area.setFrameShape(QFrame.Shape.NoFrame)
        plan_area.setWidget(plan_page)
        QVBoxLayout(self.plan_box).addWidget(plan_area)
        self.replay_note = selectable_label("", bold=True)  # a replay: the plan is only shown
        self.replay_note.setObjectName("repair-replay")
        self.replay_note.setVisible(False)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.state = selectable_label("")
        self.state.setObjectName("repair-state")
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(2000)
        self.log.setVisible(False)
        self.history_box = QGroupBox()
        self.history = QTreeWidget()
        self.history.setColumnCount(3)
        self.history.setRootIsDecorated(False)
        self.history.setObjectName("repair-history")
        self.history.setMaximumHeight(140)
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
        layout.addWidget(self.plan_box, 3)
        layout.addWidget(self.replay_note)
        layout.addWidget(self.progress)
        layout.addWidget(self.state)
        layout.addWidget(self.log, 2)
        layout.addWidget(self.history_box)
        layout.addLayout(buttons)
        self.resize(820, 640)
        self.retranslate()

    # -- background calls, each with its own callbacks -----------------------------------------

    def call(self, key: str, fn: Callable[..., Any], *args: Any, on_done: Done,
             on_failed: Failed, **kwargs: Any) -> None:
        """``fn`` in the bridge's worker thread; ``on_done(result)`` or ``on_failed(line)`` on
        the GUI thread."""
        key = f"repair:{id(self)}:{key}"
        self.calls[key] = (on_done, on_failed)
        self.bridge.start(key, fn, *args, **kwargs)

    def call_async(self, key: str, make: Callable[[], Any], *, on_done: Done,
                   on_failed: Failed) -> None:
        key = f"repair:{id(self)}:{key}"
        self.calls[key] = (on_done, on_failed)
        self.bridge.start_async(key, make)

    def _finished(self, key: str, result: object) -> None:
        callbacks = self.calls.pop(key, None)
        if callbacks is not None:
            callbacks[0](result)

    def _failed(self, key: str, message: str, details: str) -> None:
        callbacks = self.calls.pop(key, None)
        if callbacks is not None:
            callbacks[1](message)

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
        self.start_button.setText(self.tr("&Start the repair"))
        self.rollback_button.setText(self.tr("Roll &back"))
        self.close_button.setText(self.tr("&Close"))
        self.show_plan()
        self.show_history()
        self.show_after()

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
        self.state.setText(self.tr("Reading the environment…"))
        self.start_button.setEnabled(False)
        self.rollback_button.setEnabled(False)
        self.call("plan", plan_repair, self.root, self.python, on_done=self._planned,
                  on_failed=self._refused)
        if self.root is None:
            self.call("history", list_repairs, self.python, on_done=self._history,
                      on_failed=lambda message: self.history_note.setText(message))

    def load_now(self) -> None:
        """The plan and the history at once, on the GUI thread (for the screenshots: there is
        no one to wait for)."""
        try:
            self._planned(plan_repair(self.root, self.python))
        except OperationError as exc:
            self._refused(str(exc))
        if self.root is None:
            self._history(list_repairs(self.python))

    def _planned(self, plan: object) -> None:
        if isinstance(plan, Plan):
            self.plan, self.refused = plan, None
            self.state.setText("")
            self.show_plan()

    def _refused(self, message: str) -> None:
        self.plan, self.refused = None, message
        self.state.setText("")
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
                                               self.action_words(change.action)])
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
        self.replay_note.setText(refusal or "")
        self.replay_note.setVisible(refusal is not None)
        self.start_button.setEnabled(plan is not None and refusal is None and not self.running
                                     and not plan.blocked)
        self.start_button.setToolTip(self.tr("A replayed machine's plan is only shown")
                                     if refusal is not None else "")

    def show_history(self) -> None:
        self.history.clear()
        self.history.setVisible(self.root is None)
        if self.root is not None:
            self.history_note.setText(self.tr("The repairs of a replayed machine are kept on "
                                              "that machine; none is shown here."))
            self.rollback_button.setEnabled(False)
            return
        for record in self.records:
            torch = f"{record.torch_before or '?'} → {record.torch_after or '?'}"
            QTreeWidgetItem(self.history, [record.time, torch, self.state_words(record.state)])
        for column in range(3):
            self.history.resizeColumnToContents(column)
        self.history_note.setText("" if self.records else self.tr("None yet."))
        self.rollback_button.setEnabled(bool(self.records) and not self.running)

    # -- carrying it out ----------------------------------------------------------------------

    def start(self) -> None:
        if self.plan is not None:
            self._run(self.plan, rollback=False)

    def roll_back(self) -> None:
        self.call("rollback-plan", rollback_plan, self.root, self.python,
                  on_done=lambda plan: self._run(plan, rollback=True)
                  if isinstance(plan, Plan) else None,
                  on_failed=self.state.setText)

    def _run(self, plan: Plan, *, rollback: bool) -> None:
        self.running = True
        self.after = None
        self.start_button.setEnabled(False)
        self.rollback_button.setEnabled(False)
        self.progress.setRange(0, max(1, len(plan.steps)))
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.log.clear()
        self.log.setVisible(True)
        self.state.setText(self.tr("Rolling back…") if rollback else self.tr("Repairing…"))
        self.done_steps = set()
        try:  # the runner's events come on the GUI thread (it runs on the qasync loop)
            runner = prepare_repair(plan, self._event)
        except OperationError as exc:
            self._ran(False, rollback, str(exc))
            return
        self.call_async("run", runner.run, on_done=lambda ok: self._ran(bool(ok), rollback),
                        on_failed=lambda message: self._ran(False, rollback, message))

    def _event(self, event: dict[str, Any]) -> None:
        """One of the runner's events: a step's state (the bar), its output (the log)."""
        kind = event.get("event")
        if kind == "step" and event.get("status") in ("done", "unchanged", "failed"):
            self.done_steps.add(str(event.get("id")))
            self.progress.setValue(min(len(self.done_steps), self.progress.maximum()))
        if kind == "output" and event.get("line"):
            self.log.appendPlainText(str(event["line"]))
        elif kind == "step" and event.get("status") == "start":
            self.log.appendPlainText(f"== {event.get('title') or event.get('id')}")

    def _ran(self, ok: bool, rollback: bool, message: str = "") -> None:
        self.running = False
        self.progress.setValue(self.progress.maximum() if ok else self.progress.value())
        if rollback:
            self.state.setText(self.tr("Rolled back.") if ok else
                               self.tr("The roll back failed: %1").replace("%1", message or
                                                                         self.tr("see the log")))
        else:
            self.state.setText(self.tr("Repaired. Checking PyTorch on the card in that Python…")
                               if ok else self.tr("The repair failed and was rolled back: %1")
                               .replace("%1", message or self.tr("see the log")))
        if ok:
            self.call("after", check_machine, None, python=self.python,
                      on_done=self._checked, on_failed=self.state.setText)
        self.load()

    def _checked(self, report: object) -> None:
        if isinstance(report, DoctorReport):
            self.after = report
            self.show_after()

    def show_after(self) -> None:
        """The doctor's kernel check in the repaired Python, in its own words."""
        report = self.after
        if report is None:
            return
        said = [f for f in report.findings if f.id in KERNEL_IDS]
        lines = [self.tr("PyTorch in that Python, checked after the change:")]
        lines += [f"- {f.title}" for f in said]
        self.state.setText("\n".join(lines))
        self.state.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
