"""How well a data-parallel run scales: its total throughput against the same suite on one GPU
through the same launcher, measured in the same invocation (``rocmate bench SUITE --gpus N``
runs ``--gpus 1`` first and keeps both runs in one report).

Derived from the report's runs whenever it is shown, never stored: the two runs' headline
medians and the larger run's rank count (its result's ``details.world_size``).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.i18n import t
from core.report.model import Report, SuiteRun


@dataclass(frozen=True)
class Scaling:
    suite: str
    gpus: int
    unit: str
    single: float
    """One GPU's throughput (the 1-rank run's headline median)."""
    total: float
    """All GPUs together (the N-rank run's headline median)."""
    on_gpu: bool = True
    """False for ranks on the CPU (a test of the path, not of GPUs)."""

    @property
    def speedup(self) -> float:
        return self.total / self.single

    @property
    def efficiency(self) -> float:
        """The total against N times one GPU: 1.0 is perfect scaling."""
        return self.total / (self.gpus * self.single)


def world_size(run: SuiteRun) -> int | None:
    """How many ranks measured the run (None: not a data-parallel run)."""
    if run.result is None:
        return None
    size = run.result.details.get("world_size")
    return size if isinstance(size, int) and not isinstance(size, bool) and size > 0 else None


def scaling(report: Report) -> list[Scaling]:
    """One :class:`Scaling` per suite that the report holds a 1-rank and an N-rank run of
    (both measured, the same headline figure and unit)."""
    found = []
    for run in report.runs:
        gpus = world_size(run)
        if run.status != "ok" or run.result is None or gpus is None or gpus < 2:
            continue
        base = next((r for r in report.runs if r.suite == run.suite and r.status == "ok"
                     and world_size(r) == 1 and r.result is not None
                     and r.result.headline == run.result.headline), None)
        if base is None or base.result is None:
            continue
        figure, single = run.result.headline_figure, base.result.headline_figure
        if figure.unit != single.unit or not single.median or figure.median is None:
            continue
        on_gpu = run.device is None or run.device.backend != "cpu"
        found.append(Scaling(run.suite, gpus, figure.unit, single.median, figure.median,
                             on_gpu))
    return found


def scaling_text(s: Scaling) -> str:
    """"2 GPUs: 1,820 images/s, 1.93 × one GPU (943 images/s), 96 % scaling efficiency"."""
    total, single = _num(s.total), _num(s.single)
    speedup, efficiency = f"{s.speedup:.2f}", f"{100 * s.efficiency:.0f}"
    if not s.on_gpu:
        return t("report.scaling.cpu", "{gpus} processes on the CPU: {total} {unit}, {speedup} "
                 "× one ({single} {unit}), {efficiency} % scaling efficiency", gpus=s.gpus,
                 total=total, unit=s.unit, speedup=speedup, single=single,
                 efficiency=efficiency)
    return t("report.scaling", "{gpus} GPUs: {total} {unit}, {speedup} × one GPU ({single} "
             "{unit}), {efficiency} % scaling efficiency", gpus=s.gpus, total=total,
             unit=s.unit, speedup=speedup, single=single, efficiency=efficiency)


def _num(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def scaling_lines(report: Report) -> list[str]:
    """"Scaling, resnet50-train: 2 GPUs: ..." for each data-parallel run of the report that was
    measured beside its single-GPU run (every front end shows these lines)."""
    return [t("report.text.scaling", "Scaling, {suite}: {scaling}", suite=s.suite,
              scaling=scaling_text(s)) for s in scaling(report)]

