"""Figures per watt: a suite's headline rate per watt of board power and the energy per item,
worked out from the measured window only (the warm-up is left out) with the telemetry samples the
run recorded and their timestamps.

The window of a figure is the measured steps of its part (``decode`` for llm-infer's decode
rate; every measured step where the suite has one part), each step the interval ``[t - seconds,
t]`` on the parent's clock, the same clock as the telemetry. Between two consecutive samples the
power is the energy counter's difference over the time between them where the driver has a
counter (NVML), else the mean of the two power readings (amdgpu hwmon); the energy of the window
is that power over the part of the window those pairs cover, scaled to the whole window. No
figure is given (absent, never zero) where no power was read, where fewer than
:data:`MIN_SAMPLES` samples touch the window, or where the samples cover less than
:data:`MIN_COVERAGE` of it: :func:`why_not` says which.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.report.model import Efficiency, PowerSource, Step, SuiteRun, TelemetrySample

MIN_SAMPLES = 3  # samples touching the measured window
MIN_COVERAGE = 0.8  # the share of the window that sample pairs span

# The figure each suite's efficiency is of, and the part of the run it was measured in (None:
# every measured step). sd15-infer's headline is seconds per image; its rate is images/s.
FIGURES: dict[str, tuple[tuple[str, str | None], ...]] = {
    "resnet50-train": (("throughput", None),),
    "sd15-infer": (("throughput", None),),
    "llm-train": (("throughput", None),),
    "llm-infer": (("decode_throughput", "decode"), ("prefill_throughput", "prefill")),
    "gemm": (("tflops_bf16", "bf16"),),
}
ITEMS = {"images/s": "image", "tokens/s": "token"}
# What a sampler read, by its kind (core.bench.telemetry): a report that does not name its
# source (written before 1.x recorded it) is read by the backend's one sampler.
SAMPLERS = {"hip": "amdgpu-sysfs", "cuda": "nvml"}
SOURCE_NAMES = {"amdgpu-sysfs": "amdgpu hwmon", "nvml": "NVML"}


@dataclass(frozen=True)
class _Window:
    intervals: tuple[tuple[float, float], ...]
    seconds: float
    items: int


def _window(steps: Sequence[Step], part: str | None) -> _Window | None:
    chosen = [s for s in steps if s.phase == "measure" and s.t is not None
              and (part is None or s.part == part)]
    if not chosen:
        return None
    intervals = tuple((float(s.t) - s.seconds, float(s.t)) for s in chosen  # type: ignore[arg-type]
                      if s.seconds > 0)
    seconds = sum(b - a for a, b in intervals)
    if seconds <= 0:
        return None
    return _Window(intervals, seconds, sum(s.items for s in chosen))


def _overlap(a: float, b: float, intervals: Sequence[tuple[float, float]]) -> float:
    return sum(max(0.0, min(b, hi) - max(a, lo)) for lo, hi in intervals)


def _power(samples: Sequence[TelemetrySample],
           window: _Window) -> tuple[float, float, int, str] | str:
    """(mean W, covered share, samples used, method), or why there is none."""
    timed = sorted((s for s in samples if s.power_w is not None or s.energy_j is not None),
                   key=lambda s: s.t)
    if not timed:
        return "no-power"
    energy = covered = 0.0
    used: set[int] = set()
    counter = powered = 0
    for i in range(len(timed) - 1):
        a, b = timed[i], timed[i + 1]
        dt = b.t - a.t
        if dt <= 0:
            continue
        inside = _overlap(a.t, b.t, window.intervals)
        if inside <= 0:
            continue
        if a.energy_j is not None and b.energy_j is not None and b.energy_j >= a.energy_j:
            watts = (b.energy_j - a.energy_j) / dt
            counter += 1
        elif a.power_w is not None and b.power_w is not None:
            watts = (a.power_w + b.power_w) / 2
            powered += 1
        else:
            continue
        energy += watts * inside
        covered += inside
        used.update((i, i + 1))
    if len(used) < MIN_SAMPLES:
        return "too-few-samples"
    share = covered / window.seconds
    if share < MIN_COVERAGE:
        return "not-covered"
    method = "energy-counter" if counter and not powered else "power-samples"
    return energy / covered, share, len(used), method


def efficiencies(run: SuiteRun, source: PowerSource | None = None) -> list[Efficiency]:
    """The run's figures per watt; empty where none can be worked out."""
    res = run.result
    if res is None or run.device is None or run.device.backend == "cpu":
        return []
    source = source or run.power_source or _inferred(run)
    out = []
    for figure, part in FIGURES.get(run.suite, ()):
        f = res.figures.get(figure)
        if f is None or f.median <= 0:
            continue
        if not any(s.part == part for s in run.steps if s.phase == "measure"):
            part = None  # an older run without parts
        window = _window(run.steps, part)
        if window is None:
            continue
        got = _power(run.telemetry, window)
        if isinstance(got, str) or got[0] <= 0:
            continue
        watts, share, used, method = got
        joules = watts * window.seconds
        item = ITEMS.get(f.unit)
        out.append(Efficiency(
            figure=figure, part=part, per_watt=f.median / watts, unit=f"{f.unit}/W",
            mean_power_w=watts, joules=joules, window_s=window.seconds, samples=used,
            coverage=share, method=method,
            source=source.sampler if source else "unknown",
            reading=(source.energy if method == "energy-counter" else source.power)
            if source else None,
            items=window.items if item else None,
            per_item_j=joules / window.items if item and window.items else None,
            item_unit=item))
    return out


def of_run(run: SuiteRun) -> list[Efficiency]:
    """What the report holds, else worked out from its series (a report written before 1.x
    kept efficiency)."""
    return list(run.efficiency) or efficiencies(run)


def why_not(run: SuiteRun) -> str | None:
    """Why a run has no figure per watt: ``cpu``, ``no-power``, ``too-few-samples``,
    ``not-covered``, ``no-figure`` (the suite has no rate to divide) or None when it has one."""
    if run.result is None:
        return None
    if run.device is None or run.device.backend == "cpu":
        return "cpu"
    if of_run(run):
        return None
    figures = FIGURES.get(run.suite, ())
    if not any(f in run.result.figures for f, _ in figures):
        return "no-figure"
    part = next(p for f, p in figures if f in run.result.figures)
    if not any(s.part == part for s in run.steps if s.phase == "measure"):
        part = None
    window = _window(run.steps, part)
    if window is None:
        return "too-few-samples"
    got = _power(run.telemetry, window)
    return got if isinstance(got, str) else "no-power"


def _inferred(run: SuiteRun) -> PowerSource | None:
    """The sampler that rocmate opens for the run's backend (telemetry.open_sampler), for a
    report that did not record it."""
    sampler = SAMPLERS.get(run.device.backend if run.device else "")
    if sampler is None:
        return None
    if sampler == "nvml":
        return PowerSource(sampler=sampler, power="nvmlDeviceGetPowerUsage",
                           energy="nvmlDeviceGetTotalEnergyConsumption", inferred=True)
    return PowerSource(sampler=sampler, power="hwmon power1_average or power1_input",
                       energy=None, inferred=True)


def source_text(e: Efficiency) -> str:
    """``NVML (nvmlDeviceGetTotalEnergyConsumption)``: what the power was read from."""
    name = SOURCE_NAMES.get(e.source, e.source)
    return f"{name} ({e.reading})" if e.reading else name
