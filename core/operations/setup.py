"""Setting the machine up: the plan for it, the variables its card needs, and carrying the plan
out (the user's steps as the user, the root block through the helper), resumable."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from core.diagnose.doctor import run_doctor
from core.install.plan import Plan
from core.install.planner import Choices, PlanError, make_plan
from core.install.privilege import helper_route
from core.install.runner import Emit, Runner, state_dir
from core.knowledge.loader import load_knowledge
from core.operations.errors import OperationError
from core.operations.machine import open_machine


def plan_setup(root: str | Path | None = None, choices: Choices | None = None) -> Plan:
    """The set-up plan for the machine (a plan with ``blocked`` set where none is possible).
    A choice that cannot be honoured here (``--rocm`` it does not serve, ...) is an error."""
    report = run_doctor(open_machine(root), probe_torch=False)
    try:
        return make_plan(report.facts, load_knowledge(), choices or Choices())
    except PlanError as exc:
        raise OperationError(str(exc), status=2) from exc


def variable_lines(plan: Plan, shell: Literal["sh", "fish"] = "sh") -> list[str]:
    """The lines that set the plan's variables in ``shell`` (``rocmate env``)."""
    if shell == "fish":
        return [f"set -gx {key} {value}" for key, value in sorted(plan.env.items())]
    return [f'export {key}="{value}"' for key, value in sorted(plan.env.items())]


@dataclass(frozen=True)
class SetupResult:
    ok: bool
    log_path: Path


def prepare_setup(plan: Plan, on_event: Emit, *, via: Literal["sudo", "pkexec"] = "sudo",
                  resume: bool = False) -> Runner:
    """A runner for ``plan``: its root block goes through ``via`` (sudo from a terminal, pkexec
    from the desktop), or directly when already root, and only from a root-owned installation
    (the runner then stops with the reason). Without ``resume`` an earlier run's progress is
    forgotten. ``on_event`` gets the runner's events; ``runner.cancel()`` stops it."""
    if not resume:
        (state_dir() / "state.json").unlink(missing_ok=True)
    route = helper_route(via)
    return Runner(plan, on_event, route.argv, helper_problem=route.problem)


async def run_setup(runner: Runner) -> SetupResult:
    """Carry the plan out; how it ended (the events said what happened step by step)."""
    ok = bool(await runner.run())
    return SetupResult(ok, runner.log_path)
