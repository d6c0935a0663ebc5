"""What the set-up routes share: the user's choices, the one error they raise, and the list of
steps and notes a plan is built in.

core.install.planner's ``make_plan`` makes one :class:`PlanBuilder`; each route's module
(core.install.system_steps, apt_route, core_sdk_route, wsl_route, python_steps, env_files)
appends its steps and notes to it in the order a plan runs them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.diagnose.context import Context
from core.install.fix_steps import Fixes
from core.install.plan import Step
from core.knowledge.releases import RocmRelease
from core.probe.facts import Facts


class PlanError(ValueError):
    """A choice that cannot be honoured on this machine (the message says why)."""


@dataclass(frozen=True)
class Choices:
    strategy: str | None = None
    rocm: str | None = None
    venv: str | None = None
    package_set: str = "runtime"
    remove_old: bool = False
    fix_shell_files: bool = False
    """Agreed to have the start-up file lines that export a wrong variable commented out."""
    override: str | None = None
    """A tested HSA_OVERRIDE_GFX_VERSION to write instead of the knowledge base's ("" for
    none: the card ran without one); None lets the knowledge base decide."""
    tuned: tuple[tuple[str, str], ...] | None = None
    """The variables ``rocmate tune --keep`` measured fastest (names of
    core.probe.environment.TUNED), written beside the card's; None keeps those the
    environment's rocmate-env.sh holds now, () writes none (the undo of a first keep)."""


@dataclass
class PlanBuilder:
    """A plan in the making: the routes append to ``steps`` and ``notes`` and fill in what the
    plan names (``packages``, ``torch_packages``, ``torch_url``, ``apt_release``)."""

    ctx: Context
    choices: Choices
    venv: str
    env: dict[str, str]
    fixes: Fixes = field(default_factory=Fixes)
    steps: list[Step] = field(default_factory=list)
    packages: list[str] = field(default_factory=list)
    torch_packages: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    torch_url: str | None = None
    apt_release: RocmRelease | None = None

    @property
    def facts(self) -> Facts:
        return self.ctx.facts

    @property
    def python(self) -> str:
        return f"{self.venv}/bin/python"

    def add(self, step: Step) -> None:
        self.steps.append(step)
