"""Set-up plan: the strategy (the recommended one chosen, a line on each), the ROCm release and
wheel index, where the environment goes, consent to remove other ROCm installs, and every step
with its command or file before anything runs; which steps run as root; the plan as a shell
script for people who prefer a terminal."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtGui import QGuiApplication, QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from core.diagnose.engine import NOT_SUPPORTED
from core.install.fix_steps import OPTION as FIX_OPTION
from core.install.plan import STRATEGIES, Plan
from core.install.plan_text import shell_script
from core.install.planner import Choices
from core.operations.setup import current_releases, release_is_chosen
from gui.bridge import Bridge
from gui.pages.base import PageId, RocPage
from gui.session import Session
from gui.widgets.steps import StepsView

_CONTEXT = "SetupPlanPage"
STRATEGY_LINES = {
    "pip-only": QT_TRANSLATE_NOOP(
        "SetupPlanPage", "PyTorch's ROCm wheels bring their own ROCm: only your groups, a "
        "Python environment and the wheel. The usual choice."),
    "rocm-apt": QT_TRANSLATE_NOOP(
        "SetupPlanPage", "AMD's apt repository for Ubuntu and its derivatives: a system-wide "
        "ROCm (for compilers and tools beyond PyTorch)."),
    "wsl": QT_TRANSLATE_NOOP(
        "SetupPlanPage", "WSL 2: AMD's WSL runtime and the swap of the wheel's HSA runtime."),
    "therock": QT_TRANSLATE_NOOP(
        "SetupPlanPage", "AMD's nightly TheRock wheels: newest cards first, a preview."),
}
"""A line on each strategy, in English; translated when shown (``strategy_line``)."""


def strategy_line(name: str | None) -> str:
    """The line on strategy ``name`` in the current language ("" for none)."""
    line = STRATEGY_LINES.get(name or "")
    return QCoreApplication.translate(_CONTEXT, str(line)) if line else ""


class SetupPlanPage(RocPage):
    PAGE_ID = PageId.SETUP_PLAN

    def __init__(self, session: Session, bridge: Bridge) -> None:
        super().__init__(session, bridge)
        self.strategy = QComboBox()
        self.release = QComboBox()  # "" = the best fit the planner picks
        self.packages = QComboBox()
        for package_set in ("runtime", "sdk"):
            self.packages.addItem("", package_set)
        self.strategy_line = QLabel()
        self.strategy_line.setWordWrap(True)
        self.remove_old = QCheckBox()
        self.fix_shell_files = QCheckBox()  # lines of start-up files commented out (issue 33)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notes = QLabel()  # the plan's notes: a last route's caveats and sources, ...
        self.notes.setObjectName("plan-notes")
        self.notes.setWordWrap(True)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.steps = StepsView()
        steps_area = QScrollArea()
        steps_area.setWidgetResizable(True)
        scrolled = QWidget()  # the notes scroll with the steps: the steps keep their room
        scrolled_column = QVBoxLayout(scrolled)
        scrolled_column.setContentsMargins(0, 0, 0, 0)
        scrolled_column.addWidget(self.notes)
        scrolled_column.addWidget(self.steps, 1)
        steps_area.setWidget(scrolled)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.copy_script = QPushButton()
        self.copy_script.clicked.connect(self.copy_as_script)
        self.strategy_label = QLabel()
        self.release_label = QLabel()
        self.packages_label = QLabel()
        form = QFormLayout()
        for label, field in ((self.strategy_label, self.strategy),
                             (self.release_label, self.release),
                             (self.packages_label, self.packages)):
            label.setBuddy(field)
        form.addRow(self.strategy_label, self.strategy)
        form.addRow("", self.strategy_line)
        form.addRow(self.release_label, self.release)
        form.addRow(self.packages_label, self.packages)
        self.form = form
        form.addRow("", self.remove_old)
        form.addRow("", self.fix_shell_files)
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
        self.fix_shell_files.toggled.connect(self._choice_changed)
        self.release.currentIndexChanged.connect(self._choice_changed)
        self.packages.currentIndexChanged.connect(self._choice_changed)
        self._filling = False
        self.recommended: str | None = None
        """The strategy the plan had when the page was entered (marked "recommended")."""
        self.best_fit: str | None = None
        """The release that plan had (the "best fit" item names it); None until entered."""
        self.copied = False
        """The message says the plan was copied (a language change keeps it saying so)."""
        self.unfit: dict[str, str] = {}
        """The strategies that cannot apply to this machine, with why (core's words)."""
        self.entered_with_plan = False
        """A plan was possible when the page was entered: a choice without one keeps Next
        greyed (it would skip Run set-up) until a choice that has one."""
        self.retranslate()

    def retranslate(self) -> None:
        """The page's words again; the strategy and release lists re-labelled (their choice
        kept, nothing planned again: the session holds the plan in the new language)."""
        self.setTitle(self.tr("Set-up plan"))
        self.setSubTitle(self.tr("Every step, before anything runs. Steps marked root ask for "
                                 "the administrator's password."))
        self.strategy_label.setText(self.tr("&Strategy:"))
        self.release_label.setText(self.tr("ROCm &release:"))
        self.packages_label.setText(self.tr("&Packages:"))
        self._filling = True
        self.packages.setItemText(0, self.tr("runtime (what PyTorch needs)"))
        self.packages.setItemText(1, self.tr("SDK (compilers and tools as well)"))
        for index in range(self.strategy.count()):
            self.strategy.setItemText(index, self._strategy_label(self.strategy.itemData(index)))
        if self.release.count():
            self.release.setItemText(0, self._best_fit_label())
        self._filling = False
        if self.strategy.count():  # entered: the reasons for greyed choices, in the new words
            self._mark_choices()
        self.remove_old.setText(self.tr("Remove the other ROCm versions installed beside it"))
        self.fix_shell_files.setText(self.tr(
            "Comment out the &lines of your shell files that export a wrong value (a copy of "
            "each file is kept)"))
        self.copy_script.setText(self.tr("Cop&y as a shell script"))
        if self.strategy.count():  # entered: what it shows, from the session
            self._show(self.session.plan, self.session.plan_error)

    def _strategy_label(self, name: str) -> str:
        if name in self.unfit:
            return name + self.tr(" (not for this machine)")
        if name == self.recommended and self._last_route():  # not a recommendation
            return name + self.tr(" (last route, unverified)")
        return name + (self.tr(" (recommended)") if name == self.recommended else "")

    def _best_fit_label(self) -> str:
        return self.tr("the best fit (%1)").replace("%1", self.best_fit or "-")

    def initializePage(self) -> None:
        plan = self.session.plan
        self._filling = True
        self.strategy.clear()
        self.recommended = plan.strategy if plan is not None else None
        self.best_fit = plan.rocm if plan is not None and plan.rocm else None
        for name in STRATEGIES:
            self.strategy.addItem(self._strategy_label(name), name)
        if self.recommended in STRATEGIES:
            self.strategy.setCurrentIndex(STRATEGIES.index(self.recommended))
        self.release.clear()
        self.release.addItem(self._best_fit_label(), "")
        for version in current_releases():
            self.release.addItem(version, version)
        self._filling = False
        self.entered_with_plan = plan is not None
        self._mark_choices()
        self.show_plan(plan, self.session.plan_error)

    def _choices(self, **changed: str | None) -> Choices:
        """The choices the page shows, with ``changed`` ones instead."""
        shown = {"strategy": self.strategy.currentData(),
                 "rocm": self.release.currentData() or None}
        shown.update(changed)
        return Choices(strategy=shown["strategy"], rocm=shown["rocm"],
                       package_set=self.packages.currentData() or "runtime",
                       remove_old=self.remove_old.isChecked(),
                       fix_shell_files=self.fix_shell_files.isChecked())

    def _mark_choices(self) -> None:
        """Grey out each strategy (with the best-fit release) and each release (with the
        strategy shown) that cannot apply to this machine, the reason as its tooltip; the
        release picker is off where the strategy ignores it."""
        plan = self.session.plan
        if plan is not None and plan.blocked:
            return  # nothing fits at all: the plan says why
        self._filling = True
        self.unfit = {}
        for index in range(self.strategy.count()):
            name = str(self.strategy.itemData(index))
            problem = self.session.choice_problem(self._choices(strategy=name, rocm=None))
            if problem:
                self.unfit[name] = problem
            _allow(self.strategy, index, problem)
            self.strategy.setItemText(index, self._strategy_label(name))
        strategy = self.strategy.currentData()
        for index in range(1, self.release.count()):
            _allow(self.release, index, self.session.choice_problem(
                self._choices(rocm=str(self.release.itemData(index)))))
        self._filling = False
        chosen = release_is_chosen(strategy)
        self.release.setEnabled(chosen)
        self.release.setToolTip("" if chosen else self.tr(
            "TheRock's nightly wheels bring their own ROCm: there is no release to choose."))

    def _choice_changed(self) -> None:
        if self._filling:
            return
        self.session.choices = self._choices()
        self.session.replan()
        self._mark_choices()
        self.show_plan(self.session.plan, self.session.plan_error)
        self.completeChanged.emit()
        self.next_changed()  # Next leads to Run set-up only with a plan

    def isComplete(self) -> bool:
        plan = self.session.plan
        return super().isComplete() and (plan is not None or not self.entered_with_plan) \
            and not (plan is not None and plan.stopped_by)  # its steps would fail

    def show_plan(self, plan: Plan | None, error: str | None) -> None:
        self.copied = False
        self._show(plan, error)

    def _show(self, plan: Plan | None, error: str | None) -> None:
        """The plan (or why there is none) in the current language; the message below it too,
        unless it says the plan was copied."""
        name = self.strategy.currentData()
        self.strategy_line.setText(strategy_line(name))
        # the package set is a choice of AMD's apt repository only
        self.form.setRowVisible(self.packages, name == "rocm-apt")
        self.steps.show_steps(None)
        self.notes.setText("")
        self.notes.setVisible(False)
        self.copy_script.setEnabled(plan is not None and not plan.blocked)
        # the box where it removes something (a plan that asks for consent), nowhere else
        self.remove_old.setVisible(plan is not None and any(
            step.consent is not None and step.consent_option in (None, "--remove-old")
            for step in plan.steps))
        self.fix_shell_files.setVisible(plan is not None and any(
            step.consent_option == FIX_OPTION for step in plan.steps))
        message: str | None
        if plan is None:
            self.summary.setText("")
            message = self.tr("This choice cannot be carried out here: %1").replace(
                "%1", error) if error and self.entered_with_plan else (error or "")
        elif plan.blocked:
            self.summary.setText(self.tr("No set-up is possible: %1").replace("%1", plan.blocked))
            message = ""
        else:
            lines = [self.tr("ROCm %1, PyTorch from %2").replace("%1", plan.rocm)
                     .replace("%2", plan.torch_index or "-") if plan.rocm else
                     self.tr("PyTorch from %1, with the ROCm its wheels bring").replace(
                         "%1", plan.torch_index or "-")]
            if plan.venv:
                lines.append(self.tr("Python environment: %1").replace("%1", plan.venv))
            if plan.env:
                lines.append(self.tr("Variables: %1").replace(
                    "%1", ", ".join(f"{k}={v}" for k, v in plan.env.items())))
            if plan.env_unset:  # exported with a value the doctor finds wrong
                lines.append(self.tr("Unsets: %1").replace("%1", ", ".join(plan.env_unset)))
            if self._last_route():
                lines.insert(0, "⚠ " + self.tr(
                    "Unverified: the last route that may still run a card AMD no longer "
                    "supports, not a supported set-up. Read its known problems below before "
                    "going on."))
            for check in plan.preflight:
                if not check.ok:
                    lines.append(("✗ " + check.title) if check.stops else  # detail: below
                                 "⚠ " + check.title + (f" — {check.detail}" if check.detail
                                                       else ""))
            self.summary.setText("\n".join(lines))
            if plan.notes:
                self.notes.setText("\n".join("• " + note for note in plan.notes))
                self.notes.setVisible(True)
            self.steps.show_steps(plan)
            stop = plan.stopped_by[0] if plan.stopped_by else None
            message = self.tr("Next stays off: %1").replace(
                "%1", stop.detail or stop.title) if stop is not None else None
        if self.copied:
            return
        if message is None:
            self.say(self.message, lambda: self.tr(
                "Next carries it out (or run  rocmate install  in a terminal, or copy it as a "
                "shell script)."))
        elif message:
            said = message
            self.say(self.message, lambda: said)
        else:
            self.say(self.message, None)

    def _last_route(self) -> bool:
        """The plan is a last route for a card past AMD's support (the doctor's verdict: Not
        supported, and still a plan: issue 33)."""
        report = self.session.report
        return report is not None and report.verdict == NOT_SUPPORTED

    def copy_as_script(self) -> None:
        if self.session.plan is not None:
            QGuiApplication.clipboard().setText(shell_script(self.session.plan))
            self.copied = True
            self.say(self.message, lambda: self.tr("Copied the plan as a shell script."))

    def nextId(self) -> int:
        plan = self.session.plan
        if plan is not None and not plan.blocked:
            return int(PageId.RUN_SETUP)
        return int(PageId.VERIFY)


def _allow(combo: QComboBox, index: int, problem: str | None) -> None:
    """Item ``index`` of ``combo`` can be chosen, or is greyed out with ``problem`` as its
    tooltip."""
    model = combo.model()
    item = model.item(index) if isinstance(model, QStandardItemModel) else None
    if item is not None:
        item.setEnabled(problem is None)
    combo.setItemData(index, problem, Qt.ItemDataRole.ToolTipRole)
