"""GPU memory of an APU (issue 35): what the machine has, what its GPU can use, and how much to
give it for a goal — core's advice (``core.operations.memory``) shown as a form per GPU. It
changes nothing: the ttm setting it names is applied with ``rocmate memory apply`` (a root
step, undone with ``rocmate memory undo``)."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from core.diagnose.doctor import DoctorReport
from core.diagnose.memory_advice import MemoryAdvice
from core.i18n import local
from core.operations.errors import OperationError
from core.operations.memory import memory_advice, memory_goal
from core.operations.memory_words import (
    explained,
    fact_rows,
    goal_words,
    limit_rows,
    verdict_words,
)
from core.operations.suites import load_table
from gui.widgets.findings import selectable_label

LLM = "llm"  # the goal list's entry for a language model of a size the person gives


def has_apu(report: DoctorReport | None) -> bool:
    """Whether the checked machine has an integrated AMD GPU whose memory rocmate read."""
    return report is not None and any(
        g.memory is not None for g in report.facts.gpus.gpus)


class MemoryDialog(QDialog):
    """Non-modal; a language change shows the advice again in the new language."""

    def __init__(self, report: DoctorReport, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("gpu-memory")
        self.report = report
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
        self.column.addStretch(1)  # the groups go above it
        area = QScrollArea()
        area.setWidgetResizable(True)
        area.setWidget(self.content)
        self.intro = selectable_label("")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addLayout(top)
        layout.addWidget(area, 1)
        layout.addWidget(buttons)
        self.groups: list[QGroupBox] = []
        self.resize(760, 620)
        self.retranslate()

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("GPU memory"))
        self.intro.setText(self.tr(
            "An integrated GPU has no memory of its own: it uses system memory, up to a limit "
            "the kernel sets (GTT). This shows that limit, what to give the GPU for a goal, "
            "and the setting that gives it. Nothing here changes the computer: apply the "
            "setting with  rocmate memory apply  in a terminal (it asks for the "
            "administrator's password; rocmate memory undo  takes it back), then restart."))
        self.goal_label.setText(self.tr("&Size for:"))
        titles = {c.key: local(c.title) for c in load_table().choices}
        for i in range(self.goal.count()):
            key = self.goal.itemData(i)
            self.goal.setItemText(i, self.tr("The most the machine can safely give")
                                  if key == "max" else self.tr("A language model of (GB):")
                                  if key == LLM else titles.get(key, key))
        self.llm_gb.setSuffix(self.tr(" GB"))
        self.show_advice()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def show_advice(self) -> None:
        """The advice for the goal chosen, a group per integrated GPU (core's words)."""
        key = self.goal.currentData()
        self.llm_gb.setVisible(key == LLM)
        for group in self.groups:
            self.column.removeWidget(group)
            group.hide()
            group.deleteLater()
        try:
            goal = memory_goal(None if key == LLM else key,
                               self.llm_gb.value() if key == LLM else None)
            advices = memory_advice(self.report, goal).advices
        except OperationError as exc:  # a goal core refuses: said, nothing shown
            self.groups = [self._said(str(exc))]
        else:
            self.groups = [self._group(a) for a in advices] or [self._said(self.tr(
                "This machine has no integrated AMD GPU whose memory rocmate could read."))]
        for group in self.groups:
            self.column.insertWidget(self.column.count() - 1, group)
            group.show()  # at once, not at the event loop's next turn

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
