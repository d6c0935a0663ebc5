"""The clocks and power beside gemm's two figures (issue 39): what the card ran at during its
burst and while it kept up the sustained rate.

gemm measures each dtype twice (core/bench/worker/suites/gemm.py): the burst, warm-up steps
1-4 on a rested card (``details.parts.<dtype>.burst_warmup_steps``), and the sustained rate, every
measured step. Each window is its steps' span on the parent's clock, the telemetry's clock. The
runner samples every 0.5 s and the burst lasts about 0.1 s, so a burst seldom holds a sample:
its clock and power are then the first sample after the burst began (a sampler's power is an
average over its last fraction of a second, so that sample covers the burst; one taken before it
shows the idle card), and :attr:`Conditions.after_s` says how long after the burst's end it
came. An older report, whose peak was no burst, gets the sustained window only.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from core.report.model import Step, SuiteRun, TelemetrySample

CORE_CLOCKS = ("sclk", "sm")  # the compute clock's name: amdgpu's pp_dpm_sclk, NVML's SM clock
AFTER_WITHIN_S = 0.6  # a sample later than this after a window's end says nothing of it


@dataclass(frozen=True)
class Conditions:
    """The card during one window of one dtype."""

    part: str  # the dtype: bf16, fp16, fp32
    window: str  # "burst" or "sustained"
    start: float
    end: float
    power_w: float | None
    clock_mhz: float | None
    samples: int  # samples inside the window (0: the first one after its start stands in)
    after_s: float | None = None  # how long after the window's end that sample came


def of_run(run: SuiteRun) -> list[Conditions]:
    """Per dtype, the burst's conditions (where the run measured a burst) and the sustained
    phase's; empty for a run that is not gemm or recorded no telemetry."""
    if run.suite != "gemm" or run.result is None or not run.telemetry:
        return []
    parts = run.result.details.get("parts")
    out: list[Conditions] = []
    for part, info in (parts.items() if isinstance(parts, dict) else ()):
        steps = [s for s in run.steps if s.part == part and s.t is not None]
        burst = info.get("burst_warmup_steps") if isinstance(info, dict) else None
        if isinstance(burst, list) and len(burst) == 2:
            first, last = burst
            chosen = [s for s in steps if s.phase == "warmup" and first <= s.index <= last]
            found = _conditions(part, "burst", chosen, run.telemetry)
            if found:
                out.append(found)
        found = _conditions(part, "sustained", [s for s in steps if s.phase == "measure"],
                            run.telemetry)
        if found:
            out.append(found)
    return out


def _conditions(part: str, window: str, steps: list[Step],
                telemetry: list[TelemetrySample]) -> Conditions | None:
    if not steps:
        return None
    start = min(float(s.t) - s.seconds for s in steps if s.t is not None)
    end = max(float(s.t) for s in steps if s.t is not None)
    inside = [s for s in telemetry if start <= s.t <= end]
    after_s = None
    if not inside:
        later = [s for s in telemetry if s.t > end]
        if not later:
            return None
        first = min(later, key=lambda s: s.t)
        after_s = first.t - end
        if after_s > AFTER_WITHIN_S:
            return None
        inside = [first]
    powers = [s.power_w for s in inside if s.power_w is not None]
    clocks = [c for s in inside if (c := _core_clock(s)) is not None]
    if not powers and not clocks:
        return None
    return Conditions(part=part, window=window, start=start, end=end,
                      power_w=statistics.median(powers) if powers else None,
                      clock_mhz=statistics.median(clocks) if clocks else None,
                      samples=len(inside) if after_s is None else 0, after_s=after_s)


def _core_clock(sample: TelemetrySample) -> float | None:
    for name in CORE_CLOCKS:
        if name in sample.clocks_mhz:
            return sample.clocks_mhz[name]
    return None
