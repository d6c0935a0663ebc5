"""Statistics for step series: median, p10/p90, coefficient of variation, and the warm-up rule.

Standard library only (the worker imports it).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Summary:
    """Summary of a series of positive measurements."""

    n: int
    median: float
    p10: float
    p90: float
    mean: float
    min: float
    max: float
    cv: float | None  # sample standard deviation / mean; None for a single value (unknown)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) with linear interpolation between closest ranks."""
    if not values:
        raise ValueError("percentile of an empty series")
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"percentile {q} outside 0..100")
    data = sorted(values)
    if len(data) == 1:
        return float(data[0])
    pos = (len(data) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(data) - 1)
    frac = pos - lo
    return float(data[lo] + (data[hi] - data[lo]) * frac)


def cv(values: Sequence[float]) -> float | None:
    """Coefficient of variation (sample stdev / mean); None for fewer than two values (one
    value says nothing about the spread) or a zero mean."""
    if len(values) < 2:
        return None
    mean = statistics.fmean(values)
    if mean == 0:
        return None
    return statistics.stdev(values) / abs(mean)


def summarize(values: Sequence[float]) -> Summary:
    """Summary of a non-empty series."""
    if not values:
        raise ValueError("summary of an empty series")
    vals = [float(v) for v in values]
    return Summary(
        n=len(vals),
        median=float(statistics.median(vals)),
        p10=percentile(vals, 10),
        p90=percentile(vals, 90),
        mean=statistics.fmean(vals),
        min=min(vals),
        max=max(vals),
        cv=cv(vals),
    )


def figure(values: Sequence[float], unit: str, *, higher_is_better: bool = True) -> dict[str, Any]:
    """A result figure: the summary of a per-step series, with its unit."""
    return {"unit": unit, "higher_is_better": higher_is_better, **summarize(values).as_dict()}


@dataclass(frozen=True)
class PerStep:
    """How a figure is made from each measured step, so that the worker (a run that ended) and
    the parent (a run cut short: core.bench.partial) make it the same way. ``kind``: ``rate``,
    ``amount`` per second of the step (images/s, TFLOP/s); ``time``, the step's seconds per
    ``amount`` (s/image, s/step); ``series``, the figure the step reports itself (``name``)."""

    unit: str
    amount: float = 1.0
    kind: str = "rate"
    name: str | None = None
    higher_is_better: bool = True

    def values(self, times: Sequence[float], series: dict[str, list[float]]) -> list[float]:
        """The per-step values of this figure."""
        if self.kind == "series":
            return list(series.get(self.name or "", []))
        if self.kind == "time":
            return [t / self.amount for t in times]
        return [self.amount / t for t in times if t > 0]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> PerStep | None:
        """A spec as a ``phase`` event carries it; None for anything else."""
        if not isinstance(data, dict):
            return None
        try:
            spec = cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})
        except TypeError:
            return None
        ok = (isinstance(spec.unit, str) and spec.kind in ("rate", "time", "series")
              and isinstance(spec.amount, (int, float)) and not isinstance(spec.amount, bool)
              and math.isfinite(spec.amount) and spec.amount > 0)
        return spec if ok else None


def step_figures(specs: dict[str, PerStep], times: Sequence[float],
                 series: dict[str, list[float]]) -> dict[str, dict[str, Any]]:
    """The figures ``specs`` make of measured steps (their ``times`` and the figures they
    reported, ``series``); a figure without a value is left out."""
    out: dict[str, dict[str, Any]] = {}
    for name, spec in specs.items():
        values = spec.values(times, series)
        if values:
            out[name] = figure(values, spec.unit, higher_is_better=spec.higher_is_better)
    return out


def best_window(values: Sequence[float], window: int = 5) -> tuple[int, int]:
    """Where the ``window`` consecutive values with the highest median lie, as ``(start,
    stop)`` for ``values[start:stop]`` (the first such run when several tie): a robust "best
    burst" of a series of rates, which one lucky value cannot make. The whole series when it is
    shorter than ``window``, or when no window's median reaches the series' own median
    (possible only at its edges), so the window's median is never below the series' median."""
    vals = [float(v) for v in values]
    if len(vals) <= window:
        return 0, len(vals)
    start = max(range(len(vals) - window + 1),
                key=lambda i: (statistics.median(vals[i:i + window]), -i))
    if statistics.median(vals[start:start + window]) < statistics.median(vals):
        return 0, len(vals)
    return start, start + window


@dataclass(frozen=True)
class SettleRule:
    """When warm-up is over: the last ``window`` step times agree.

    Settled when the medians of the two halves of the window differ by at most ``drift``
    and the window's coefficient of variation is at most ``max_cv``. The first ``skip``
    steps (compile, autotuning) never count.
    """

    window: int = 6
    drift: float = 0.03
    max_cv: float = 0.05
    skip: int = 1

    def settled(self, times: Sequence[float]) -> bool:
        usable = list(times[self.skip :])
        if len(usable) < self.window:
            return False
        win = usable[-self.window :]
        half = self.window // 2
        first = statistics.median(win[:half])
        second = statistics.median(win[half:])
        if first <= 0:
            return False
        spread = cv(win)
        return abs(second - first) / first <= self.drift and spread is not None and (
            spread <= self.max_cv)
