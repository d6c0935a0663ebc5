"""GPU memory of an APU (issue 35): the facts the doctor gathered and the advice for a goal.

``memory_advice(report, goal)`` is what a page or a command shows: for every integrated AMD GPU of
the checked machine, what it can use now and why, what stays for the system, the most it may
safely have, what the goal needs and the ttm setting that gives it. ``check_memory`` checks the
machine (or a snapshot folder) first. Nothing of that changes the machine.

``plan_memory`` and ``plan_memory_undo`` make the plans that change it (core/install/memory_plan.py:
one root step through the helper, taking effect at the next boot); ``prepare_memory_change``
gives a runner for one, which a command or a page starts with ``run_setup`` after the user agreed.
``memory_before`` says, before that, what rocmate's ttm file holds and what an undo would put
back (for the question that asks for consent).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from core.diagnose.doctor import DoctorReport
from core.diagnose.memory_advice import MAX_GOAL, Goal, MemoryAdvice, advise
from core.i18n import t
from core.install.helper.policy import TTM_CONF, TTM_UNDO
from core.install.memory_plan import (
    UndoRecord,
    memory_plan,
    parse_undo_record,
    undo_plan,
)
from core.install.plan import Plan
from core.install.privilege import helper_route
from core.install.runner import Emit, Runner, state_dir
from core.knowledge.apu_memory import load_apu_memory
from core.operations.errors import OperationError
from core.operations.machine import check_machine, open_machine
from core.operations.suites import GB, load_table
from core.probe.torch import DEFAULT_TIMEOUT

SCHEMA = "rocmate.memory/1"


@dataclass(frozen=True)
class MemoryReport:
    """The advice for each integrated AMD GPU of a machine (none: the machine has none)."""

    goal: Goal
    advices: tuple[MemoryAdvice, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "schema": SCHEMA,
            "goal": {"kind": self.goal.kind, "label": self.goal.label,
                     "need_bytes": self.goal.need_bytes},
            "gpus": [a.to_json() for a in self.advices],
        }


def goal_keys() -> list[str]:
    """The goals ``--goal`` takes: ``max`` and the benchmark choices."""
    return ["max", *(c.key for c in load_table().choices)]


def memory_goal(goal: str | None = None, llm_gb: float | None = None) -> Goal:
    """The goal from its words: ``max`` (or None), a benchmark choice of bench.toml
    (``resnet50-train`` at its default batch, ``sd15-infer``...), or an LLM of ``llm_gb`` GB
    (its weights, plus the table's overhead for context and runtime)."""
    if llm_gb is not None:
        if not math.isfinite(llm_gb) or not 0 < llm_gb <= 4096:
            raise OperationError(t("ops.memory.bad-llm-size", "an LLM size is a number of GB "
                                   "above 0 (the model file's size): {value}", value=llm_gb),
                                 status=2)
        overhead = load_apu_memory().llm_overhead
        return Goal("llm", f"llm:{llm_gb:g}", int(llm_gb * GB * (1 + overhead)))
    if goal in (None, "max"):
        return MAX_GOAL
    table = load_table()
    choice = next((c for c in table.choices if c.key == goal), None)
    if choice is None:
        raise OperationError(t("ops.memory.unknown-goal", "unknown goal {goal}; one of: "
                               "{goals}", goal=goal, goals=", ".join(goal_keys())), status=2)
    need: int | None = None
    if choice.fixed_gb is not None and choice.per_item_gb is not None and choice.batch:
        need = int((choice.fixed_gb + choice.per_item_gb * choice.batch) * GB
                   / table.fit_fraction)
    elif choice.min_gb is not None:
        need = int(choice.min_gb * GB)
    return Goal("bench", choice.key, need)


def memory_advice(report: DoctorReport, goal: Goal | None = None) -> MemoryReport:
    """The advice for each integrated AMD GPU of ``report``'s machine, for ``goal`` (default:
    the most the machine can safely give)."""
    goal = goal or MAX_GOAL
    distro = report.facts.platform.distro_id
    advices = tuple(advise(gpu.name, gpu.memory, goal, distro=distro)
                    for gpu in report.facts.gpus.gpus if gpu.memory is not None)
    return MemoryReport(goal, advices)


def check_memory(root: str | Path | None = None, *, goal: Goal | None = None,
                 python: str | None = None, probe_torch: bool = True,
                 torch_timeout: float = DEFAULT_TIMEOUT) -> MemoryReport:
    """Check the machine (or the snapshot folder ``root``), then :func:`memory_advice`."""
    report = check_machine(root, python=python, probe_torch=probe_torch,
                           torch_timeout=torch_timeout)
    return memory_advice(report, goal)


def plan_memory(report: MemoryReport, gib: int | None = None,
                root: str | Path | None = None) -> Plan:
    """The plan that gives the GPU ``gib`` GiB (default: what the advice for the report's goal
    says). ttm's limit is one for the whole machine: the first integrated GPU's advice decides.
    A plan for a replayed machine (``root``) is only shown."""
    if not report.advices:
        raise OperationError(t("ops.memory.no-apu", "this machine has no integrated AMD GPU: "
                               "there is no GPU memory to change"), status=4)
    plan = memory_plan(report.advices[0], gib)
    return replace(plan, replay=str(root)) if root is not None else plan


def plan_memory_undo(root: str | Path | None = None) -> Plan:
    """The plan that takes rocmate's change back, from the record the helper kept (blocked when
    there is none)."""
    record = parse_undo_record(open_machine(root).read_text(TTM_UNDO))
    plan = undo_plan(record)
    return replace(plan, replay=str(root)) if root is not None else plan


@dataclass(frozen=True)
class MemoryBefore:
    """rocmate's ttm file before a change: what it holds now, and what an earlier change kept
    for the undo (the oldest state: a second change keeps it as it is)."""

    path: str
    now: str | None
    """The file's text now; None: there is no file."""
    kept: UndoRecord | None
    """What an undo puts back, kept by an earlier change; None: rocmate has changed nothing."""

    def undo_gives(self) -> UndoRecord:
        """What an undo after the next change would put back."""
        return self.kept if self.kept is not None else UndoRecord(self.now is not None, self.now)


def memory_before(root: str | Path | None = None) -> MemoryBefore:
    """rocmate's ttm file and the helper's record of what it held, on this computer (or the
    replayed machine ``root``); nothing is changed."""
    machine = open_machine(root)
    return MemoryBefore(TTM_CONF, machine.read_text(TTM_CONF),
                        parse_undo_record(machine.read_text(TTM_UNDO)))


def memory_state_dir() -> Path:
    """Where the runner keeps the log and state of GPU memory changes (not the set-up's)."""
    return state_dir().parent / "memory"


def prepare_memory_change(plan: Plan, on_event: Emit, *,
                          via: Literal["sudo", "pkexec"] = "sudo") -> Runner:
    """A runner for a plan of :func:`plan_memory` or :func:`plan_memory_undo`: its root step goes
    through the helper (``via`` as for a set-up). Each change starts afresh: an apply after an
    undo of the same size runs again."""
    if plan.replay is not None:
        raise OperationError(t("ops.memory.replay-only-shown", "This plan is for the replayed "
                               "machine in {folder}: it is only shown here, and nothing on this "
                               "computer is changed.", folder=plan.replay), status=2)
    folder = memory_state_dir()
    (folder / "state.json").unlink(missing_ok=True)
    route = helper_route(via)
    return Runner(plan, on_event, route.argv, folder=folder, helper_problem=route.problem)
