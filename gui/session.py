"""What the wizard knows so far: which machine (a replayed folder or this one), which Python,
the doctor's answer and the set-up plan. Pages read it and fill it in."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from core.diagnose.doctor import DoctorReport, reword
from core.install.plan import Plan
from core.install.planner import Choices
from core.operations.errors import OperationError
from core.operations.setup import choice_problem, plan_facts, plan_setup
from core.probe.facts import Facts
from core.probe.torch_check import TorchCheck
from core.probe.torch_check import reword as reword_check
from core.report.model import Report


@dataclass
class Session:
    root: str | None = None
    """A snapshot folder to replay, or None for this machine."""
    python: str | None = None
    """The Python whose PyTorch the doctor checks (None: rocmate's environment, else python3)."""
    report: DoctorReport | None = None
    plan: Plan | None = None
    plan_error: str | None = None
    choices: Choices | None = None
    """What the plan was made for (None: the planner's defaults)."""
    plan_facts: Facts | None = None
    """What the planner read of the machine (read once per check)."""
    check: TorchCheck | None = None
    """The last verification of PyTorch on the card."""
    history_path: Path | None = None
    """The history database (None: the default, $XDG_DATA_HOME/rocmate/history.sqlite)."""
    bench_report: Report | None = None
    """The report of the last benchmark started on the Benchmark page (every suite it ran)."""
    bench_history_ids: list[int] = field(default_factory=list)
    """Their ids in the history (empty when the history could not take them)."""

    def new_report(self, report: DoctorReport) -> None:
        """A new answer of the doctor: the plan made for the old one is gone."""
        self.report, self.plan, self.plan_error, self.plan_facts = report, None, None, None

    def replan(self) -> None:
        """The plan for the machine and ``choices`` (or the reason there is none); the machine
        is read for it once per check: the System check's facts where it has run."""
        try:
            if self.plan_facts is None:
                self.plan_facts = plan_facts(self.root, report=self.report)
            self.plan = plan_setup(self.root, self.choices, facts=self.plan_facts)
            self.plan_error = None
        except OperationError as exc:
            self.plan, self.plan_error = None, str(exc)

    def plan_possible(self) -> bool:
        """Whether a plan that is not blocked can be made for the machine (planned once per
        check, where the pages have not yet): so a card past AMD's support that has a last
        route reaches the Set-up plan page (issue 33)."""
        if self.report is not None and self.plan is None and self.plan_error is None:
            self.replan()
        return self.plan is not None and not self.plan.blocked

    def choice_problem(self, choices: Choices) -> str | None:
        """Why ``choices`` cannot be planned for the machine (None: they can); the machine is
        read for it once per check, as for the plan."""
        try:
            if self.plan_facts is None:
                self.plan_facts = plan_facts(self.root, report=self.report)
        except OperationError as exc:
            return str(exc)
        return choice_problem(self.plan_facts, choices)

    def reword(self, *, plan: bool = True) -> None:
        """Core's words that the session holds (the doctor's findings, the plan's steps) again,
        in the language now set: same facts, same choices, nothing probed again. ``plan``
        False keeps the plan as it is (a set-up that runs it is under way)."""
        if self.report is not None:
            self.report = reword(self.report)
        if self.check is not None:
            self.check = reword_check(self.check)
        if plan and (self.plan is not None or self.plan_error is not None):
            self.replan()

    @property
    def is_wsl2(self) -> bool:
        return self.report is not None and self.report.facts.platform.wsl == 2

    @property
    def needs_override(self) -> bool:
        """The card to train on runs PyTorch only with HSA_OVERRIDE_GFX_VERSION."""
        report = self.report
        return report is not None and report.primary_index is not None and \
            report.supports[report.primary_index].status == "override"
