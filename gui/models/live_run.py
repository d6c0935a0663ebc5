"""What the live graphs show of one benchmark run, kept apart from the widget that draws it.

:class:`LiveRun` takes the runner's events (or a saved report's run) and keeps every series in
numpy ring buffers (:class:`Ring`), with the run's shape around them: its parts, the warm-up
windows, the measured spans, the cold start, the measured-phase medians and which kinds of
telemetry the card offers. It draws nothing and needs no Qt (napari keeps its layers' data the
same way): gui/widgets/live_plots.py reads it at each tick of its timer. What changed since
that last drawing is said by four flags the widget clears as it catches up: ``dirty`` (series
with new points), ``decorated`` (shading, marks, medians), ``laid_out`` and ``titled``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.report.model import Figure, SuiteRun

STEP_PLOTS = ("throughput", "step_time")
TELEMETRY_PLOTS = ("power", "temperature", "clocks", "vram", "busy")
NoteFacts = tuple[tuple[str, ...], bool, float | None, str | None, bool]
"""What the note under the plots says: telemetry missing, nothing recorded, where telemetry
stopped, how a run without a step ended (LiveRun.note_facts)."""
MISSING_AFTER = 3  # samples without a kind of telemetry before it is "not available"
SILENT_AFTER_S = 5.0  # no sample this long after the worker's hello: no telemetry (the runner
#                       samples from its hello on, every 0.5 s)
COLD_CAP = 1.6  # a first step this many times the slowest other one is drawn at the top edge
GIB = float(2**30)
# Okabe-Ito: told apart by most colour-blind readers; curves of one plot also differ in dashes
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
SOLID, DASH, DOT, DASH_DOT = range(4)  # a curve's dashes (the widget's pen styles, in order)
DASHES = 4
ALL_GPUS = "all GPUs"  # the throughput's total line, named once a data-parallel run adds ranks
RANK_NAME = "rank %1"  # a data-parallel rank's series: "GPU 1" or "process 1" when shown
_RANK_KEY = re.compile(r"rank([0-9]{1,2})_s")
"""A data-parallel step's own time of each rank (core.bench.worker.parallel)."""
UNITS_BY_SUITE = {"gemm": "matmul/s", "bandwidth": "copies/s"}  # suites without a throughput
#                                                                 figure (their steps' unit)
WARMUP, MEASURE = 0.0, 1.0
LOG_RATIO = 20.0  # parts' rates this far apart: throughput on a log scale (gemm's dtypes are
#                   within 15x on an H200, llm-infer's prompt and decode 580x)
T, SECONDS, THROUGHPUT, PHASE, PART = range(5)  # the step ring's columns


class Ring:
    """Rows of ``columns`` float64 values, at most ``capacity`` of them: appending to a full
    ring drops its oldest row. Appending is O(1) and allocates nothing."""

    def __init__(self, capacity: int, columns: int) -> None:
        if capacity < 1:
            raise ValueError("a ring holds at least one row")
        self.capacity = capacity
        self._columns = [np.empty(capacity) for _ in range(columns)]
        self._head = 0  # where the next row goes
        self._len = 0
        self.total = 0  # rows appended since the last clear (dropped ones included)
        self.finite = True  # no NaN or infinity appended since the last clear
        self.lo = [math.inf] * columns  # each column's extremes since the last clear (finite
        self.hi = [-math.inf] * columns  # values only; dropped rows included)

    def __len__(self) -> int:
        return self._len

    def append(self, *row: float) -> None:
        i = self._head
        lo, hi = self.lo, self.hi
        for c, v in enumerate(row):
            self._columns[c][i] = v
            if v - v == 0.0:  # finite (NaN and infinities give NaN)
                if v < lo[c]:
                    lo[c] = v
                if v > hi[c]:
                    hi[c] = v
            else:
                self.finite = False
        self._head = i + 1 if i + 1 < self.capacity else 0
        if self._len < self.capacity:
            self._len += 1
        self.total += 1

    def column(self, c: int) -> np.ndarray:
        """Column ``c``, oldest first: a view while the ring has not wrapped (appends go past
        its end), a copy once it has."""
        column = self._columns[c]
        if self._len < self.capacity:
            return column[:self._len]
        h = self._head
        return np.concatenate((column[h:], column[:h]))

    def clear(self) -> None:
        self._head = self._len = self.total = 0
        self.finite = True
        self.lo = [math.inf] * len(self.lo)
        self.hi = [-math.inf] * len(self.hi)


@dataclass
class Series:
    """One curve's points and how it looks; the widget keeps the curve that draws it."""

    key: str
    plot: str
    ring: Ring
    y: int  # the ring's column holding the values (column 0 holds the times)
    name: str | None  # legend entry (None: the plot's only curve)
    colour: str
    dash: int = SOLID
    scale: float = 1.0
    drawn: bool = True  # False: kept and counted, drawn otherwise (VRAM total: one line)


@dataclass
class Median:
    value: float
    x0: float
    x1: float
    part: str | None


class LiveRun:
    """One run's series and shape; see the module's docstring."""

    def __init__(self, capacity: int = 200_000) -> None:
        self.capacity = capacity
        self.steps = Ring(capacity, 5)
        self.series: dict[str, Series] = {
            "throughput": Series("throughput", "throughput", self.steps, THROUGHPUT, None,
                                 COLOURS[0]),
            "step_time": Series("step_time", "step_time", self.steps, SECONDS, None, COLOURS[0]),
        }
        self._reset_state()

    def _reset_state(self) -> None:
        self.steps_seen = 0
        self.t_max = 0.0  # the latest time seen
        self.t_min: float | None = None  # where the first data lie (x starts there)
        self.t_data: float | None = None  # where the last data lie (x ends there at the end)
        self.unit = ""
        self.parts: list[str | None] = []
        self.part: str | None = None
        self.part_marks: list[tuple[float, str]] = []
        self.warm: list[list[float]] = []  # [start, end] of each warm-up
        self.warm_open = False
        self.measured: dict[str | None, list[float]] = {}  # part -> [start, end]
        self.part_top: dict[str | None, float] = {}  # part -> its fastest step's throughput
        self.cold: tuple[float, float, float] | None = None  # t, seconds, throughput
        self.firsts: dict[str | None, tuple[float, float, float]] = {}  # part -> its first step
        self.later_max = 0.0  # the slowest step that is no part's first
        self.vram_total: float | None = None  # bytes, the latest
        self.median_lines: list[Median] = []
        self.samples = 0
        self.have: set[str] = set()
        self.no_telemetry = False  # known before a sample could come: a CPU, a stop
        self.on_cpu = False  # the run measures the CPU: no card, no card's telemetry
        self.hello_t: float | None = None
        self.silent = False  # no sample SILENT_AFTER_S after the hello
        self.stopped_at: float | None = None
        self.stop_reason = ""
        self.ended_by: str | None = None  # "cancelled" or "failed": the run's error, if any
        self.finished = False
        # what the drawing owes (the widget clears each as it catches up)
        self.dirty: set[str] = set()  # series with points not drawn yet
        self.decorated = True  # shading, marks, ranges to bring up to date
        self.laid_out = False  # which telemetry plots show, the note
        self.titled = False  # titles and legends

    def reset(self) -> list[Series]:
        """A new run: every series cleared; returns the series taken away (their curves go)."""
        self.steps.clear()
        self.series["throughput"].name = None  # named again by a data-parallel run
        gone = [self.series.pop(key) for key in list(self.series) if key not in STEP_PLOTS]
        self._reset_state()
        self.dirty.update(self.series)
        return gone

    # -- events in --------------------------------------------------------------------------------

    def add_event(self, event: dict[str, Any]) -> None:
        """One runner event (with ``rx_t``, seconds since the run started)."""
        kind = event.get("event")
        t = _number(event.get("rx_t"))
        if t is not None and t > self.t_max:
            self.t_max = t
            if self.warm_open:  # the warm-up under way grows with the time
                self.warm[-1][1] = t
                self.decorated = True
            if (not self.samples and not self.silent and self.hello_t is not None
                    and t - self.hello_t >= SILENT_AFTER_S):
                self.silent = True
                self.laid_out = False
        if kind == "step":
            self._event_step(event, t)
        elif kind == "telemetry":
            if t is not None:
                self.take_sample(t, _number(event.get("power_w")), _number(event.get("busy_pct")),
                                 _number(event.get("vram_used_bytes")),
                                 _number(event.get("vram_total_bytes")),
                                 _numbers(event.get("temps_c")), _numbers(event.get("clocks_mhz")))
        elif kind == "phase":
            self._event_phase(event, t)
        elif kind == "hello":
            self.hello_t = t
            if event.get("backend") == "cpu":  # no sampler reads a CPU's power or clocks
                self.no_telemetry = True
                self.on_cpu = True
                self.laid_out = False
        elif kind == "telemetry-stopped":
            self.stopped_at = t
            self.stop_reason = str(event.get("reason") or "")
            if not self.samples:
                self.no_telemetry = True
            self.laid_out = False
        elif kind == "result":
            self.close_warmup()
            warmup = event.get("warmup")
            self.cold_as_result(_number(warmup.get("first_step_s"))
                                if isinstance(warmup, dict) else None)
            self.set_medians(event.get("headline"), _figures(event.get("figures")))
        elif kind in ("error", "end"):
            if kind == "error":
                self.ended_by = _ended_by(event.get("kind"))
            self.close_warmup()

    def take_run(self, run: SuiteRun) -> None:
        """A finished run from a saved report: the same series the live feed made."""
        figure = run.result.figures.get("throughput") if run.result else None
        self.unit = figure.unit if figure else UNITS_BY_SUITE.get(run.suite, "")
        self.titled = False
        previous = 0.0
        for step in run.steps:
            t = step.t if step.t is not None else previous + step.seconds
            previous = t
            throughput = step.items / step.seconds if step.seconds > 0 else None
            self.take_step(step.phase, step.part, t, step.seconds, throughput)
            if step.figures:
                self.take_ranks(t, float(step.items), step.figures)
        for s in run.telemetry:
            self.take_sample(s.t, s.power_w, s.busy_pct,
                             None if s.vram_used_bytes is None else float(s.vram_used_bytes),
                             None if s.vram_total_bytes is None else float(s.vram_total_bytes),
                             s.temps_c, s.clocks_mhz)
        self.close_warmup()
        if run.device is not None and run.device.backend == "cpu":
            self.no_telemetry = self.on_cpu = True
        if run.error is not None or run.status != "ok":
            self.ended_by = "cancelled" if run.status == "cancelled" else _ended_by(
                run.error.kind if run.error else None)
        self.t_max = max(run.duration_s, self.t_data or 0.0)
        if run.result is not None:
            self.cold_as_result(run.result.warmup.first_step_s)
            self.set_medians(run.result.headline, run.result.figures)
        self.finish()

    def cold_as_result(self, first_step_s: float | None) -> None:
        """The cold start the result names (its warm-up's first step: for llm-infer its
        decode's, the part the headline measures), as core's ``cold_start()`` takes it; the
        slowest part's first step stands where no part's first step is that one."""
        chosen = next((f for f in self.firsts.values() if f[1] == first_step_s), None)
        if chosen is not None and chosen != self.cold:
            self.cold = chosen
            self.decorated = True

    def finish(self) -> None:
        """The run ended: the whole run is to be laid out and drawn once more."""
        self.close_warmup()
        self.finished = True
        self.laid_out = False

    def _event_step(self, event: dict[str, Any], t: float | None) -> None:
        seconds = _number(event.get("seconds"))
        if t is None or seconds is None:
            return
        unit = event.get("unit")
        if isinstance(unit, str) and unit != self.unit:
            self.unit = unit
            self.titled = False
        throughput = _number(event.get("throughput"))
        if throughput is None:
            items = _number(event.get("items"))
            throughput = items / seconds if items is not None and seconds > 0 else None
        part = event.get("part")
        self.take_step(str(event.get("phase")), part if isinstance(part, str) else None, t,
                       seconds, throughput)
        self.take_ranks(t, _number(event.get("items")), event)

    def take_ranks(self, t: float, items: float | None, figures: Mapping[str, Any]) -> None:
        """A data-parallel step: a line per GPU beside the total, each GPU's own rate (its
        share of the items over its own step time)."""
        ranks: dict[int, float] = {}
        for key, value in figures.items():
            match, seconds = _RANK_KEY.fullmatch(key), _number(value)
            if match and seconds is not None:
                ranks[int(match[1])] = seconds
        if not ranks or items is None:
            return
        if self.series["throughput"].name is None:
            self.series["throughput"].name = ALL_GPUS
            self.titled = False
        share = items / len(ranks)
        for rank, seconds in sorted(ranks.items()):
            self._append(f"rank:{rank}", "throughput", RANK_NAME.replace("%1", str(rank)), t,
                         share / seconds if seconds > 0 else math.nan, dash=DOT)

    def _event_phase(self, event: dict[str, Any], t: float | None) -> None:
        phase = event.get("phase")
        part = event.get("part")
        if t is None:
            return
        if isinstance(part, str):
            self._enter_part(part, t)
        if phase == "warmup":
            self._seen(t)
            self.close_warmup()
            self.warm.append([t, t])
            self.warm_open = True
            self.decorated = True
        elif phase in ("measure", "done"):
            if self.warm_open:
                self.warm[-1][1] = max(self.warm[-1][1], t)
            self.close_warmup()

    def _enter_part(self, part: str | None, x: float) -> None:
        """A step or phase of ``part``: a new part ends the warm-up under way and is marked."""
        if self.parts and part == self.part:
            return
        if self.parts:
            self.close_warmup()
        self.part = part
        if part not in self.parts:
            self.parts.append(part)
        if part is not None:
            self.part_marks.append((x, part))
        self.decorated = True

    def take_step(self, phase: str, part: str | None, t: float, seconds: float,
                  throughput: float | None) -> None:
        start = t - seconds
        self._seen(start, t)
        self._enter_part(part, start)
        self.steps_seen += 1
        value = throughput if throughput is not None else math.nan
        if part not in self.firsts:
            self.firsts[part] = (t, seconds, value)
            if self.cold is None or seconds > self.cold[1]:
                self.cold = self.firsts[part]
                self.decorated = True
        elif seconds > self.later_max:
            self.later_max = seconds
        if phase == "warmup":
            if not self.warm_open:
                self.warm.append([start, t])
                self.warm_open = True
            self.warm[-1][1] = max(self.warm[-1][1], t)
            code = WARMUP
        else:
            self.close_warmup()
            span = self.measured.setdefault(part, [start, t])
            span[1] = t
            code = MEASURE
        self.steps.append(t, seconds, value, code, float(self.parts.index(part)))
        if value > self.part_top.get(part, 0.0):  # a NaN is never greater
            self.part_top[part] = value
        self.dirty.update(STEP_PLOTS)
        if code == WARMUP or self.steps_seen == 1:
            self.decorated = True

    def _seen(self, t: float, end: float | None = None) -> None:
        """Data from ``t`` (to ``end``): where the x axis starts, and ends once finished."""
        if self.t_min is None or t < self.t_min:
            self.t_min = t
            self.decorated = True
        last = t if end is None else end
        if self.t_data is None or last > self.t_data:
            self.t_data = last

    def close_warmup(self) -> None:
        self.warm_open = False

    def take_sample(self, t: float, power: float | None, busy: float | None,
                    vram_used: float | None, vram_total: float | None,
                    temps: Mapping[str, float], clocks: Mapping[str, float]) -> None:
        self.samples += 1
        self._seen(t)
        had = len(self.have)
        if power is not None:
            self._append("power", "power", None, t, power)
            self.have.add("power")
        if busy is not None:
            self._append("busy", "busy", None, t, busy)
            self.have.add("busy")
        if vram_used is not None:
            self._append("vram_used", "vram", "used", t, vram_used, scale=1 / GIB)
            self.have.add("vram")
        if vram_total is not None:  # kept as a series, drawn as one line at the latest
            self._append("vram_total", "vram", "total", t, vram_total, scale=1 / GIB,
                         dash=DASH, drawn=False)
            if vram_total != self.vram_total:
                self.vram_total = vram_total
                self.decorated = True
        for name, value in temps.items():
            self._append(f"temp:{name}", "temperature", name, t, value)
            self.have.add("temperature")
        for name, value in clocks.items():
            self._append(f"clock:{name}", "clocks", name, t, value)
            self.have.add("clocks")
        if len(self.have) != had or self.samples in (1, MISSING_AFTER):
            self.laid_out = False

    def _append(self, key: str, plot: str, name: str | None, t: float, value: float, *,
                scale: float = 1.0, dash: int | None = None, drawn: bool = True) -> None:
        series = self.series.get(key)
        if series is None:
            n = sum(1 for s in self.series.values() if s.plot == plot)
            series = self.series[key] = Series(
                key, plot, Ring(self.capacity, 2), 1, name, COLOURS[n % len(COLOURS)],
                dash if dash is not None else n % DASHES, scale, drawn)
            self.titled = False  # a plot's title holds its legend
        series.ring.append(t, value)
        self.dirty.add(key)

    def set_medians(self, headline: Any, figures: Mapping[str, Figure]) -> None:
        """The measured-phase median of each part's throughput: the report's figure where one
        has the steps' unit (the headline first), else the median of the measured steps."""
        self.median_lines = []
        measured = [p for p in self.parts if p in self.measured]
        figure = None
        if len(measured) == 1 and self.unit:
            names = [headline] if isinstance(headline, str) else []
            names += [n for n in figures if n != headline]
            figure = next((figures[n] for n in names if n in figures
                           and figures[n].unit == self.unit), None)
        for part in measured:
            x0, x1 = self.measured[part]
            value = figure.median if figure is not None else self._measured_median(part)
            if value is not None:
                self.median_lines.append(Median(value, x0, x1, part))
        self.decorated = True

    def _measured_median(self, part: str | None) -> float | None:
        code = float(self.parts.index(part))
        mask = ((self.steps.column(PHASE) == MEASURE) & (self.steps.column(PART) == code))
        values = self.steps.column(THROUGHPUT)[mask]
        values = values[np.isfinite(values)]
        return float(np.median(values)) if values.size else None

    # -- what the drawing reads --------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        """Points held per series: throughput, step_time, power, busy, vram_used, vram_total,
        and temp:<sensor>, clock:<name> for each sensor and clock the card reported."""
        out = {key: len(s.ring) for key, s in self.series.items()}
        for key in ("power", "busy", "vram_used", "vram_total"):
            out.setdefault(key, 0)
        return out

    def points(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        """The points held for series ``key`` (a key of :meth:`counts`), oldest first: times
        and values as plotted (VRAM in GiB)."""
        series = self.series.get(key)
        if series is None:
            return np.empty(0), np.empty(0)
        return series.ring.column(0).copy(), series.ring.column(series.y) * series.scale

    def medians(self) -> dict[str | None, float]:
        """The measured-phase median drawn per part (None: a run without parts)."""
        return {m.part: m.value for m in self.median_lines}

    def missing(self, kind: str) -> bool:
        """Whether to say that the card does not offer this kind of telemetry (a sample with
        it, even a late one, brings its plot back)."""
        if kind in self.have:
            return False
        return (self.finished or self.samples >= MISSING_AFTER
                or ((self.no_telemetry or self.silent) and not self.samples))

    def note_facts(self) -> NoteFacts:
        """What the note under the plots is to say: the kinds of telemetry missing, whether
        nothing was recorded at all (the run ended before it began), where telemetry stopped,
        and how a run that ended without a step ended (its graphs are empty: the note says
        why)."""
        missing = tuple(k for k in TELEMETRY_PLOTS if self.missing(k))
        nothing = len(missing) == len(TELEMETRY_PLOTS) and not (
            self.samples or self.steps_seen or self.hello_t is not None or self.no_telemetry)
        stopped = self.stopped_at if self.stopped_at is not None and self.samples else None
        empty = self.ended_by if self.finished and not self.steps_seen else None
        return missing, nothing, stopped, empty, self.on_cpu

    def cold_capped(self) -> float | None:
        """The first step's time when it is far above every later step and still held (it is
        then drawn at the top edge of the step-time plot), else None."""
        if (self.cold is None or len(self.steps) < 2
                or self.steps.total > self.steps.capacity):
            return None
        return self.cold[1] if self.cold[1] > COLD_CAP * self.rest_max else None

    @property
    def rest_max(self) -> float:
        """The slowest step but the cold start (the other parts' first steps included)."""
        others = [f[1] for f in self.firsts.values() if f is not self.cold]
        return max([self.later_max, *others])

    def undecided(self) -> bool:
        """A new run that has said nothing yet about its telemetry."""
        return not (self.samples or self.no_telemetry or self.silent or self.finished
                    or self.hello_t is not None)

    def log_throughput(self) -> bool:
        """Throughput on a log scale: a run whose parts' rates lie more than LOG_RATIO apart
        (llm-infer on an H200: its prompt at 20,000 tokens/s, its decode at 36), where on one
        linear axis the slower part was a flat line on zero. Each part's fastest step decides
        (a cold first step, far slower than the rest, does not)."""
        tops = [v for v in self.part_top.values() if v > 0]
        return len(tops) >= 2 and max(tops) >= LOG_RATIO * min(tops)

    def y_extremes(self, plot: str) -> tuple[float, float] | None:
        """The lowest and highest value of every series of ``plot`` as plotted, dropped points
        included: O(1)."""
        lows: list[float] = []
        highs: list[float] = []
        for s in self.series.values():
            if s.plot == plot and len(s.ring) and s.ring.lo[s.y] <= s.ring.hi[s.y]:
                lows.append(s.ring.lo[s.y] * s.scale)
                highs.append(s.ring.hi[s.y] * s.scale)
        return (min(lows), max(highs)) if highs else None

    def joins(self, series: Series, y: np.ndarray) -> np.ndarray | None:
        """For a run of several parts (gemm's bf16, fp16, fp32), which point joins the next: a
        part's line ends where the next part's begins (no drop drawn from one dtype's figures to
        another's), and a gap stays a gap; None for a run of one part."""
        if series.ring is not self.steps or len(self.parts) < 2:
            return None
        parts = series.ring.column(PART)
        joins = np.zeros(len(parts), dtype=bool)
        joins[:-1] = parts[1:] == parts[:-1]
        if not series.ring.finite:
            finite = np.isfinite(y)
            joins[:-1] &= finite[:-1] & finite[1:]
        return joins

    def trend(self, blocks: int) -> tuple[np.ndarray, np.ndarray]:
        """The throughput's block medians, about ``blocks`` blocks over the steps."""
        return block_medians(self.steps.column(T), self.steps.column(THROUGHPUT),
                             self.steps.column(PART), max(3, len(self.steps) // blocks))


def block_medians(t: np.ndarray, values: np.ndarray, parts: np.ndarray,
                  width: int) -> tuple[np.ndarray, np.ndarray]:
    """The median of each ``width`` consecutive values within a part, at its block's mean time;
    a NaN between parts (so no line joins them). A part's last, shorter block counts too."""
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    edges = np.flatnonzero(parts[1:] != parts[:-1]) + 1
    for start, end in zip(np.r_[0, edges], np.r_[edges, len(values)], strict=True):
        for a in range(start, end, width):
            b = min(a + width, end)
            block = values[a:b]
            finite = block[np.isfinite(block)]
            xs.append(np.array([t[a:b].mean()]))
            ys.append(np.array([np.median(finite) if finite.size else np.nan]))
        xs.append(np.array([t[end - 1]]))
        ys.append(np.array([np.nan]))
    return np.concatenate(xs), np.concatenate(ys)


def _ended_by(kind: object) -> str:
    """How a run with an ``error`` of ``kind`` ended: "cancelled" (stopped: the runner's
    ``interrupted``) or "failed"."""
    return "cancelled" if kind == "interrupted" else "failed"


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _numbers(value: Any) -> dict[str, float]:
    if not isinstance(value, dict):
        return {}
    return {str(k): float(v) for k, v in value.items()
            if isinstance(v, (int, float)) and not isinstance(v, bool)}


def _figures(value: Any) -> dict[str, Figure]:
    """A result event's figures as the report's (unit and median are all a median line needs)."""
    out: dict[str, Figure] = {}
    for name, d in (value or {}).items() if isinstance(value, dict) else ():
        if isinstance(d, dict) and isinstance(d.get("unit"), str):
            median = _number(d.get("median"))
            if median is not None:
                out[str(name)] = Figure(unit=d["unit"], median=median)
    return out
