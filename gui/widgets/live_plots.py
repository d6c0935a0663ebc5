"""Live benchmark graphs: throughput and step time per step, and the card's power, temperature,
clocks, VRAM and busy share one time axis (seconds since the run started, the runner's ``rx_t``).

Events are appended to numpy ring buffers (:class:`Ring`) and nothing is drawn then; a timer
(25 Hz by default) redraws only what changed, with pyqtgraph's peak downsampling and clipping to
the view, so a series of 100,000 points stays smooth. Warm-up is shaded, the first step (the cold
start) is marked, and once the run has a result the measured-phase median is drawn, the same
figure the report keeps. A saved report's run (:meth:`LivePlots.show_run`) draws the same series
from its steps and telemetry. Telemetry a card does not offer is said in words, not shown as an
empty plot.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import gui.qt  # noqa: F401  (the binding is chosen before pyqtgraph looks for one)

# isort: split

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QObject, QPointF, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainterPath, QPalette, QPen, QResizeEvent
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from core.report.formatting import num
from core.report.model import Figure, SuiteRun
from gui.widgets.findings import selectable_label
from gui.widgets.plot_marks import Band, Rule, Tag

STEP_PLOTS = ("throughput", "step_time")
TELEMETRY_PLOTS = ("power", "temperature", "clocks", "vram", "busy")
_NoteFacts = tuple[tuple[str, ...], bool, float | None, str | None, bool]
"""What the note under the plots says: telemetry missing, nothing recorded, where telemetry
stopped, how a run without a step ended (LivePlots._note_facts)."""
MISSING_AFTER = 3  # samples without a kind of telemetry before it is "not available"
SILENT_AFTER_S = 5.0  # no sample this long after the worker's hello: no telemetry (the runner
#                       samples from its hello on, every 0.5 s)
COLD_CAP = 1.6  # a first step this many times the slowest other one is drawn at the top edge
GIB = float(2**30)
# Okabe-Ito: told apart by most colour-blind readers; curves of one plot also differ in dashes
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
DASHES = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine,
          Qt.PenStyle.DashDotLine)
_VRAM_NAMES = {"used": QT_TRANSLATE_NOOP("LivePlots", "used"),
               "total": QT_TRANSLATE_NOOP("LivePlots", "total")}
"""The VRAM plot's two curves, named in its legend (translated when shown; the names of the
card's sensors and clocks are the card's own)."""
_ALL_GPUS = str(QT_TRANSLATE_NOOP("LivePlots", "all GPUs"))
STAR_PX = 13.0  # the cold start's star, across (the x range leaves room for half of it)
_RANK_NAME = "rank %1"  # a data-parallel rank's series: "GPU 1" or "process 1" when shown
"""The throughput plot's total line, named once a data-parallel run adds a line per GPU."""
_RANK_KEY = re.compile(r"rank([0-9]{1,2})_s")
"""A data-parallel step's own time of each rank (core.bench.worker.parallel)."""
_UNITS_BY_SUITE = {"gemm": "matmul/s", "bandwidth": "copies/s"}  # suites without a throughput
#                                                                  figure (their steps' unit)
_LINE_SAMPLES = {Qt.PenStyle.SolidLine: "\u2501\u2501", Qt.PenStyle.DashLine: "\u254d\u254d",
                 Qt.PenStyle.DotLine: "\u2509\u2509", Qt.PenStyle.DashDotLine: "\u2501\u2509"}
TITLE_PT, LEGEND_PT = 9.0, 8.0
_WARMUP, _MEASURE = 0.0, 1.0
_T, _SECONDS, _THROUGHPUT, _PHASE, _PART = range(5)  # the step ring's columns
# From this many steps on, the throughput's raw points are drawn faint under a line of block
# medians (a step's rate scatters by tens of percent in a long LLM run: drawn as they are, the
# points fill a solid band); a block is about 1/60 of the steps, within one part.
TREND_FROM = 150
TREND_BLOCKS = 60


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


class _SharedX(pg.ViewBox):
    """A view whose linked x range is the other view's, as it is: pyqtgraph lines linked views
    up by where they sit on the screen, which suits plots stacked in one column, not a grid."""

    def linkedViewChanged(self, view: Any, axis: int) -> None:
        if axis != pg.ViewBox.XAxis or self.linksBlocked or view is None:
            super().linkedViewChanged(view, axis)
            return
        view.blockLink(True)
        try:
            self.enableAutoRange(pg.ViewBox.XAxis, False)
            lo, hi = view.viewRange()[0]
            self.setXRange(lo, hi, padding=0)
        finally:
            view.blockLink(False)


@dataclass
class _Series:
    """One curve: where its points are kept and how it is drawn."""

    plot: str
    ring: Ring
    y: int  # the ring's column holding the values (column 0 holds the times)
    name: str | None  # legend entry (None: the plot's only curve)
    colour: str
    dash: Qt.PenStyle = Qt.PenStyle.SolidLine
    scale: float = 1.0
    drawn: bool = True  # False: kept and counted, drawn otherwise (VRAM total: one line)
    curve: Any = None  # its pg.PlotDataItem, made at the first redraw that shows it


@dataclass
class _Plot:
    key: str
    widget: Any  # pg.PlotWidget
    follow: bool = True  # the y range follows the data until the user zooms or pans
    y_range: tuple[float, float] | None = None


@dataclass
class _Median:
    value: float
    x0: float
    x1: float
    part: str | None


class LivePlots(QWidget):
    """The live graphs of one benchmark run; see the module's docstring."""

    def __init__(self, parent: QWidget | None = None, *, capacity: int = 200_000,
                 fps: float = 25.0) -> None:
        super().__init__(parent)
        self.capacity = capacity
        self.redraws = 0
        self.steps_seen = 0
        palette = self.palette()
        self._bg = palette.color(QPalette.ColorRole.Base)
        self._fg = palette.color(QPalette.ColorRole.Text)
        self._plots: dict[str, _Plot] = {key: self._make_plot(key)
                                         for key in STEP_PLOTS + TELEMETRY_PLOTS}
        self._shown: set[str] = set(self._plots)  # the plots laid out (decorated) now
        master = self._plots["throughput"].widget
        for plot in self._plots.values():
            if plot.widget is not master:
                plot.widget.setXLink(master)
        self._x_follow = True  # the shared x range follows the run until the user zooms

        self._deco: dict[tuple[str, str], Any] = {}  # (plot, name) -> shading, mark, label
        self._deco_state: dict[tuple[str, str, str], object] = {}  # what each was last set to
        self._rows_shown: list[list[str]] = [[k] for k in STEP_PLOTS]  # painted apart
        self._held: list[list[str]] = []  # rows whose painting waits for the next ticks
        self._resting = False  # the timer stops once the held rows are painted
        self._touched: set[tuple[str, str]] = set()
        self._rows: list[list[tuple[float, float]]] = []  # median labels side by side
        self._steps = Ring(capacity, 5)
        self._trend: Any = None  # the throughput's line of block medians (a pg.PlotDataItem)
        self._series: dict[str, _Series] = {
            "throughput": _Series("throughput", self._steps, _THROUGHPUT, None, COLOURS[0]),
            "step_time": _Series("step_time", self._steps, _SECONDS, None, COLOURS[0]),
        }
        self._reset_state()

        self._timer = QTimer(self)
        self._timer.setInterval(max(1, round(1000.0 / fps)))
        self._timer.timeout.connect(self._tick)

        self._note = selectable_label("")
        self._note.setObjectName("live-plots-telemetry-note")
        self._key = selectable_label("")
        self._key.setObjectName("live-plots-key")
        small = self._key.font()
        small.setPointSizeF(max(7.0, small.pointSizeF() * 0.9))
        self._key.setFont(small)
        for label in (self._note, self._key):
            label.setContentsMargins(4, 0, 4, 0)
        self._telemetry = QWidget()
        self._grid = QGridLayout(self._telemetry)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setSpacing(2)
        for c in range(6):
            self._grid.setColumnStretch(c, 1)
        steps_row = QHBoxLayout()
        steps_row.setSpacing(2)
        for key in STEP_PLOTS:
            steps_row.addWidget(self._plots[key].widget)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(2)
        self._layout.addLayout(steps_row, 3)
        self._layout.addWidget(self._telemetry, 4)
        self._layout.addWidget(self._note)
        self._layout.addWidget(self._key)
        self._columns = 0
        self._bottom: set[str] = set()  # the plots of the last row
        # what the note under the plots says (said again in the words of a new language)
        self._noted: _NoteFacts | None = None
        self._retranslate()
        self._relayout()

    def _reset_state(self) -> None:
        self.steps_seen = 0
        self._t_max = 0.0  # the latest time seen
        self._t_min: float | None = None  # where the first data lie (x starts there)
        self._t_data: float | None = None  # where the last data lie (x ends there at the end)
        self._unit = ""
        self._titled = False
        self._parts: list[str | None] = []
        self._part: str | None = None
        self._part_marks: list[tuple[float, str]] = []
        self._warm: list[list[float]] = []  # [start, end] of each warm-up
        self._warm_open = False
        self._measured: dict[str | None, list[float]] = {}  # part -> [start, end]
        self._cold: tuple[float, float, float] | None = None  # t, seconds, throughput
        self._rest_max = 0.0  # the slowest step after the first
        self._vram_total: float | None = None  # bytes, the latest
        self._medians: list[_Median] = []
        self._samples = 0
        self._have: set[str] = set()
        self._no_telemetry = False  # known before a sample could come: a CPU, a stop
        self._on_cpu = False  # the run measures the CPU: no card, no card's telemetry
        self._hello_t: float | None = None
        self._silent = False  # no sample SILENT_AFTER_S after the hello
        self._stopped_at: float | None = None
        self._stop_reason = ""
        self._ended_by: str | None = None  # "cancelled" or "failed": the run's error, if any
        self._finished = False
        self._dirty: set[str] = set()
        self._decorated = True  # shading, marks, ranges to bring up to date
        self._laid_out = False  # which telemetry plots show, the note

    # -- what the page calls ---------------------------------------------------------------------

    def reset(self) -> None:
        """A new run starts: every series, shading and mark is cleared (on screen at the next
        tick of the timer)."""
        self._steps.clear()
        self._series["throughput"].name = None  # named again by a data-parallel run
        raw = self._series["throughput"]
        if self._trend is not None:
            self._trend.setData([], [])
            if raw.curve is not None:
                raw.curve.setPen(pg.mkPen(raw.colour, width=2.0))
        for key in [k for k in self._series if k not in STEP_PLOTS]:
            series = self._series.pop(key)
            if series.curve is not None:
                self._remove_curve(series)
        self._reset_state()
        self._x_follow = True
        for plot in self._plots.values():
            plot.follow = True
            plot.y_range = None
            # the last run's scales go with it: a new run's axes start plain, not at its
            # predecessor's 0-4,600 images/s until its own first step
            plot.widget.getPlotItem().getViewBox().setRange(xRange=(0.0, 1.0), yRange=(0.0, 1.0),
                                                            padding=0)
        self._dirty.update(self._series)
        self._hold_rows()  # a first run shows the plots now: not all painted at once
        self._resting = False
        self._timer.start()

    def add_event(self, event: dict[str, Any]) -> None:
        """One runner event (with ``rx_t``, seconds since the run started): kept, not drawn."""
        kind = event.get("event")
        t = _number(event.get("rx_t"))
        if t is not None and t > self._t_max:
            self._t_max = t
            if self._warm_open:  # the warm-up under way grows with the time
                self._warm[-1][1] = t
                self._decorated = True
            if (not self._samples and not self._silent and self._hello_t is not None
                    and t - self._hello_t >= SILENT_AFTER_S):
                self._silent = True
                self._laid_out = False
        if kind == "step":
            self._event_step(event, t)
        elif kind == "telemetry":
            if t is not None:
                self._take_sample(t, _number(event.get("power_w")),
                                  _number(event.get("busy_pct")),
                                  _number(event.get("vram_used_bytes")),
                                  _number(event.get("vram_total_bytes")),
                                  _numbers(event.get("temps_c")),
                                  _numbers(event.get("clocks_mhz")))
        elif kind == "phase":
            self._event_phase(event, t)
        elif kind == "hello":
            self._hello_t = t
            if event.get("backend") == "cpu":  # no sampler reads a CPU's power or clocks
                self._no_telemetry = True
                self._on_cpu = True
                self._laid_out = False
        elif kind == "telemetry-stopped":
            self._stopped_at = t
            self._stop_reason = str(event.get("reason") or "")
            if not self._samples:
                self._no_telemetry = True
            self._laid_out = False
        elif kind == "result":
            self._close_warmup()
            self._set_medians(event.get("headline"), _figures(event.get("figures")))
        elif kind in ("error", "end"):
            if kind == "error":
                self._ended_by = _ended_by(event.get("kind"))
            self._close_warmup()
        if not self._timer.isActive() and not self._finished:
            self._timer.start()

    def show_run(self, run: SuiteRun) -> None:
        """A finished run from a saved report: the same series as the live feed drew, at once."""
        self.reset()
        figure = run.result.figures.get("throughput") if run.result else None
        self._unit = figure.unit if figure else _UNITS_BY_SUITE.get(run.suite, "")
        self._titled = False
        previous = 0.0
        for step in run.steps:
            t = step.t if step.t is not None else previous + step.seconds
            previous = t
            throughput = step.items / step.seconds if step.seconds > 0 else None
            self._take_step(step.phase, step.part, t, step.seconds, throughput)
            if step.figures:
                self._take_ranks(t, float(step.items), step.figures)
        for s in run.telemetry:
            self._take_sample(s.t, s.power_w, s.busy_pct,
                              None if s.vram_used_bytes is None else float(s.vram_used_bytes),
                              None if s.vram_total_bytes is None else float(s.vram_total_bytes),
                              s.temps_c, s.clocks_mhz)
        self._close_warmup()
        if run.device is not None and run.device.backend == "cpu":
            self._no_telemetry = self._on_cpu = True
        if run.error is not None or run.status != "ok":
            self._ended_by = "cancelled" if run.status == "cancelled" else _ended_by(
                run.error.kind if run.error else None)
        self._t_max = max(run.duration_s, self._t_data or 0.0)
        if run.result is not None:
            self._set_medians(run.result.headline, run.result.figures)
        self._finished = True
        self._laid_out = False
        self._redraw()
        while self._held:  # a saved run is shown whole at once: nothing streams in
            self._release(self._held.pop(0))
        self._rest()

    def finish(self) -> None:
        """The run ended: a last redraw (the whole run in view), then the timer stops."""
        self._close_warmup()
        self._finished = True
        self._laid_out = False
        self._redraw()
        self._rest()

    def _rest(self) -> None:
        """Nothing more to draw: the timer stops (once the rows held back are painted)."""
        self._resting = bool(self._held)
        if not self._held:
            self._timer.stop()

    def counts(self) -> dict[str, int]:
        """Points held per series: throughput, step_time, power, busy, vram_used, vram_total,
        and temp:<sensor>, clock:<name> for each sensor and clock the card reported."""
        out = {key: len(s.ring) for key, s in self._series.items()}
        for key in ("power", "busy", "vram_used", "vram_total"):
            out.setdefault(key, 0)
        return out

    # -- what tests and the results page may read -----------------------------------------------

    def points(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        """The points held for series ``key`` (a key of :meth:`counts`), oldest first: times
        and values as plotted (VRAM in GiB)."""
        series = self._series.get(key)
        if series is None:
            return np.empty(0), np.empty(0)
        return series.ring.column(0).copy(), series.ring.column(series.y) * series.scale

    def plot(self, key: str) -> Any:
        """The pg.PlotWidget of a plot: throughput, step_time, power, temperature, clocks,
        vram or busy."""
        return self._plots[key].widget

    def medians(self) -> dict[str | None, float]:
        """The measured-phase median drawn per part (None: a run without parts)."""
        return {m.part: m.value for m in self._medians}

    def telemetry_note(self) -> str:
        """What the note under the plots says about telemetry ("" when it is hidden)."""
        return self._note.text() if self._note.isVisibleTo(self) else ""

    def visible_plots(self) -> list[str]:
        """The plots shown, in their order: throughput, step_time, then the telemetry ones
        the card offers (or that are still awaited)."""
        return [key for key, plot in self._plots.items() if plot.widget.isVisibleTo(self)]

    # -- events into the model ------------------------------------------------------------------

    def _event_step(self, event: dict[str, Any], t: float | None) -> None:
        seconds = _number(event.get("seconds"))
        if t is None or seconds is None:
            return
        unit = event.get("unit")
        if isinstance(unit, str) and unit != self._unit:
            self._unit = unit
            self._titled = False
        throughput = _number(event.get("throughput"))
        if throughput is None:
            items = _number(event.get("items"))
            throughput = items / seconds if items is not None and seconds > 0 else None
        part = event.get("part")
        self._take_step(str(event.get("phase")), part if isinstance(part, str) else None, t,
                        seconds, throughput)
        self._take_ranks(t, _number(event.get("items")), event)

    def _take_ranks(self, t: float, items: float | None, figures: Mapping[str, Any]) -> None:
        """A data-parallel step: a line per GPU beside the total, each GPU's own rate (its
        share of the items over its own step time)."""
        ranks: dict[int, float] = {}
        for key, value in figures.items():
            match, seconds = _RANK_KEY.fullmatch(key), _number(value)
            if match and seconds is not None:
                ranks[int(match[1])] = seconds
        if not ranks or items is None:
            return
        if self._series["throughput"].name is None:
            self._series["throughput"].name = _ALL_GPUS
            self._titled = False
        share = items / len(ranks)
        for rank, seconds in sorted(ranks.items()):
            self._append(f"rank:{rank}", "throughput", _RANK_NAME.replace("%1", str(rank)), t,
                         share / seconds if seconds > 0 else math.nan,
                         dash=Qt.PenStyle.DotLine)

    def _event_phase(self, event: dict[str, Any], t: float | None) -> None:
        phase = event.get("phase")
        part = event.get("part")
        if t is None:
            return
        if isinstance(part, str):
            self._enter_part(part, t)
        if phase == "warmup":
            self._seen(t)
            self._close_warmup()
            self._warm.append([t, t])
            self._warm_open = True
            self._decorated = True
        elif phase in ("measure", "done"):
            if self._warm_open:
                self._warm[-1][1] = max(self._warm[-1][1], t)
            self._close_warmup()

    def _enter_part(self, part: str | None, x: float) -> None:
        """A step or phase of ``part``: a new part ends the warm-up under way and is marked."""
        if self._parts and part == self._part:
            return
        if self._parts:
            self._close_warmup()
        self._part = part
        if part not in self._parts:
            self._parts.append(part)
        if part is not None:
            self._part_marks.append((x, part))
        self._decorated = True

    def _take_step(self, phase: str, part: str | None, t: float, seconds: float,
                   throughput: float | None) -> None:
        start = t - seconds
        self._seen(start, t)
        self._enter_part(part, start)
        self.steps_seen += 1
        value = throughput if throughput is not None else math.nan
        if self._cold is None:
            self._cold = (t, seconds, value)
        elif seconds > self._rest_max:
            self._rest_max = seconds
        if phase == "warmup":
            if not self._warm_open:
                self._warm.append([start, t])
                self._warm_open = True
            self._warm[-1][1] = max(self._warm[-1][1], t)
            code = _WARMUP
        else:
            self._close_warmup()
            span = self._measured.setdefault(part, [start, t])
            span[1] = t
            code = _MEASURE
        self._steps.append(t, seconds, value, code, float(self._parts.index(part)))
        self._dirty.update(STEP_PLOTS)
        if code == _WARMUP or self.steps_seen == 1:
            self._decorated = True

    def _seen(self, t: float, end: float | None = None) -> None:
        """Data from ``t`` (to ``end``): where the x axis starts, and ends once finished."""
        if self._t_min is None or t < self._t_min:
            self._t_min = t
            self._decorated = True
        last = t if end is None else end
        if self._t_data is None or last > self._t_data:
            self._t_data = last

    def _close_warmup(self) -> None:
        self._warm_open = False

    def _take_sample(self, t: float, power: float | None, busy: float | None,
                     vram_used: float | None, vram_total: float | None,
                     temps: Mapping[str, float], clocks: Mapping[str, float]) -> None:
        self._samples += 1
        self._seen(t)
        had = len(self._have)
        if power is not None:
            self._append("power", "power", None, t, power)
            self._have.add("power")
        if busy is not None:
            self._append("busy", "busy", None, t, busy)
            self._have.add("busy")
        if vram_used is not None:
            self._append("vram_used", "vram", "used", t, vram_used, scale=1 / GIB)
            self._have.add("vram")
        if vram_total is not None:  # kept as a series, drawn as one line at the latest
            self._append("vram_total", "vram", "total", t, vram_total, scale=1 / GIB,
                         dash=Qt.PenStyle.DashLine, drawn=False)
            if vram_total != self._vram_total:
                self._vram_total = vram_total
                self._decorated = True
        for name, value in temps.items():
            self._append(f"temp:{name}", "temperature", name, t, value)
            self._have.add("temperature")
        for name, value in clocks.items():
            self._append(f"clock:{name}", "clocks", name, t, value)
            self._have.add("clocks")
        if len(self._have) != had or self._samples in (1, MISSING_AFTER):
            self._laid_out = False

    def _append(self, key: str, plot: str, name: str | None, t: float, value: float, *,
                scale: float = 1.0, dash: Qt.PenStyle | None = None, drawn: bool = True) -> None:
        series = self._series.get(key)
        if series is None:
            n = sum(1 for s in self._series.values() if s.plot == plot)
            series = self._series[key] = _Series(
                plot, Ring(self.capacity, 2), 1, name, COLOURS[n % len(COLOURS)],
                dash if dash is not None else DASHES[n % len(DASHES)], scale, drawn)
            self._titled = False  # a plot's title holds its legend
        series.ring.append(t, value)
        self._dirty.add(key)

    def _set_medians(self, headline: Any, figures: Mapping[str, Figure]) -> None:
        """The measured-phase median of each part's throughput: the report's figure where one
        has the steps' unit (the headline first), else the median of the measured steps."""
        self._medians = []
        measured = [p for p in self._parts if p in self._measured]
        figure = None
        if len(measured) == 1 and self._unit:
            names = [headline] if isinstance(headline, str) else []
            names += [n for n in figures if n != headline]
            figure = next((figures[n] for n in names if n in figures
                           and figures[n].unit == self._unit), None)
        for part in measured:
            x0, x1 = self._measured[part]
            value = figure.median if figure is not None else self._measured_median(part)
            if value is not None:
                self._medians.append(_Median(value, x0, x1, part))
        self._decorated = True

    def _measured_median(self, part: str | None) -> float | None:
        code = float(self._parts.index(part))
        mask = ((self._steps.column(_PHASE) == _MEASURE) & (self._steps.column(_PART) == code))
        values = self._steps.column(_THROUGHPUT)[mask]
        values = values[np.isfinite(values)]
        return float(np.median(values)) if values.size else None

    # -- telemetry that is not there -------------------------------------------------------------

    def _missing(self, kind: str) -> bool:
        """Whether to say that the card does not offer this kind of telemetry (a sample with
        it, even a late one, brings its plot back)."""
        if kind in self._have:
            return False
        return (self._finished or self._samples >= MISSING_AFTER
                or ((self._no_telemetry or self._silent) and not self._samples))

    def _note_facts(self) -> _NoteFacts:
        """What the note under the plots is to say: the kinds of telemetry missing, whether
        nothing was recorded at all (the run ended before it began), where telemetry stopped,
        and how a run that ended without a step ended (its graphs are empty: the note says
        why)."""
        missing = tuple(k for k in TELEMETRY_PLOTS if self._missing(k))
        nothing = len(missing) == len(TELEMETRY_PLOTS) and not (
            self._samples or self.steps_seen or self._hello_t is not None or self._no_telemetry)
        stopped = self._stopped_at if self._stopped_at is not None and self._samples else None
        empty = self._ended_by if self._finished and not self.steps_seen else None
        return missing, nothing, stopped, empty, self._on_cpu

    def _note_text(self, facts: _NoteFacts) -> str:
        """The note, in the language now set."""
        missing, nothing, stopped, _, on_cpu = facts  # an empty run's words are over its plots
        parts: list[str] = []
        if on_cpu:
            parts.append(self.tr("Measured on the CPU: no card's power, temperature, clocks or "
                                 "load to show."))
        elif nothing:
            parts.append(self.tr("No telemetry was recorded."))  # the run ended before it began
        elif len(missing) == len(TELEMETRY_PLOTS):
            parts.append(self.tr("Telemetry (power, temperature, clocks, VRAM, GPU busy) is not "
                                 "available on this card."))
        elif missing:
            names = self.tr(", ").join(self._titles[k] for k in missing)
            parts.append(self.tr("Not available on this card: %1.").replace("%1", names))
        if stopped is not None:
            parts.append(self.tr("Telemetry stopped at %1 s.").replace("%1", f"{stopped:.1f}"))
        text = parts[0] if parts else ""
        for part in parts[1:]:
            text = self.tr("%1 %2", "two sentences").replace("%1", text).replace("%2", part)
        return text

    def _relayout(self) -> None:
        """Show the telemetry plots a card offers, packed into rows; say what is missing."""
        columns = 3 if self.width() >= 720 else 2
        undecided = not (self._samples or self._no_telemetry or self._silent or self._finished
                         or self._hello_t is not None)
        if undecided and self._columns == columns:
            # a new run that has said nothing yet keeps the last run's plots: laying seven
            # plots out and back again (a CPU run after a CPU run) stalls the window for nothing
            self._laid_out = True
            return
        shown = [k for k in TELEMETRY_PLOTS if not self._missing(k)]
        master = self._plots["throughput"].widget
        for key in TELEMETRY_PLOTS:
            widget = self._plots[key].widget
            self._grid.removeWidget(widget)
            widget.setVisible(key in shown)
            # a hidden plot leaves the shared time axis: each move of it would otherwise
            # re-clip its curves for nothing (linked again, it takes the range at once)
            widget.setXLink(master if key in shown else None)
        rows = (len(shown) + columns - 1) // columns
        for i, key in enumerate(shown):
            row, col = divmod(i, columns)
            in_row = min(columns, len(shown) - row * columns)
            span = 6 // in_row  # six grid columns: rows of 1, 2 or 3 plots fill the width
            self._grid.addWidget(self._plots[key].widget, row, col * span, 1, span)
        for r in range(3):
            self._grid.setRowStretch(r, 1 if r < rows else 0)
        self._telemetry.setVisible(bool(shown))
        if not self._shown.issuperset(shown):
            self._titled = False  # a plot shown again: its title in today's words and unit
        self._shown = set(STEP_PLOTS) | set(shown)
        # painted apart when all change at once: each step plot, then each telemetry row
        self._rows_shown = [[key] for key in STEP_PLOTS] + [
            shown[r * columns:(r + 1) * columns] for r in range(rows)]
        self._decorated = True  # a plot shown now gets its shading and marks
        self._layout.setStretch(1, 2 * rows)
        self._bottom = set(shown[(rows - 1) * columns:]) if shown else set(STEP_PLOTS)
        for key, plot in self._plots.items():  # the time axis is named under the last row
            plot.widget.getPlotItem().showLabel("bottom", key in self._bottom)
        self._noted = self._note_facts()
        text = self._note_text(self._noted)
        self._note.setText(text)
        self._note.setVisible(bool(text))
        self._say_why_empty()
        self._note.setToolTip(self._stop_reason)
        self._columns = columns
        self._laid_out = True

    # -- drawing ---------------------------------------------------------------------------------

    def _tick(self) -> None:
        """The timer: a row held back is painted, else a redraw where something changed, else
        the timer rests until the next event."""
        if self._held:
            self._release(self._held.pop(0))
            if not self._held and self._resting:
                self._resting = False
                self._timer.stop()
        elif self._dirty or self._decorated or not self._laid_out or not self._titled:
            self._redraw()
        else:
            self._timer.stop()

    def _hold_rows(self) -> None:
        """Every plot is to be drawn anew (the shared x range moved: axes and curves all
        change). Seven plots painted in one frame stall the window (about 10 ms each on a
        slow machine), so the throughput plot is painted now and the step-time plot and each
        row of telemetry at the next ticks of the timer, one a tick (they still show their
        last picture meanwhile, for 40 to 120 ms)."""
        held = {key for row in self._held for key in row}
        for row in self._rows_shown[1:]:
            # only plots not held already, each in a row that will be let go: rows held before
            # the layout changed (telemetry arriving moves plots between rows) keep theirs, and
            # a plot held outside every row would stay unpainted (black) for good
            fresh = [key for key in row if key not in held]
            if fresh:
                for key in fresh:
                    self._plots[key].widget.setUpdatesEnabled(False)
                self._held.append(fresh)
                held.update(fresh)
        if self._held:
            self._timer.start()

    def _release(self, row: list[str]) -> None:
        for key in row:
            self._plots[key].widget.setUpdatesEnabled(True)  # and painted at the next frame

    @property
    def settled(self) -> bool:
        """Whether everything received is drawn and painted (the timer rests)."""
        return not self._timer.isActive()

    def _redraw(self) -> None:
        """New points to the curves; titles, layout and decorations where they changed. While
        the run is live, one of those three a tick at most (each is tens of milliseconds on a
        slow machine and repaints the plots): they follow at the next ticks, 40 ms apart."""
        self.redraws += 1
        busy = False  # a heavy step was taken this tick
        if not self._titled:
            self._retitle()
            busy = True
        if not self._laid_out and (self._finished or not busy):
            self._relayout()
            busy = True
        dirty = [self._series[k] for k in self._dirty if k in self._series]
        changed = {s.plot for s in dirty} | ({"step_time"} if self._cold else set())
        self._set_ranges(changed)
        for series in dirty:
            if not series.drawn:
                continue
            y = series.ring.column(series.y)
            self._draw(series, series.ring.column(0), y * series.scale if series.scale != 1.0
                       else y)
        if self._series["throughput"] in dirty:
            self._draw_trend()
        self._dirty.clear()
        if self._decorated and (self._finished or not busy):
            self._decorate()
            self._decorated = False

    def _draw(self, series: _Series, x: np.ndarray, y: np.ndarray) -> None:
        plot = self._plots[series.plot]
        if series.curve is None:
            # 2 px solid lines are drawn as segments (fast); a dashed line is one path,
            # which is only fast at 1 px
            solid = series.dash == Qt.PenStyle.SolidLine
            pen = pg.mkPen(series.colour, width=2.0 if solid else 1.0, style=series.dash)
            # peak downsampling to a bin per 2 pixels (its low and its high point): it looks
            # the same as pyqtgraph's default (5 values per pixel) and draws 10 times fewer
            series.curve = pg.PlotDataItem(pen=pen, antialias=False, autoDownsampleFactor=0.5)
            plot.widget.addItem(series.curve)
        joins = self._joins(series, y)
        if joins is not None:
            series.curve.setData(x, y, connect=joins)
        elif series.ring.finite:
            series.curve.setData(x, y, skipFiniteCheck=True, connect="all")
        else:
            series.curve.setData(x, y, connect="finite")

    def _draw_trend(self) -> None:
        """The throughput's line of block medians over its raw points (see TREND_FROM), and
        the raw line faint beneath it; below TREND_FROM steps, the raw line alone."""
        raw = self._series["throughput"]
        trend = self._trend
        if len(self._steps) < TREND_FROM:
            if trend is not None:
                trend.setData([], [])
            return
        if trend is None:
            trend = self._trend = pg.PlotDataItem(pen=pg.mkPen(raw.colour, width=2.0),
                                                  antialias=False)
            self._plots["throughput"].widget.addItem(trend)
        if raw.curve is not None:
            raw.curve.setPen(pg.mkPen(_alpha(QColor(raw.colour), 70), width=1.0))
        x, y = block_medians(self._steps.column(_T), self._steps.column(_THROUGHPUT),
                             self._steps.column(_PART), max(3, len(self._steps) // TREND_BLOCKS))
        trend.setData(x, y, connect="finite")

    def trend(self) -> tuple[np.ndarray, np.ndarray]:
        """The throughput's trend line as drawn (empty below TREND_FROM steps)."""
        if self._trend is None:
            return np.empty(0), np.empty(0)
        x, y = self._trend.getData()
        return (np.empty(0), np.empty(0)) if x is None else (x, y)

    def _joins(self, series: _Series, y: np.ndarray) -> np.ndarray | None:
        """For a run of several parts (gemm's bf16, fp16, fp32), which point joins the next: a
        part's line ends where the next part's begins (no drop drawn from one dtype's figures to
        another's), and a gap stays a gap; None for a run of one part."""
        if series.ring is not self._steps or len(self._parts) < 2:
            return None
        parts = series.ring.column(_PART)
        joins = np.zeros(len(parts), dtype=bool)
        joins[:-1] = parts[1:] == parts[:-1]
        if not series.ring.finite:
            finite = np.isfinite(y)
            joins[:-1] &= finite[:-1] & finite[1:]
        return joins

    def _remove_curve(self, series: _Series) -> None:
        self._plots[series.plot].widget.removeItem(series.curve)
        series.curve = None
        self._titled = False

    def _set_ranges(self, changed: Iterable[str]) -> None:
        """The shared x range (from the first data to a little past now while live, the whole
        run at the end) and the y range of each plot in ``changed``, set before the curves'
        data so pyqtgraph clips and downsamples them once. Ranges move in steps, not at every
        redraw (each change makes pyqtgraph clip and downsample every curve again)."""
        master = self._plots["throughput"].widget
        if self._x_follow:
            box = master.getPlotItem().getViewBox()
            lo, hi = box.viewRange()[0]
            first = self._t_min if self._t_min is not None else 0.0
            span = max(self._t_max - first, 1.0)
            # room at each end for the first step's star (STAR_PX across), whole at any width
            room = max(0.02, STAR_PX / max(box.width(), 50.0))
            if self._finished:  # the data, not the worker's start and exit around them
                span = max((self._t_data or self._t_max) - first, 0.1)
                pad = room * span
                if abs(lo - (first - pad)) > 1e-9 or abs(hi - (first + span + pad)) > 1e-9:
                    self._set_x(first - pad, first + span + pad)
            elif (abs(lo - (first - room * span)) > 0.01 * span or self._t_max > hi
                  or hi - self._t_max > 0.5 * span):
                self._set_x(first - room * span, first + 1.25 * span)
        for key in changed:
            plot = self._plots[key]
            want = self._y_range(key)
            if not plot.follow or want is None:
                continue
            have = plot.y_range
            if (have is None or want[1] > have[1] or want[0] < have[0]
                    or want[1] - want[0] < 0.6 * (have[1] - have[0])
                    or (self._finished and want != have)):
                plot.y_range = want
                plot.widget.getPlotItem().getViewBox().setYRange(*want, padding=0)
                self._decorated = self._decorated or key == "step_time"  # the capped star

    def _set_x(self, lo: float, hi: float) -> None:
        self._decorated = True  # labels pick their side anew
        self._hold_rows()
        self._plots["throughput"].widget.getPlotItem().getViewBox().setXRange(lo, hi, padding=0)

    def _y_range(self, key: str) -> tuple[float, float] | None:
        """Where a plot's y axis runs: from 0 (temperatures: around the data) to a little
        above the top; step time leaves out a far slower first step (marked at the top edge).
        From the extremes of every value appended, dropped ones included: O(1)."""
        lows: list[float] = []
        highs: list[float] = []
        for s in self._series.values():
            if s.plot == key and len(s.ring) and s.ring.lo[s.y] <= s.ring.hi[s.y]:
                lows.append(s.ring.lo[s.y] * s.scale)
                highs.append(s.ring.hi[s.y] * s.scale)
        if not highs:
            return None
        lo, hi = min(lows), max(highs)
        capped = key == "step_time" and self._cold_capped() is not None
        if capped:
            hi = self._rest_max
        if key == "temperature":
            pad = max(2.0, 0.15 * (hi - lo))
            return (math.floor(lo - pad), math.ceil(hi + pad))
        if key == "busy":
            return (-4.0, max(100.0, hi) * 1.05)
        lo = min(0.0, lo)
        if hi <= lo:
            hi = lo + 1.0
        # room above the data: for the median's label, and for a capped first step's star
        top = hi * (1.3 if key == "throughput" else 1.35 if capped else 1.2)
        # the zero line and a marker on it stay in view: 4 %, and at least half a star (the
        # first step, far slower than the rest, sits on the zero line of throughput)
        height = self._plots[key].widget.getPlotItem().getViewBox().height()
        f = min((STAR_PX / 2 + 1) / max(height, 40.0), 0.25)  # that half star, of the height
        bottom = lo - 0.04 * (hi - lo)
        # (lo - bottom) = f * (top - bottom): the bottom that leaves f of the height below 0
        return (min(bottom, (lo - f * top) / (1 - f)), top)

    def _cold_capped(self) -> float | None:
        """The first step's time when it is far above every later step and still held (it is
        then drawn at the top edge of the step-time plot), else None."""
        if (self._cold is None or len(self._steps) < 2
                or self._steps.total > self._steps.capacity):
            return None
        return self._cold[1] if self._cold[1] > COLD_CAP * self._rest_max else None

    def _decorate(self) -> None:
        """Shading, part marks, the cold start and the medians: each item made once, then
        moved; those no longer wanted are taken away."""
        self._touched = set()
        shown = [key for key in self._plots if key in self._shown]  # a hidden plot: none
        for n, (x0, x1) in enumerate(self._warm):
            for key in shown:
                region = self._item(key, f"warm{n}", self._make_region)
                self._set(key, f"warm{n}", region.setRegion, (x0, max(x0, x1)))
        for n, (x, part) in enumerate(self._part_marks):
            for key in shown:
                line = self._item(key, f"part{n}", partial(self._make_mark, key, part))
                self._set(key, f"part{n}", line.setValue, x)
        self._decorate_cold()
        if self._vram_total is not None:
            total = self._series["vram_total"]
            line = self._item("vram", "total", lambda: pg.InfiniteLine(
                angle=0, movable=False,
                pen=pg.mkPen(total.colour, width=1.5, style=Qt.PenStyle.DashLine)))
            self._set("vram", "total", line.setValue, self._vram_total / GIB)
        self._rows = []
        for n, m in enumerate(self._medians):
            self._decorate_median(n, m)
        for gone in [k for k in self._deco if k not in self._touched]:
            self._plots[gone[0]].widget.removeItem(self._deco.pop(gone))
            for state in [k for k in self._deco_state if k[:2] == gone]:
                del self._deco_state[state]

    def _set(self, plot: str, name: str, setter: Callable[..., object], *value: Any,
             part: str = "") -> None:
        """``setter(*value)`` on a decoration where the value differs from the one it was last
        given: pyqtgraph redraws a plot for every call, a changed value or not, and a
        redraw of all seven plots at once stalls the window."""
        key = (plot, name, part)
        if self._deco_state.get(key, self) != value:
            self._deco_state[key] = value
            setter(*value)

    def _item(self, plot: str, name: str, make: Callable[[], Any]) -> Any:
        key = (plot, name)
        item = self._deco.get(key)
        if item is None:
            item = self._deco[key] = make()
            widget = self._plots[plot].widget
            widget.addItem(item, ignoreBounds=True)
            if isinstance(item, (Band, Rule)):
                item.fit(*widget.getPlotItem().getViewBox().viewRange()[1])
        self._touched.add(key)
        return item

    def _fit_marks(self, plot: str, bottom: float, top: float) -> None:
        """A plot's y range changed: its bands and lines span the new one."""
        for (key, _), item in self._deco.items():
            if key == plot and isinstance(item, (Band, Rule)):
                item.fit(bottom, top)

    def _make_region(self) -> Band:
        return Band(_alpha(self._fg, 28))

    def _make_mark(self, key: str, part: str) -> Rule:
        label = None
        if key in STEP_PLOTS:  # the part's name at the foot of the line
            label = Tag(self._fg, _alpha(self._bg, 200), foot=True)
            label.setText(part)
        return Rule(_alpha(self._fg, 140), label)

    def _make_star(self) -> QGraphicsPathItem:
        """The cold start's mark: a star 13 px across, drawn by Qt itself (a scatter plot
        of one point costs pyqtgraph a millisecond at every paint of its plot)."""
        star = QGraphicsPathItem(_star_path(STAR_PX / 2))
        star.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        star.setBrush(QColor(COLOURS[1]))
        pen = QPen(self._fg, 1.0)
        pen.setCosmetic(True)
        star.setPen(pen)
        star.setZValue(5)
        return star

    def _make_label(self) -> Tag:
        return Tag(self._fg, _alpha(self._bg, 210))

    def _place(self, label: Tag, plot: str, x: float, *, centre: bool,
               rows: list[list[tuple[float, float]]] | None = None) -> QPointF:
        """Where ``label`` goes: at the top of ``plot`` (the y range leaves room there), centred on
        ``x`` or just after it (before it where the view ends first), inside the view; with
        ``rows``, a line lower where it would overlap a label placed before."""
        view = self._plots[plot].widget.getPlotItem().getViewBox()
        (lo, hi), (bottom, top) = view.viewRange()
        width_px = view.width() if view.width() > 0 else 1.0
        per_px = (hi - lo) / width_px if hi > lo else 0.0
        box = label.size()
        width = box.width() * per_px
        if centre:
            left = x - width / 2
        else:
            left = x + 6 * per_px
            if left + width > hi:
                left = x - 6 * per_px - width
        left = max(lo, min(left, hi - width))
        row = 0
        if rows is not None:
            while row < len(rows) and any(a < left + width and left < b for a, b in rows[row]):
                row += 1
            if row == len(rows):
                rows.append([])
            rows[row].append((left, left + width))
        per_px_y = (top - bottom) / view.height() if view.height() > 0 else 0.0
        return QPointF(left, top - row * box.height() * per_px_y)

    def _decorate_cold(self) -> None:
        """A star at the first step on both step plots; in the step-time plot, where that step
        is usually far above the rest, it sits at the top edge with its time written out."""
        if self._cold is None:
            return
        t, seconds, throughput = self._cold
        capped = self._cold_capped() is not None
        y_range = self._plots["step_time"].y_range
        at = min(seconds, y_range[1] * 0.94) if capped and y_range else seconds
        for key, y in (("throughput", throughput), ("step_time", at)):
            if math.isfinite(y):
                star = self._item(key, "cold", self._make_star)
                self._set(key, "cold", star.setPos, QPointF(t, y))
        text = self._words["cold"].replace("%1", num(seconds))
        label = self._item("step_time", "cold-label", self._make_label)
        # the arrow: off the scale, above
        self._set("step_time", "cold-label", label.setText, text + (" \u2191" if capped else ""))
        self._set("step_time", "cold-label", label.setPos,
                  self._place(label, "step_time", t, centre=False), part="pos")

    def _decorate_median(self, n: int, m: _Median) -> None:
        """The median as a dashed line over the measured steps; its label at the top of the
        plot (the y range leaves room there), above the line's middle."""
        line = self._item("throughput", f"median{n}", lambda: pg.PlotCurveItem(
            pen=pg.mkPen(COLOURS[1], width=2, style=Qt.PenStyle.DashLine)))
        self._set("throughput", f"median{n}", line.setData, [m.x0, m.x1], [m.value, m.value])
        if m.part is None:
            text = self._words["median"].replace("%1", num(m.value)).replace("%2", self._unit)
        else:  # the unit is in the title; parts' labels stay short to fit side by side
            text = f"{m.part} {num(m.value)}"
        label = self._item("throughput", f"median{n}-label", self._make_label)
        self._set("throughput", f"median{n}-label", label.setHtml,
                  f"<span style='color:{COLOURS[1]}'>\u254d\u254d</span> "
                  f"<span style='color:{self._fg.name()}'>{html.escape(text)}</span>")
        self._set("throughput", f"median{n}-label", label.setPos,
                  self._place(label, "throughput", (m.x0 + m.x1) / 2, centre=True,
                              rows=self._rows), part="pos")

    # -- look and words --------------------------------------------------------------------------

    def _make_plot(self, key: str) -> _Plot:
        widget = pg.PlotWidget(background=self._bg, viewBox=_SharedX())
        widget.installEventFilter(self)
        widget.setMinimumSize(120, 70)
        item = widget.getPlotItem()
        item.setMenuEnabled(False)
        item.setDownsampling(auto=True, mode="peak")
        item.setClipToView(True)
        # no grid: with one, pyqtgraph hides the tick labels at the ends of an axis (the 0)
        item.layout.setContentsMargins(2, 2, 6, 2)
        for side in ("left", "bottom"):
            axis = item.getAxis(side)
            axis.setPen(_alpha(self._fg, 150))
            axis.setTextPen(self._fg)
            axis.enableAutoSIPrefix(False)
            # major and minor ticks, not a third level: a third of the work each time an
            # axis is drawn anew (seven at once when the shared time axis moves)
            axis.setStyle(maxTickLevel=1)
        item.getAxis("left").setWidth(46)
        plot = _Plot(key, widget)
        item.getViewBox().sigRangeChangedManually.connect(
            lambda *_: self._zoomed(plot))
        item.getViewBox().sigYRangeChanged.connect(
            lambda _view, y_range: self._fit_marks(key, *y_range))
        item.autoBtn.clicked.connect(lambda *_: self._follow_again(plot))
        return plot

    def _zoomed(self, plot: _Plot) -> None:
        """The user zoomed or panned: the ranges stop following the data there (x: everywhere,
        it is shared) until the plot's auto-range button is pressed."""
        self._x_follow = False
        plot.follow = False

    def _follow_again(self, plot: _Plot) -> None:
        """The auto-range button: the ranges follow the data again, drawn at once."""
        self._x_follow = True
        plot.follow = True
        plot.y_range = None
        self._dirty.update(k for k, s in self._series.items() if s.plot == plot.key)
        self._decorated = True
        self._redraw()

    def _retranslate(self) -> None:
        """Every word shown, in the language now set: at the start and again on a language
        change, never per event or per frame (the drawing takes the words made here). The
        points, ranges and layout stay as they are; titles, axis labels and marks are set
        again at the next ticks of the timer, as any change of them is."""
        self._titles = {
            "throughput": self.tr("Throughput"),
            "step_time": self.tr("Step time"),
            "power": self.tr("Board power"),
            "temperature": self.tr("Temperature"),
            "clocks": self.tr("Clocks"),
            "vram": self.tr("VRAM"),
            "busy": self.tr("GPU busy"),
        }
        self._y_units = {"throughput": "", "step_time": self.tr("s"), "power": self.tr("W"),
                         "temperature": self.tr("\u00b0C"), "clocks": self.tr("MHz"),
                         "vram": self.tr("GiB"), "busy": self.tr("%")}
        self._key.setText(self.tr(
            "Shaded: warm-up (not in the figures). \u2605 the first step (cold start). "
            "Dashed: the median of the measured steps."))
        self._words = {"time": self.tr("seconds since the run started"),
                       "cold": self.tr("cold start %1 s"),
                       "median": self.tr("median %1 %2")}
        if self._noted is not None:  # the note as it was, in the new words
            self._note.setText(self._note_text(self._noted))
            self._say_why_empty()
        self._titled = False

    def _say_why_empty(self) -> None:
        """In the step plots of a run that ended before its first step, why they are empty
        (words over the empty axes); the key to marks that are not there is hidden."""
        empty = self._noted[3] if self._noted is not None else None
        text = "" if empty is None else (
            self.tr("Nothing to show: the run was cancelled before its first step.")
            if empty == "cancelled" else
            self.tr("Nothing to show: the run failed before its first step."))
        for key in STEP_PLOTS:
            label = self._empty_label(key)
            label.setText(text)
            label.setVisible(bool(text))
        self._key.setVisible(not text)

    def _empty_label(self, key: str) -> QLabel:
        """The words over step plot ``key`` while it is empty for a reason (made once)."""
        widget = self._plots[key].widget
        label = widget.findChild(QLabel, "live-plots-empty")
        if label is None:
            label = QLabel(widget)
            label.setObjectName("live-plots-empty")
            label.setWordWrap(True)
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
            label.setVisible(False)
            overlay = QVBoxLayout(widget)
            overlay.setContentsMargins(40, 30, 20, 40)
            overlay.addWidget(label)
        return label

    def empty_words(self) -> str:
        """What the step plots say over their empty axes ("" when they show data)."""
        label = self._plots["throughput"].widget.findChild(QLabel, "live-plots-empty")
        return label.text() if label is not None and label.isVisibleTo(self) else ""

    def _retitle(self) -> None:
        """Titles with their unit; a plot of several curves has its legend there, each name
        after a sample of its line (colour and dashes), so it never covers the data: on the
        title's line where it fits, else on a second line."""
        x_label = self._words["time"]
        title_font, legend_font = QFont(self.font()), QFont(self.font())
        title_font.setPointSizeF(TITLE_PT)
        legend_font.setPointSizeF(LEGEND_PT)
        title_px, legend_px = QFontMetrics(title_font), QFontMetrics(legend_font)
        for key, plot in self._plots.items():
            if key not in self._shown:  # titled when it is shown (_relayout asks)
                continue
            item = plot.widget.getPlotItem()
            unit = self._unit if key == "throughput" else self._y_units[key]
            title = self._titles[key] + (f" ({unit})" if unit else "")
            entries = [(s.colour, _LINE_SAMPLES.get(s.dash, "\u2501\u2501"),
                        self._legend_name(key, s.name))
                       for s in self._series.values() if s.plot == key and s.name is not None]
            needed = title_px.horizontalAdvance(title) + sum(
                legend_px.horizontalAdvance(f"    {sample} {name}") for _, sample, name in entries)
            two_lines = bool(entries) and needed > plot.widget.width() - 24
            legend = "&nbsp;&nbsp; ".join(
                f"<span style='color:{colour}'>{sample}</span>&nbsp;{html.escape(name)}"
                for colour, sample, name in entries)
            text = html.escape(title)
            if legend:
                text += ("<br>" if two_lines else "&nbsp;&nbsp;&nbsp; ") + (
                    f"<span style='font-size:{LEGEND_PT:g}pt'>{legend}</span>")
            item.setTitle(text, color=self._fg, size=f"{TITLE_PT:g}pt")
            height = 34 if two_lines else 20  # pyqtgraph gives every title 30 px
            item.layout.setRowFixedHeight(0, height)
            item.titleLabel.setMaximumHeight(height)
            plot.widget.setAccessibleName(title)
            item.setLabel("bottom", x_label, color=self._fg.name(), **{"font-size": "8pt"})
            item.showLabel("bottom", key in self._bottom)
        self._titled = True

    def _legend_name(self, plot: str, name: str) -> str:
        """A series' name in the legend, in the language now set: a data-parallel run's total
        and ranks are GPUs, or processes on the CPU."""
        if plot == "vram" and name in _VRAM_NAMES:
            return QCoreApplication.translate("LivePlots", str(_VRAM_NAMES[name]))
        if name == _ALL_GPUS:
            return (self.tr("all processes") if self._on_cpu
                    else QCoreApplication.translate("LivePlots", _ALL_GPUS))
        if name.startswith("rank "):
            rank = name.removeprefix("rank ")
            return (self.tr("process %1") if self._on_cpu else self.tr("GPU %1")).replace(
                "%1", rank)
        return name

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
            self._decorated = True  # the marks' words
            if self._finished or self._timer.isActive():
                self._soon()
            else:  # a live run resting between events: titles and marks over the next ticks
                self._timer.start()
        super().changeEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if (3 if self.width() >= 720 else 2) != self._columns:
            self._relayout()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """A plot resized: labels are placed in pixels, and a legend may fit its title's line
        now, or no longer."""
        if event.type() == QEvent.Type.Resize:
            self._decorated = True
            self._titled = False
            self._soon()
        return False

    def _soon(self) -> None:
        """A redraw at the next turn of the event loop where the timer is not running."""
        if not self._timer.isActive():
            QTimer.singleShot(0, self, self._tick)


def _star_path(radius: float) -> QPainterPath:
    """A five-pointed star around (0, 0), its first point up."""
    path = QPainterPath()
    for i in range(10):
        r = radius if i % 2 == 0 else radius * 0.45
        angle = math.pi / 2 + i * math.pi / 5
        point = QPointF(r * math.cos(angle), -r * math.sin(angle))
        if i == 0:
            path.moveTo(point)
        else:
            path.lineTo(point)
    path.closeSubpath()
    return path


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


def _alpha(colour: QColor, alpha: int) -> QColor:
    out = QColor(colour)
    out.setAlpha(alpha)
    return out


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
