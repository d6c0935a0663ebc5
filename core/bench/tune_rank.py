"""Ranking the settings ``rocmate tune`` measured: by the suite's headline figure, with its
spread, against today's defaults, and whether the gap is larger than the noise.

Pure: rows in, a ranking out. A variant that failed, was not run or does not apply keeps its
row with its state and reason (shown, never dropped).

The noise rule: each measured variant's headline has a coefficient of variation (CV) over its
measured steps. The winner is clearly faster than the defaults only when its gain is larger
than the two spreads together (CV of the winner + CV of the defaults): otherwise the two
ranges median x (1 +- CV) overlap and the answer is "no clear winner". A spread that is not
known (a single step) is never clear."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

DEFAULT = "default"
"""The id of today's defaults (the run without any variant)."""
STATES = ("ok", "failed", "not-run", "not-applicable", "cancelled")
"""ok: measured; failed: the worker failed (out of memory, a missing kernel, a crash, an
option it refused); not-run: the time budget ran out first; not-applicable: this suite,
platform or card does not take it; cancelled: the user stopped the tune during it."""
_ORDER = {state: i for i, state in enumerate(STATES)}


@dataclass(frozen=True)
class Measured:
    """One variant's outcome."""

    variant: str
    state: str
    headline: str | None = None  # the figure's name (throughput, images_per_s, ...)
    unit: str | None = None
    median: float | None = None
    cv: float | None = None
    higher_is_better: bool = True
    steps: int | None = None
    settled: bool | None = None
    """The warm-up's steadiness check: True settled, False measured anyway (not steady),
    None a fixed warm-up."""
    seconds: float | None = None  # the worker run's duration
    error_kind: str | None = None
    """A failure's kind (the protocol's: oom, no-binary-for-gpu, ...); for a variant not run,
    why: budget, cancelled, defaults."""
    reason: str | None = None
    """Why it failed (the worker's or the runner's message), why it was not run or does not
    apply."""
    vs_default: float | None = None
    """The gain over the defaults (0.12 = 12 % better; negative = worse), set by :func:`rank`."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Ranking:
    rows: tuple[Measured, ...]
    """ok rows best first, then failed, not run, cancelled, not applicable."""
    winner: str | None = None
    """The fastest variant (DEFAULT when nothing beat the defaults); None: nothing measured."""
    gain: float | None = None
    """The winner's gain over the defaults (None: the defaults were not measured)."""
    clear: bool = False
    """Whether the gain is larger than the spreads (see the module's noise rule)."""
    noise: float | None = None
    """The spreads together (CV of the winner + CV of the defaults)."""
    notes: list[str] = field(default_factory=list)

    def row(self, variant: str) -> Measured | None:
        return next((r for r in self.rows if r.variant == variant), None)

    def to_json(self) -> dict[str, Any]:
        return {"winner": self.winner, "gain": self.gain, "clear": self.clear,
                "noise": self.noise, "rows": [r.to_json() for r in self.rows]}


def gain_over(row: Measured, base: Measured) -> float | None:
    """How much better ``row`` is than ``base`` on their headline (0.1 = 10 % better)."""
    if not row.median or not base.median or row.headline != base.headline:
        return None
    if row.higher_is_better:
        return row.median / base.median - 1.0
    return base.median / row.median - 1.0


def rank(measured: list[Measured]) -> Ranking:
    """The ranking of ``measured`` (one row per variant, DEFAULT among them when it ran)."""
    base = next((m for m in measured if m.variant == DEFAULT and m.state == "ok"), None)
    rows = [replace(m, vs_default=gain_over(m, base)) if base and m.state == "ok" else m
            for m in measured]
    ok = [r for r in rows if r.state == "ok" and r.median]
    higher = ok[0].higher_is_better if ok else True
    ok.sort(key=lambda r: (-(r.median or 0.0) if higher else (r.median or 0.0)))
    rest = sorted((r for r in rows if r not in ok), key=lambda r: _ORDER.get(r.state, 99))
    ordered = tuple(ok + rest)
    if not ok:
        return Ranking(ordered)
    best = ok[0]
    if base is None:
        return Ranking(ordered, best.variant)
    gain = gain_over(best, base) or 0.0
    if best.variant == DEFAULT:
        return Ranking(ordered, DEFAULT, 0.0, False, _noise(best, base))
    noise = _noise(best, base)
    clear = noise is not None and gain > noise
    return Ranking(ordered, best.variant, gain, clear, noise)


def _noise(a: Measured, b: Measured) -> float | None:
    if a.cv is None or b.cv is None:
        return None
    return a.cv + (b.cv if a is not b else 0.0)
