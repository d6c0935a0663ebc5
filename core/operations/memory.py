"""GPU memory of an APU (issue 35): the facts the doctor gathered and the advice for a goal.

``memory_advice(report, goal)`` is what a page or a command shows: for every integrated AMD GPU of
the checked machine, what it can use now and why, what stays for the system, the most it may
safely have, what the goal needs and the ttm setting that gives it. ``check_memory`` checks the
machine (or a snapshot folder) first. Nothing here changes the machine.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from core.diagnose.doctor import DoctorReport
from core.diagnose.memory_advice import MAX_GOAL, Goal, MemoryAdvice, advise
from core.i18n import t
from core.knowledge.apu_memory import load_apu_memory
from core.operations.errors import OperationError
from core.operations.machine import check_machine
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
    advices = tuple(advise(gpu.name, gpu.memory, goal)
                    for gpu in report.facts.gpus.gpus if gpu.memory is not None)
    return MemoryReport(goal, advices)


def check_memory(root: str | Path | None = None, *, goal: Goal | None = None,
                 python: str | None = None, probe_torch: bool = True,
                 torch_timeout: float = DEFAULT_TIMEOUT) -> MemoryReport:
    """Check the machine (or the snapshot folder ``root``), then :func:`memory_advice`."""
    report = check_machine(root, python=python, probe_torch=probe_torch,
                           torch_timeout=torch_timeout)
    return memory_advice(report, goal)
