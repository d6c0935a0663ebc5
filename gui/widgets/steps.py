"""A set-up plan's steps as cards: the number and title, who runs it (you or root, in words and
with a mark), why, and the exact command or file content."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QFrame, QVBoxLayout, QWidget

from core.install.fix_steps import OPTION as FIX_OPTION
from core.install.plan import Plan, Step
from gui.widgets.cards import CardColumn
from gui.widgets.findings import selectable_label


class StepCard(QFrame):
    def __init__(self, number: int, step: Step, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.step_id = step.id
        self.number, self.step = number, step
        self.setObjectName(f"step-{step.id}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        column = QVBoxLayout(self)
        self.heading = selectable_label("", bold=True)
        column.addWidget(self.heading)
        self.skipped = selectable_label("") if step.consent is False else None
        if self.skipped is not None:
            column.addWidget(self.skipped)
        if step.explain:
            column.addWidget(selectable_label(step.explain))
        if step.argv:
            column.addWidget(selectable_label("$ " + " ".join(step.argv), mono=True))
        elif step.file is not None:
            column.addWidget(selectable_label("→ " + step.file.path, mono=True))
            if step.file.content:
                column.addWidget(selectable_label(step.file.content.rstrip("\n"), mono=True))
        self.setEnabled(step.consent is not False)  # greyed: it is not part of the run
        self.retranslate()

    def retranslate(self) -> None:
        """Who runs the step, in the current language (the step's own words are the plan's:
        the page shows a plan made again in the new language with new cards)."""
        who = (QCoreApplication.translate("Steps", "as root (asks for the password)")
               if self.step.privileged else QCoreApplication.translate("Steps", "as you"))
        self.heading.setText(f"{self.number}. {self.step.title} — {who}")
        if self.skipped is not None and self.step.consent_option == FIX_OPTION:
            self.skipped.setText(QCoreApplication.translate(  # a line of a start-up file
                "Steps", "Skipped: tick “Comment out the lines of your shell files that export "
                "a wrong value” above to include it."))
        elif self.skipped is not None:  # a removal not agreed to: shown, never run
            self.skipped.setText(QCoreApplication.translate(
                "Steps", "Skipped: tick “Remove the other ROCm versions installed beside it” "
                "above to include it."))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


class StepsView(CardColumn[StepCard]):
    """A plan's steps in order (none for a plan that is blocked)."""

    def show_steps(self, plan: Plan | None) -> None:
        steps = () if plan is None or plan.blocked else plan.steps
        self.set_cards([StepCard(n, step, self) for n, step in enumerate(steps, start=1)])
