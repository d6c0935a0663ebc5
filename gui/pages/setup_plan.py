"""Set-up plan: the strategy (the recommended one chosen, a line on each), the ROCm release and
wheel index, where the environment goes, consent to remove other ROCm installs, and every step
with its command or file before anything runs; which steps run as root; the plan as a shell
script for people who prefer a terminal."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
)

from core.install.plan import STRATEGIES, Plan
from core.install.plan_text import shell_script
from core.install.planner import Choices
from core.operations.errors import OperationError
from core.operations.setup import current_releases, plan_setup
from gui.bridge import Bridge
from gui.pages.base import PageId, RocPage
from gui.session import Session
from gui.widgets.steps import StepsView

STRATEGY_LINES = {
    "pip-only": "PyTorch's ROCm wheels bring their own ROCm: only your groups, a Python "
                "environment and the wheel. The usual choice.",
    "rocm-apt": "AMD's apt repository for Ubuntu and its derivatives: a system-wide ROCm "
                "(for compilers and tools beyond PyTorch).",
    "wsl": "WSL 2: AMD's WSL runtime and the swap of the wheel's HSA runtime.",
    "therock": "AMD's nightly TheRock wheels: newest cards first, a preview.",
}


class SetupPlanPage(RocPage):
    PAGE_ID = PageId.SETUP_PLAN

    def __init__(self, session: Session, bridge: Bridge) -> None:
        super().__init__(session, bridge)
        self.setTitle(self.tr("Set-up plan"))
        self.setSubTitle(self.tr("Every step, before anything runs. Steps marked root ask for "
                                 "the administrator's password."))
        self.strategy = QComboBox()
        self.release = QComboBox()  # "" = the best fit the planner picks
        self.packages = QComboBox()
        self.packages.addItem(self.tr("runtime (what PyTorch needs)"), "runtime")
        self.packages.addItem(self.tr("SDK (compilers and tools as well)"), "sdk")
        self.strategy_line = QLabel()
        self.strategy_line.setWordWrap(True)
        self.remove_old = QCheckBox(self.tr("Remove the other ROCm versions installed beside "
                                            "it"))
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.steps = StepsView()
        steps_area = QScrollArea()
        steps_area.setWidgetResizable(True)
        steps_area.setWidget(self.steps)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.copy_script = QPushButton(self.tr("Copy as a &shell script"))
        self.copy_script.clicked.connect(self.copy_as_script)
        form = QFormLayout()
        form.addRow(self.tr("&Strategy:"), self.strategy)
        form.addRow("", self.strategy_line)
        form.addRow(self.tr("ROCm &release:"), self.release)
        form.addRow(self.tr("&Packages:"), self.packages)
        self.form = form
        form.addRow("", self.remove_old)
        buttons = QHBoxLayout()
        buttons.addWidget(self.copy_script)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.summary)
        layout.addWidget(steps_area, 1)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        self.strategy.currentIndexChanged.connect(self._choice_changed)
        self.remove_old.toggled.connect(self._choice_changed)
        self.release.currentIndexChanged.connect(self._choice_changed)
        self.packages.currentIndexChanged.connect(self._choice_changed)
        self._filling = False

    def initializePage(self) -> None:
        plan = self.session.plan
        self._filling = True
        self.strategy.clear()
        recommended = plan.strategy if plan is not None else None
        for name in STRATEGIES:
            label = name + (self.tr(" (recommended)") if name == recommended else "")
            self.strategy.addItem(label, name)
        if recommended in STRATEGIES:
            self.strategy.setCurrentIndex(STRATEGIES.index(recommended))
        self.release.clear()
        self.release.addItem(self.tr("the best fit (%1)").replace(
            "%1", plan.rocm if plan is not None and plan.rocm else "-"), "")
        for version in current_releases():
            self.release.addItem(version, version)
        self._filling = False
        self.remove_old.setVisible(self._has_other_rocm())
        self.show_plan(plan, self.session.plan_error)

    def _has_other_rocm(self) -> bool:
        report = self.session.report
        return report is not None and bool(report.facts.rocm.installs)

    def _choice_changed(self) -> None:
        if self._filling:
            return
        choices = Choices(strategy=self.strategy.currentData(),
                          rocm=self.release.currentData() or None,
                          package_set=self.packages.currentData() or "runtime",
                          remove_old=self.remove_old.isChecked())
        try:
            plan, error = plan_setup(self.session.root, choices), None
        except OperationError as exc:
            plan, error = None, str(exc)
        self.session.plan, self.session.plan_error = plan, error
        self.show_plan(plan, error)

    def show_plan(self, plan: Plan | None, error: str | None) -> None:
        name = self.strategy.currentData()
        self.strategy_line.setText(self.tr(STRATEGY_LINES.get(name, "")))
        # the package set is a choice of AMD's apt repository only
        self.form.setRowVisible(self.packages, name == "rocm-apt")
        self.steps.show_steps(None)
        self.copy_script.setEnabled(plan is not None and not plan.blocked)
        if plan is None:
            self.summary.setText("")
            self.message.setText(error or "")
            return
        if plan.blocked:
            self.summary.setText(self.tr("No set-up is possible: %1").replace("%1", plan.blocked))
            self.message.setText("")
            return
        lines = [self.tr("ROCm %1, PyTorch from %2").replace("%1", plan.rocm or "-")
                 .replace("%2", plan.torch_index or "-")]
        if plan.venv:
            lines.append(self.tr("Python environment: %1").replace("%1", plan.venv))
        if plan.env:
            lines.append(self.tr("Variables: %1").replace(
                "%1", ", ".join(f"{k}={v}" for k, v in plan.env.items())))
        for check in plan.preflight:
            if not check.ok:
                lines.append("⚠ " + check.title + (f" — {check.detail}" if check.detail else ""))
        self.summary.setText("\n".join(lines))
        self.steps.show_steps(plan)
        self.message.setText(self.tr(
            "Next carries it out (or run  rocmate install  in a terminal, or copy it as a "
            "shell script)."))

    def copy_as_script(self) -> None:
        if self.session.plan is not None:
            QGuiApplication.clipboard().setText(shell_script(self.session.plan))
            self.message.setText(self.tr("Copied the plan as a shell script."))

    def nextId(self) -> int:
        plan = self.session.plan
        if plan is not None and not plan.blocked:
            return int(PageId.RUN_SETUP)
        return int(PageId.VERIFY)
