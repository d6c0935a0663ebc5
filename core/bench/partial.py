"""The result of a run cut short: made by the parent from the measured steps it received, so a
run stopped with Ctrl-C, cancelled in the app, killed (SIGKILL) or left behind by a rocmate that
died still has a result, marked ``interrupted``.

The worker names, on each measured phase's ``phase`` event, the figures it makes of every
measured step (``figures``: :class:`core.bench.worker.stats.PerStep` specs) and the one to quote
(``headline``); the parent makes them here with the same function the worker uses
(:func:`core.bench.worker.stats.step_figures`). A phase event without them (an older worker)
gives ``throughput`` in the steps' unit. Fewer than
:data:`~core.report.steadiness.MIN_RESULT_STEPS` measured steps in the first part (the one the
headline describes) make no result: the run keeps its steps and its error."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from core.bench.worker.options import BenchOptions
from core.bench.worker.stats import PerStep, step_figures
from core.report.steadiness import MIN_RESULT_STEPS


class RunOutcome(Protocol):
    """What this module reads of a core.bench.runner.RunOutcome (which imports this module)."""

    suite: str
    options: BenchOptions
    status: str
    error: dict[str, Any] | None
    phases: list[dict[str, Any]]
    steps: list[dict[str, Any]]

_STEP_KEYS = {"event", "phase", "index", "seconds", "items", "throughput", "unit", "t", "rx_t",
              "part"}
CUT_SHORT_CAUSES = ("killed", "rocmate-stopped")
"""The parent's causes of a run cut short from outside (besides an ``interrupted`` error)."""


@dataclass(frozen=True)
class Part:
    """One measured part's steps (gemm's dtype, bandwidth's copy; None: the only part) and
    its measure phase event."""

    name: str | None
    steps: list[dict[str, Any]]
    phase: Mapping[str, Any]

    def specs(self) -> dict[str, PerStep]:
        """The per-step figures the worker named, else throughput in the steps' unit."""
        named = self.phase.get("figures")
        specs = {str(k): s for k, v in named.items()
                 if (s := PerStep.from_json(v)) is not None} if isinstance(named, dict) else {}
        if specs:
            return specs
        first = self.steps[0]
        return {"throughput": PerStep(str(first.get("unit") or "items/s"),
                                      float(first.get("items") or 1))}

    def headline(self) -> str:
        specs = self.specs()
        named = self.phase.get("headline")
        return named if isinstance(named, str) and named in specs else next(iter(specs))

    def figures(self) -> dict[str, dict[str, Any]]:
        """The figures of these steps, made as the worker makes a finished run's."""
        times = [float(s["seconds"]) for s in self.steps]
        series: dict[str, list[float]] = {}
        for step in self.steps:
            for key, value in step.items():
                if key not in _STEP_KEYS and _number(value):
                    series.setdefault(key, []).append(float(value))
        return step_figures(self.specs(), times, series)


def cut_short(out: RunOutcome) -> bool:
    """Whether the run was stopped from outside before it ended: Ctrl-C or Cancel (an
    ``interrupted`` error), a killed worker, a rocmate that stopped."""
    if out.status == "ok" or out.error is None:
        return False
    return (out.error.get("kind") == "interrupted" or out.status == "interrupted"
            or out.error.get("cause") in CUT_SHORT_CAUSES)


def measured_parts(out: RunOutcome) -> list[Part]:
    """The measured steps by part, in the order they ran."""
    phases = {p.get("part"): p for p in out.phases if p.get("phase") == "measure"}
    by_part: dict[str | None, list[dict[str, Any]]] = {}
    for step in out.steps:
        if step.get("phase") == "measure" and _number(step.get("seconds")):
            by_part.setdefault(step.get("part"), []).append(step)
    return [Part(name, steps, phases.get(name, {})) for name, steps in by_part.items()]


def interrupted_result(out: RunOutcome) -> dict[str, Any] | None:
    """A ``result`` event made of the measured steps of a run cut short, marked
    ``interrupted`` (how many steps of how many were measured); None when the run was not cut
    short or measured fewer than MIN_RESULT_STEPS steps in its first part."""
    if not cut_short(out):
        return None
    parts = measured_parts(out)
    if not parts or len(parts[0].steps) < MIN_RESULT_STEPS:
        return None
    first = parts[0]
    figures: dict[str, dict[str, Any]] = {}
    for part in parts:
        if len(part.steps) >= MIN_RESULT_STEPS:
            figures.update(part.figures())
    headline = first.headline()
    if headline not in figures:
        return None
    items = sum(int(s.get("items") or 0) for s in first.steps)
    start: Any = first.phase.get("rx_t")
    end: Any = first.steps[-1].get("rx_t")
    seconds = (float(end) - float(start) if _number(start) and _number(end)
               else sum(float(s["seconds"]) for s in first.steps))
    warmup = first.phase.get("warmup")
    return {"event": "result", "suite": out.suite, "headline": headline, "figures": figures,
            "warmup": warmup if isinstance(warmup, dict) else {},
            "measure": {"steps": len(first.steps), "seconds": seconds, "items": items},
            "details": {"parts_measured": [p.name for p in parts if p.name is not None]}
            if len(parts) > 1 or first.name is not None else {},
            "interrupted": {"measured_steps": len(first.steps),
                            "planned_steps": out.options.steps}}


def _number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)
