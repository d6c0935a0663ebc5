"""GPU memory of an APU (issue 35): what the machine has, what its GPU can use, and how much to
give it for a goal — core's advice (``core.operations.memory``) shown as a form per GPU — and the
change that gives it: Apply… writes rocmate's ttm file through the root helper's ``ttm-limit``
verb (core's runner, as ``rocmate memory apply`` does), after a question that names the file,
the line it writes and what is kept for Undo…, which puts that back (``ttm-restore``). Both take
effect at the next boot: the window then says to restart and open rocmate again, where the
facts say whether the new limit is in force.

On a replayed machine the change is only shown: nothing of this computer is read or changed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from core.diagnose.doctor import DoctorReport
from core.diagnose.memory_advice import MemoryAdvice
from core.i18n import local
from core.install.plan import Plan
from core.install.runner import Emit, Runner
from core.operations.errors import OperationError
from core.operations.memory import (
    MemoryBefore,
    memory_advice,
    memory_before,
    memory_goal,
    plan_memory,
    plan_memory_undo,
    prepare_memory_change,
)
from core.operations.memory_words import (
    explained,
    fact_rows,
    goal_words,
    limit_rows,
    verdict_words,
)
from core.operations.suites import load_table
from gui.bridge import Bridge, Call
from gui.calls import OwnCalls
from gui.widgets.findings import selectable_label

LLM = "llm"  # the goal list's entry for a language model of a size the person gives


def has_apu(report: DoctorReport | None) -> bool:
    """Whether the checked machine has an integrated AMD GPU whose memory rocmate read."""
    return report is not None and any(
        g.memory is not None for g in report.facts.gpus.gpus)


def desktop_runner(plan: Plan, emit: Emit) -> Runner:
    """core's runner for a change, its root step through pkexec (the desktop's password
    prompt), as the set-up's run page starts one."""
    return prepare_memory_change(plan, emit, via="pkexec")


class MemoryDialog(OwnCalls, QDialog):
    """Non-modal; a language change shows the advice again in the new language. ``root``: a
    replayed machine (the change is only shown)."""

    call_prefix = "memory"

    def __init__(self, report: DoctorReport, parent: QWidget | None = None, *,
                 root: str | None = None, bridge: Bridge | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("gpu-memory")
        self.report, self.root = report, root
        self.bridge = bridge if bridge is not None else Bridge(self)
        self.make_runner: Callable[[Plan, Emit], Runner] = desktop_runner
        self.plan: Plan | None = None  # what Apply carries out for the goal chosen
        self.plan_gib: int | None = None
        self.before: MemoryBefore | None = None  # rocmate's ttm file, read in the background
        self.running = False
        self.ended: dict[str, Any] = {}  # the runner's done event
        self.done_steps: set[str] = set()
        self.titles: dict[str, str] = {}  # the running plan's steps, by id
        self.calls: dict[str, Call] = {}
        self.goal = QComboBox()
        self.goal.setObjectName("memory-goal")
        self.goal.addItem("", "max")
        for choice in load_table().choices:
            self.goal.addItem("", choice.key)
        self.goal.addItem("", LLM)
        self.goal_label = QLabel()
        self.goal_label.setBuddy(self.goal)
        self.llm_gb = QDoubleSpinBox()
        self.llm_gb.setRange(0.5, 1024)
        self.llm_gb.setDecimals(1)
        self.llm_gb.setValue(8.0)
        self.llm_gb.setVisible(False)
        self.goal.currentIndexChanged.connect(self.show_advice)
        self.llm_gb.valueChanged.connect(self.show_advice)
        top = QHBoxLayout()
        top.addWidget(self.goal_label)
        top.addWidget(self.goal)
        top.addWidget(self.llm_gb)
        top.addStretch(1)
        self.content = QWidget()
        self.column = QVBoxLayout(self.content)
        self.change_box = QGroupBox()  # what Apply would do, below the advice
        self.change_box.setObjectName("memory-change")
        self.change_words = selectable_label("")
        self.change_words.setObjectName("memory-plan")
        QVBoxLayout(self.change_box).addWidget(self.change_words)
        self.column.addWidget(self.change_box)
        self.column.addStretch(1)  # the groups go above the change
        self.area = area = QScrollArea()
        area.setWidgetResizable(True)
        area.setWidget(self.content)
        self.intro = selectable_label("")
        self.replay_note = selectable_label("", bold=True)  # a replay: the change is only shown
        self.replay_note.setObjectName("memory-replay")
        self.replay_note.setVisible(root is not None)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.state = selectable_label("")
        self.state.setObjectName("memory-state")
        self.state.setStyleSheet("font-weight: bold;")  # how a change ended: the restart
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(500)
        self.log.setMaximumHeight(80)
        self.log.setVisible(False)
        self.apply_button = QPushButton()
        self.apply_button.setObjectName("memory-apply")
        self.apply_button.clicked.connect(self.apply)
        self.undo_button = QPushButton()
        self.undo_button.setObjectName("memory-undo")
        self.undo_button.clicked.connect(self.undo)
        self.undo_button.setVisible(False)
        self.close_button = QPushButton()
        self.close_button.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addWidget(self.apply_button)
        buttons.addWidget(self.undo_button)
        buttons.addStretch(1)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addLayout(top)
        layout.addWidget(area, 1)
        layout.addWidget(self.replay_note)
        layout.addWidget(self.progress)
        layout.addWidget(self.state)
        layout.addWidget(self.log)
        layout.addLayout(buttons)
        self.groups: list[QGroupBox] = []
        self.resize(800, 700)
        self.retranslate()

    # -- words ------------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("GPU memory"))
        self.intro.setText(self.tr(
            "An integrated GPU has no memory of its own: it uses system memory, up to a limit "
            "the kernel sets (GTT). This shows that limit, what to give the GPU for a goal, "
            "and the setting that gives it. Apply… writes that setting (it asks you first, "
            "then for the administrator's password) and Undo… takes it back; either takes "
            "effect after a restart."))
        self.goal_label.setText(self.tr("&Size for:"))
        titles = {c.key: local(c.title) for c in load_table().choices}
        for i in range(self.goal.count()):
            key = self.goal.itemData(i)
            self.goal.setItemText(i, self.tr("The most the machine can safely give")
                                  if key == "max" else self.tr("A language model of (GB):")
                                  if key == LLM else titles.get(key, key))
        self.llm_gb.setSuffix(self.tr(" GB"))
        self.change_box.setTitle(self.tr("What Apply… changes"))
        self.apply_button.setText(self.tr("&Apply…"))
        self.undo_button.setText(self.tr("&Undo…"))
        self.close_button.setText(self.tr("&Close"))
        self.show_advice()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def show_advice(self) -> None:
        """The advice for the goal chosen, a group per integrated GPU (core's words), and the
        plan that gives it."""
        key = self.goal.currentData()
        self.llm_gb.setVisible(key == LLM)
        for group in self.groups:
            self.column.removeWidget(group)
            group.hide()
            group.deleteLater()
        self.plan, self.plan_gib = None, None
        try:
            goal = memory_goal(None if key == LLM else key,
                               self.llm_gb.value() if key == LLM else None)
            report = memory_advice(self.report, goal)
        except OperationError as exc:  # a goal core refuses: said, nothing shown
            self.groups = [self._said(str(exc))]
        else:
            self.groups = [self._group(a) for a in report.advices] or [self._said(self.tr(
                "This machine has no integrated AMD GPU whose memory rocmate could read."))]
            if report.advices:
                self.plan = plan_memory(report, None, self.root)
                self.plan_gib = report.advices[0].target_gib
        for group in self.groups:
            self.column.insertWidget(self.column.count() - 2, group)
            group.show()  # at once, not at the event loop's next turn
        self.show_change()

    def _said(self, text: str) -> QGroupBox:
        group = QGroupBox()
        QVBoxLayout(group).addWidget(selectable_label(text))
        return group

    def _group(self, advice: MemoryAdvice) -> QGroupBox:
        group = QGroupBox(advice.gpu)
        group.setObjectName("memory-gpu")
        column = QVBoxLayout(group)
        form = QFormLayout()  # the facts, the goal, the limits: their values in one column
        for label, value in fact_rows(advice):
            form.addRow(label, selectable_label(value))
        form.addRow(selectable_label(self.tr("Goal: %1").replace("%1", goal_words(advice)),
                                     bold=True))
        for label, value in limit_rows(advice):
            form.addRow(label, selectable_label(value))
        column.addLayout(form)
        verdict = verdict_words(advice)
        if verdict:
            line = selectable_label(verdict, bold=True)
            line.setObjectName("memory-verdict")
            column.addWidget(line)
        for paragraph in explained(advice):
            column.addWidget(selectable_label(paragraph.text))
            if paragraph.source:
                source = selectable_label(self.tr("Source: %1").replace("%1", paragraph.source))
                source.setStyleSheet("color: palette(placeholder-text);")  # quieter than the text
                column.addWidget(source)
        return group

    # -- the change ---------------------------------------------------------------------------

    def kept_words(self, before: MemoryBefore | None) -> str:
        """What an undo after the change puts back, in words."""
        if before is None:
            return self.tr("not read yet")
        gives = before.undo_gives()
        if not gives.existed:
            return self.tr("there is no such file now: Undo removes it again")
        text = "\n".join(f"    {line}" for line in (gives.content or "").strip().splitlines())
        if before.kept is not None:
            return self.tr("what the file held before rocmate first changed it:\n%1").replace(
                "%1", text)
        return self.tr("what the file holds now:\n%1").replace("%1", text)

    def show_change(self) -> None:
        """The plan for the goal chosen (or why there is none), and the buttons that carry a
        change out or take it back."""
        plan = self.plan
        can_change = plan is not None and bool(plan.steps) and not plan.blocked
        if plan is None:
            words = self.tr("Nothing to change for this goal.")
        elif plan.blocked:
            words = self.tr("Nothing can be done: %1").replace("%1", plan.blocked)
        elif not plan.steps:
            words = "\n".join(plan.notes)
        else:
            step = plan.steps[0]
            lines = [step.title, ""]
            if step.file is not None:
                lines += [self.tr("Writes %1 (as root):").replace("%1", step.file.path),
                          *(f"    {line}" for line in (step.file.content or "").splitlines())]
            lines += ["", self.tr("Kept for Undo: %1").replace("%1",
                                                                 self.kept_words(self.before))]
            lines += ["", *(f"• {note}" for note in plan.notes)]
            words = "\n".join(lines)
        self.change_words.setText(words)
        self.replay_note.setText(self.tr(
            "A replayed machine (%1): the change is only shown, and nothing on this computer "
            "is changed. On that machine itself:  rocmate memory apply") if can_change
            else self.tr("A replayed machine (%1): nothing on this computer is changed."))
        self.replay_note.setText(self.replay_note.text().replace("%1", self.root or ""))
        self.apply_button.setEnabled(can_change and not self.running and self.root is None)
        self.apply_button.setToolTip(self.tr("A replayed machine's change is only shown")
                                     if self.root is not None else "")
        kept = self.before is not None and self.before.kept is not None
        self.undo_button.setVisible(kept)
        self.undo_button.setEnabled(kept and not self.running and self.root is None)
        self.goal.setEnabled(not self.running)
        self.llm_gb.setEnabled(not self.running)

    def read_before(self) -> None:
        """rocmate's ttm file and its undo record, read in the background (the window's
        opener starts it, and each change ends with it)."""
        self.call("before", memory_before, self.root, on_done=self._read,
                  on_failed=lambda message: self.state.setText(message))

    def read_now(self) -> None:
        """The same at once, on the GUI thread (for the screenshots: no one waits)."""
        try:
            self._read(memory_before(self.root))
        except OperationError as exc:
            self.state.setText(str(exc))

    def _read(self, before: object) -> None:
        if isinstance(before, MemoryBefore):
            self.before = before
            self.show_change()

    def apply(self) -> None:
        """Ask, naming the file, its new line and what is kept; then carry the plan out."""
        plan = self.plan
        if plan is None or not plan.steps or plan.blocked or self.running:
            return
        if plan.replay is not None:  # core refuses it; no question about a change never made
            self._refused(plan)
            return
        spec = plan.steps[0].file
        path, content = (spec.path, spec.content or "") if spec is not None else ("", "")
        line = "\n".join(x for x in content.splitlines() if not x.startswith("#"))
        question = self.tr(
            "rocmate writes %1 as root (you are asked for the administrator's password), "
            "with rocmate's comment and this line:\n\n%2\n\nThe GPU may then map up to %3 "
            "GiB of system memory, from the next restart.\n\nKept for Undo: %4").replace(
            "%1", path).replace("%2", line).replace("%3", str(self.plan_gib or "?")).replace(
            "%4", self.kept_words(self.before))
        if self._agreed(self.tr("Change the GPU's memory limit?"), question):
            self._run(plan, undo=False)
        else:
            self.state.setText(self.tr("Nothing was changed."))

    def undo(self) -> None:
        """Ask, naming what comes back; then the undo plan (made from the helper's record)."""
        if self.running or self.before is None or self.before.kept is None:
            return
        try:
            plan = plan_memory_undo(self.root)
        except OperationError as exc:
            self.state.setText(str(exc))
            return
        if plan.replay is not None:
            self._refused(plan)
            return
        if not plan.steps:  # the record went away meanwhile
            self.state.setText("\n".join(plan.notes))
            self.read_before()
            return
        kept = self.before.kept
        back = self.tr("it gets back what it held before rocmate first changed it:\n%1").replace(
            "%1", "\n".join(f"    {line}" for line in (kept.content or "").strip().splitlines())
        ) if kept.existed else self.tr(
            "it is removed (there was none before rocmate changed it).")
        question = self.tr(
            "rocmate puts %1 back as root (you are asked for the administrator's password): "
            "%2\n\nThis takes effect after the next restart.").replace(
            "%1", self.before.path).replace("%2", back)
        if self._agreed(self.tr("Undo rocmate's GPU memory change?"), question):
            self._run(plan, undo=True)
        else:
            self.state.setText(self.tr("Nothing was changed."))

    def _agreed(self, title: str, text: str) -> bool:
        box = QMessageBox(QMessageBox.Icon.Question, title, text,
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.setStyleSheet("QLabel#qt_msgbox_label { min-width: 34em; }")  # the line unbroken
        return box.exec() == QMessageBox.StandardButton.Yes

    def _refused(self, plan: Plan) -> None:
        """A replayed machine's plan: core's refusal, said, with the change it would make in
        view; nothing runs."""
        try:
            self.make_runner(plan, self._event)
        except OperationError as exc:
            self.replay_note.setVisible(False)  # core's words say it now, with the command
            self.state.setText(self.tr("%1 On that machine itself:  rocmate memory apply")
                               .replace("%1", str(exc)))
        self.content.adjustSize()
        self.area.ensureWidgetVisible(self.change_box, 0, 0)

    def _run(self, plan: Plan, *, undo: bool) -> None:
        self.running = True
        self.ended = {}
        self.done_steps = set()
        self.titles = {step.id: step.title for step in plan.steps}
        self.progress.setRange(0, max(1, len(plan.steps)))
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.log.clear()
        self.log.setVisible(True)
        self.state.setText(self.tr("Taking the change back…") if undo
                           else self.tr("Changing the limit…"))
        self.show_change()
        try:  # the runner's events come on the GUI thread (it runs on the qasync loop)
            runner = self.make_runner(plan, self._event)
        except OperationError as exc:
            self._ran(False, undo, str(exc))
            return
        self.log.appendPlainText(self.tr("Log: %1").replace("%1", str(runner.log_path)))
        self.call_async("run", runner.run, on_done=lambda ok: self._ran(bool(ok), undo),
                        on_failed=lambda message: self._ran(False, undo, message))

    def _event(self, event: dict[str, Any]) -> None:
        """One of the runner's events: a step's state (the bar), its output (the log), the
        end (what it needs: the restart)."""
        kind = event.get("event")
        if kind == "step" and event.get("status") in ("done", "unchanged", "failed"):
            self.done_steps.add(str(event.get("id")))
            self.progress.setValue(min(len(self.done_steps), self.progress.maximum()))
            step = str(event.get("id"))
            self.log.appendPlainText(f"[{event.get('status')}] {self.titles.get(step, step)}")
        elif kind == "output" and event.get("line"):
            self.log.appendPlainText(str(event["line"]))
        elif kind == "done":
            self.ended = event

    def _ran(self, ok: bool, undo: bool, message: str = "") -> None:
        self.running = False
        error = message or str(self.ended.get("error") or "") or self.tr("see the log")
        if not ok:
            self.state.setText(self.tr("Stopped: %1").replace("%1", error))  # as the CLI
        elif "reboot" in (self.ended.get("needs") or ()):
            self.progress.setValue(self.progress.maximum())
            restart = self.tr(
                "Restart the computer, then open rocmate again: this window then shows "
                "whether the new limit is in force. Where the initramfs holds ttm, make it "
                "again before the restart (the notes above say how).")
            self.state.setText((self.tr("Undone: the file is back as it was. %1") if undo else
                                self.tr("Done: the new limit is written. %1")).replace(
                "%1", restart))
        else:
            self.progress.setValue(self.progress.maximum())
            self.state.setText(self.tr("Nothing needed changing."))
        self.read_before()
        self.show_change()
