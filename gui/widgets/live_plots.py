"""Live benchmark graphs: throughput and step time per step, and the card's power, temperature,
clocks, VRAM and busy share one time axis (seconds since the run started, the runner's ``rx_t``).

Events go to the run's Qt-free model (gui/models/live_run.py: numpy ring buffers and the run's
shape) and nothing is drawn then; a timer
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
from collections.abc import Callable, Iterable
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
from core.report.model import SuiteRun
from gui.models.live_run import (
    ALL_GPUS,
    COLOURS,
    DASH,
    DASH_DOT,
    DOT,
    GIB,
    SOLID,
    STEP_PLOTS,
    TELEMETRY_PLOTS,
    LiveRun,
    Median,
    NoteFacts,
    Series,
)
from gui.widgets.findings import selectable_label
from gui.widgets.plot_marks import PAD_PX, Band, Rule, Tag

DASHES = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine,
          Qt.PenStyle.DashDotLine)  # the model's SOLID, DASH, DOT, DASH_DOT
_VRAM_NAMES = {"used": QT_TRANSLATE_NOOP("LivePlots", "used"),
               "total": QT_TRANSLATE_NOOP("LivePlots", "total")}
"""The VRAM plot's two curves, named in its legend (translated when shown; the names of the
card's sensors and clocks are the card's own)."""
_ALL_GPUS = str(QT_TRANSLATE_NOOP("LivePlots", "all GPUs"))  # the model's ALL_GPUS, in words
STAR_PX = 13.0  # the cold start's star, across (the x range leaves room for half of it)
_LINE_SAMPLES = {SOLID: "\u2501\u2501", DASH: "\u254d\u254d", DOT: "\u2509\u2509",
                 DASH_DOT: "\u2501\u2509"}
TITLE_PT, LEGEND_PT = 9.0, 8.0
# From this many steps on, the throughput's raw points are drawn faint under a line of block
# medians (a step's rate scatters by tens of percent in a long LLM run: drawn as they are, the
# points fill a solid band); a block is about 1/60 of the steps, within one part.
TREND_FROM = 150
TREND_BLOCKS = 60


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
class _Plot:
    key: str
    widget: Any  # pg.PlotWidget
    follow: bool = True  # the y range follows the data until the user zooms or pans
    y_range: tuple[float, float] | None = None


class LivePlots(QWidget):
    """The live graphs of one benchmark run; see the module's docstring. What they show is
    :attr:`run` (a :class:`LiveRun`); this widget draws it."""

    def __init__(self, parent: QWidget | None = None, *, capacity: int = 200_000,
                 fps: float = 25.0) -> None:
        super().__init__(parent)
        self.capacity = capacity
        self.run = LiveRun(capacity)
        self.redraws = 0
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

        self._curves: dict[str, Any] = {}  # series key -> its pg.PlotDataItem, once drawn
        self._deco: dict[tuple[str, str], Any] = {}  # (plot, name) -> shading, mark, label
        self._deco_state: dict[tuple[str, str, str], object] = {}  # what each was last set to
        self._rows_shown: list[list[str]] = [[k] for k in STEP_PLOTS]  # painted apart
        self._held: list[list[str]] = []  # rows whose painting waits for the next ticks
        self._resting = False  # the timer stops once the held rows are painted
        self._touched: set[tuple[str, str]] = set()
        self._rows: list[list[tuple[float, float]]] = []  # median labels side by side
        self._trend: Any = None  # the throughput's line of block medians (a pg.PlotDataItem)
        self._log = False  # throughput on a log scale (LiveRun.log_throughput)

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
        self._noted: NoteFacts | None = None
        self._retranslate()
        self._relayout()

    # -- what the page calls ---------------------------------------------------------------------

    def reset(self) -> None:
        """A new run starts: every series, shading and mark is cleared (on screen at the next
        tick of the timer)."""
        for series in self.run.reset():
            self._remove_curve(series)
        raw = self.run.series["throughput"]
        if self._trend is not None:
            self._trend.setData([], [])
            if raw.key in self._curves:
                self._curves[raw.key].setPen(pg.mkPen(raw.colour, width=2.0))
        self._x_follow = True
        self._set_log(False)
        for plot in self._plots.values():
            plot.follow = True
            plot.y_range = None
            # the last run's scales go with it: a new run's axes start plain, not at its
            # predecessor's 0-4,600 images/s until its own first step
            plot.widget.getPlotItem().getViewBox().setRange(xRange=(0.0, 1.0), yRange=(0.0, 1.0),
                                                            padding=0)
        self._hold_rows()  # a first run shows the plots now: not all painted at once
        self._resting = False
        self._timer.start()

    def add_event(self, event: dict[str, Any]) -> None:
        """One runner event (with ``rx_t``, seconds since the run started): kept, not drawn."""
        self.run.add_event(event)
        if not self._timer.isActive() and not self.run.finished:
            self._timer.start()

    def show_run(self, run: SuiteRun) -> None:
        """A finished run from a saved report: the same series as the live feed drew, at once."""
        self.reset()
        self.run.take_run(run)
        self._redraw()
        while self._held:  # a saved run is shown whole at once: nothing streams in
            self._release(self._held.pop(0))
        self._rest()

    def finish(self) -> None:
        """The run ended: a last redraw (the whole run in view), then the timer stops."""
        self.run.finish()
        self._redraw()
        self._rest()

    def _rest(self) -> None:
        """Nothing more to draw: the timer stops (once the rows held back are painted)."""
        self._resting = bool(self._held)
        if not self._held:
            self._timer.stop()

    # -- what tests and the results page may read -----------------------------------------------

    @property
    def steps_seen(self) -> int:
        return self.run.steps_seen

    def counts(self) -> dict[str, int]:
        """Points held per series (:meth:`LiveRun.counts`)."""
        return self.run.counts()

    def points(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        """The points held for series ``key`` (:meth:`LiveRun.points`)."""
        return self.run.points(key)

    def plot(self, key: str) -> Any:
        """The pg.PlotWidget of a plot: throughput, step_time, power, temperature, clocks,
        vram or busy."""
        return self._plots[key].widget

    def medians(self) -> dict[str | None, float]:
        """The measured-phase median drawn per part (None: a run without parts)."""
        return self.run.medians()

    def telemetry_note(self) -> str:
        """What the note under the plots says about telemetry ("" when it is hidden)."""
        return self._note.text() if self._note.isVisibleTo(self) else ""

    def visible_plots(self) -> list[str]:
        """The plots shown, in their order: throughput, step_time, then the telemetry ones
        the card offers (or that are still awaited)."""
        return [key for key, plot in self._plots.items() if plot.widget.isVisibleTo(self)]

    # -- telemetry that is not there -------------------------------------------------------------

    def _note_text(self, facts: NoteFacts) -> str:
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
        if self.run.undecided() and self._columns == columns:
            # a new run that has said nothing yet keeps the last run's plots: laying seven
            # plots out and back again (a CPU run after a CPU run) stalls the window for nothing
            self.run.laid_out = True
            return
        shown = [k for k in TELEMETRY_PLOTS if not self.run.missing(k)]
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
            self.run.titled = False  # a plot shown again: its title in today's words and unit
        self._shown = set(STEP_PLOTS) | set(shown)
        # painted apart when all change at once: each step plot, then each telemetry row
        self._rows_shown = [[key] for key in STEP_PLOTS] + [
            shown[r * columns:(r + 1) * columns] for r in range(rows)]
        self.run.decorated = True  # a plot shown now gets its shading and marks
        self._layout.setStretch(1, 2 * rows)
        self._bottom = set(shown[(rows - 1) * columns:]) if shown else set(STEP_PLOTS)
        for key, plot in self._plots.items():  # the time axis is named under the last row
            plot.widget.getPlotItem().showLabel("bottom", key in self._bottom)
        self._noted = self.run.note_facts()
        text = self._note_text(self._noted)
        self._note.setText(text)
        self._note.setVisible(bool(text))
        self._say_why_empty()
        self._note.setToolTip(self.run.stop_reason)
        self._columns = columns
        self.run.laid_out = True

    # -- drawing ---------------------------------------------------------------------------------

    def _tick(self) -> None:
        """The timer: a row held back is painted, else a redraw where something changed, else
        the timer rests until the next event."""
        if self._held:
            self._release(self._held.pop(0))
            if not self._held and self._resting:
                self._resting = False
                self._timer.stop()
        elif self.run.dirty or self.run.decorated or not self.run.laid_out or not self.run.titled:
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
        if not self.run.titled:
            self._retitle()
            busy = True
        if not self.run.laid_out and (self.run.finished or not busy):
            self._relayout()
            busy = True
        dirty = [self.run.series[k] for k in self.run.dirty if k in self.run.series]
        changed = {s.plot for s in dirty} | ({"step_time"} if self.run.cold else set())
        self._set_ranges(changed)
        for series in dirty:
            if not series.drawn:
                continue
            y = series.ring.column(series.y)
            self._draw(series, series.ring.column(0), y * series.scale if series.scale != 1.0
                       else y)
        if self.run.series["throughput"] in dirty:
            self._draw_trend()
        self.run.dirty.clear()
        if self.run.decorated and (self.run.finished or not busy):
            self._decorate()
            self.run.decorated = False

    def _draw(self, series: Series, x: np.ndarray, y: np.ndarray) -> None:
        plot = self._plots[series.plot]
        curve = self._curves.get(series.key)
        if curve is None:
            # 2 px solid lines are drawn as segments (fast); a dashed line is one path,
            # which is only fast at 1 px
            solid = series.dash == SOLID
            pen = pg.mkPen(series.colour, width=2.0 if solid else 1.0, style=DASHES[series.dash])
            # peak downsampling to a bin per 2 pixels (its low and its high point): it looks
            # the same as pyqtgraph's default (5 values per pixel) and draws 10 times fewer
            curve = self._curves[series.key] = pg.PlotDataItem(pen=pen, antialias=False,
                                                               autoDownsampleFactor=0.5)
            plot.widget.addItem(curve)
        joins = self.run.joins(series, y)
        if joins is not None:
            curve.setData(x, y, connect=joins)
        elif series.ring.finite:
            curve.setData(x, y, skipFiniteCheck=True, connect="all")
        else:
            curve.setData(x, y, connect="finite")

    def _draw_trend(self) -> None:
        """The throughput's line of block medians over its raw points (see TREND_FROM), and
        the raw line faint beneath it; below TREND_FROM steps, the raw line alone."""
        raw = self.run.series["throughput"]
        trend = self._trend
        if len(self.run.steps) < TREND_FROM:
            if trend is not None:
                trend.setData([], [])
            return
        if trend is None:
            trend = self._trend = pg.PlotDataItem(pen=pg.mkPen(raw.colour, width=2.0),
                                                  antialias=False)
            self._plots["throughput"].widget.addItem(trend)
        if raw.key in self._curves:
            self._curves[raw.key].setPen(pg.mkPen(_alpha(QColor(raw.colour), 70), width=1.0))
        x, y = self.run.trend(TREND_BLOCKS)
        trend.setData(x, y, connect="finite")

    def trend(self) -> tuple[np.ndarray, np.ndarray]:
        """The throughput's trend line as drawn (empty below TREND_FROM steps)."""
        if self._trend is None:
            return np.empty(0), np.empty(0)
        x, y = self._trend.getData()
        return (np.empty(0), np.empty(0)) if x is None else (x, y)

    def _remove_curve(self, series: Series) -> None:
        curve = self._curves.pop(series.key, None)
        if curve is not None:
            self._plots[series.plot].widget.removeItem(curve)
        self.run.titled = False

    def _set_ranges(self, changed: Iterable[str]) -> None:
        """The shared x range (from the first data to a little past now while live, the whole
        run at the end) and the y range of each plot in ``changed``, set before the curves'
        data so pyqtgraph clips and downsamples them once. Ranges move in steps, not at every
        redraw (each change makes pyqtgraph clip and downsample every curve again)."""
        master = self._plots["throughput"].widget
        if self._x_follow:
            box = master.getPlotItem().getViewBox()
            lo, hi = box.viewRange()[0]
            first = self.run.t_min if self.run.t_min is not None else 0.0
            span = max(self.run.t_max - first, 1.0)
            # room at each end for the first step's star (STAR_PX across), whole at any width
            room = max(0.02, STAR_PX / max(box.width(), 50.0))
            if self.run.finished:  # the data, not the worker's start and exit around them
                span = max((self.run.t_data or self.run.t_max) - first, 0.1)
                pad = room * span
                if abs(lo - (first - pad)) > 1e-9 or abs(hi - (first + span + pad)) > 1e-9:
                    self._set_x(first - pad, first + span + pad)
            elif (abs(lo - (first - room * span)) > 0.01 * span or self.run.t_max > hi
                  or hi - self.run.t_max > 0.5 * span):
                self._set_x(first - room * span, first + 1.25 * span)
        if "throughput" in changed and self.run.log_throughput() != self._log:
            self._set_log(not self._log)
        for key in changed:
            plot = self._plots[key]
            want = self._y_range(key)
            if not plot.follow or want is None:
                continue
            have = plot.y_range
            if (have is None or want[1] > have[1] or want[0] < have[0]
                    or want[1] - want[0] < 0.6 * (have[1] - have[0])
                    or (self.run.finished and want != have)):
                plot.y_range = want
                plot.widget.getPlotItem().getViewBox().setYRange(*want, padding=0)
                self.run.decorated = self.run.decorated or key == "step_time"  # the capped star

    def _set_log(self, log: bool) -> None:
        """Throughput on a log scale or a linear one: its y range is set anew, its marks
        placed again (the median lines and the star are in the plot's own coordinates)."""
        if log == self._log:
            return
        self._log = log
        plot = self._plots["throughput"]
        plot.widget.getPlotItem().setLogMode(False, log)
        plot.y_range = None
        self.run.decorated = True

    def _y_of(self, plot: str, value: float) -> float:
        """Where ``value`` sits on ``plot``'s y axis (its log10 on a log scale)."""
        if plot == "throughput" and self._log:
            return math.log10(value) if value > 0 else math.nan
        return value

    def _set_x(self, lo: float, hi: float) -> None:
        self.run.decorated = True  # labels pick their side anew
        self._hold_rows()
        self._plots["throughput"].widget.getPlotItem().getViewBox().setXRange(lo, hi, padding=0)

    def _y_range(self, key: str) -> tuple[float, float] | None:
        """Where a plot's y axis runs: from 0 (temperatures: around the data) to a little
        above the top; step time leaves out a far slower first step (marked at the top edge).
        From the extremes of every value appended, dropped ones included: O(1)."""
        extremes = self.run.y_extremes(key)
        if extremes is None:
            return None
        lo, hi = extremes
        if key == "throughput" and self._log:  # decades: room above for the medians' labels
            top_d = math.log10(hi) if hi > 0 else 0.0
            low_d = math.log10(lo) if lo > 0 else top_d - 3.0
            span = max(top_d - low_d, 0.5)
            return (low_d - 0.08 * span, top_d + 0.35 * span)
        capped = key == "step_time" and self.run.cold_capped() is not None
        if capped:
            hi = self.run.rest_max
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

    def _decorate(self) -> None:
        """Shading, part marks, the cold start and the medians: each item made once, then
        moved; those no longer wanted are taken away."""
        self._touched = set()
        shown = [key for key in self._plots if key in self._shown]  # a hidden plot: none
        for n, (x0, x1) in enumerate(self.run.warm):
            for key in shown:
                region = self._item(key, f"warm{n}", self._make_region)
                self._set(key, f"warm{n}", region.setRegion, (x0, max(x0, x1)))
        for n, (x, part) in enumerate(self.run.part_marks):
            for key in shown:
                line = self._item(key, f"part{n}", partial(self._make_mark, key))
                self._set(key, f"part{n}", line.setValue, x)
                if line.label is not None:  # in the language now set
                    self._set(key, f"part{n}", line.label.setText, self.part_word(part),
                              part="text")
        for key in STEP_PLOTS:
            if key in shown:
                self._stagger_parts(key)
        self._decorate_cold()
        if self.run.vram_total is not None:
            total = self.run.series["vram_total"]
            line = self._item("vram", "total", lambda: pg.InfiniteLine(
                angle=0, movable=False,
                pen=pg.mkPen(total.colour, width=1.5, style=Qt.PenStyle.DashLine)))
            self._set("vram", "total", line.setValue, self.run.vram_total / GIB)
        self._rows = []
        for n, m in enumerate(self.run.median_lines):
            self._decorate_median(n, m)
        for gone in [k for k in self._deco if k not in self._touched]:
            self._plots[gone[0]].widget.removeItem(self._deco.pop(gone))
            for state in [k for k in self._deco_state if k[:2] == gone]:
                del self._deco_state[state]

    def _stagger_parts(self, plot: str) -> None:
        """The parts' names at the foot of their lines, each a row higher where it would
        overlap the name of a part begun just before, or the cold start's star (llm-infer's
        decode's first step, its slowest, at the foot of the throughput plot beside the
        prefill's name), on this plot's scale now."""
        view = self._plots[plot].widget.getPlotItem().getViewBox()
        (lo, hi), (y_lo, y_hi) = view.viewRange()
        per_px = (hi - lo) / view.width() if view.width() > 0 else 0.0
        per_px_y = (y_hi - y_lo) / view.height() if view.height() > 0 else 0.0
        star = self._star_at(plot)
        ends: list[float] = []  # the right end of the last name in each row
        for n, (x, _) in enumerate(self.run.part_marks):
            rule = self._deco.get((plot, f"part{n}"))
            if rule is None or rule.label is None:
                continue
            box = rule.label.size()
            left, right = x + box.left() * per_px, x + box.right() * per_px
            blocked = self._star_rows(star, left, right, box.height(), per_px,
                                      (star[1] - y_lo) / per_px_y if star and per_px_y > 0
                                      else None)
            row = next(i for i in range(len(ends) + 3)
                       if (i >= len(ends) or ends[i] <= left) and i not in blocked)
            ends += [-math.inf] * (row + 1 - len(ends))
            ends[row] = right
            self._set(plot, f"part{n}", rule.label.set_row, row, part="row")

    @staticmethod
    def _star_rows(star: tuple[float, float] | None, left: float, right: float, height: float,
                   per_px: float, up: float | None) -> set[int]:
        """The rows at a rule's foot where a label from ``left`` to ``right`` (``height``
        pixels high) would cover the star, whose centre is ``up`` pixels above the foot."""
        half = STAR_PX / 2
        if star is None or up is None or height <= 0 or not (
                left - half * per_px < star[0] < right + half * per_px):
            return set()
        return {row for row in range(2)
                if height * row + PAD_PX - half < up < height * (row + 1) + PAD_PX + half}

    def _star_at(self, plot: str) -> tuple[float, float] | None:
        """Where the cold start's star sits on ``plot`` (x, y in the plot's coordinates)."""
        if self.run.cold is None:
            return None
        t, seconds, throughput = self.run.cold
        if plot == "throughput":
            y = self._y_of("throughput", throughput)
        else:
            y_range = self._plots["step_time"].y_range
            capped = self.run.cold_capped() is not None
            y = min(seconds, y_range[1] * 0.94) if capped and y_range else seconds
        return (t, y) if math.isfinite(y) else None

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

    def _make_mark(self, key: str) -> Rule:
        label = None
        if key in STEP_PLOTS:  # the part's name at the foot of the line (set by _decorate)
            label = Tag(self._fg, _alpha(self._bg, 200), foot=True)
        return Rule(_alpha(self._fg, 140), label)

    def part_word(self, part: str) -> str:
        """A part of the run as the user reads it: llm-infer's prefill and decode in the
        language now set (the words of core's reports: core.report.formatting.part_label),
        gemm's dtypes and bandwidth's directions as the worker names them."""
        return self._words.get(f"part:{part}", part)

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
        """A star at the cold start on both step plots (LiveRun.cold: for a run of several
        parts, the slowest part's first step, and once the result is in, its warm-up's first
        step, as core's cold_start() takes it); in the step-time plot, where that step is
        usually far above the rest, it sits at the top edge with its time written out."""
        if self.run.cold is None:
            return
        t, seconds, _ = self.run.cold
        capped = self.run.cold_capped() is not None
        for key in STEP_PLOTS:
            at = self._star_at(key)
            if at is not None:
                star = self._item(key, "cold", self._make_star)
                self._set(key, "cold", star.setPos, QPointF(*at))
        text = self._words["cold"].replace("%1", num(seconds))
        label = self._item("step_time", "cold-label", self._make_label)
        # the arrow: off the scale, above
        self._set("step_time", "cold-label", label.setText, text + (" \u2191" if capped else ""))
        self._set("step_time", "cold-label", label.setPos,
                  self._place(label, "step_time", t, centre=False), part="pos")

    def _decorate_median(self, n: int, m: Median) -> None:
        """The median as a dashed line over the measured steps; its label at the top of the
        plot (the y range leaves room there), above the line's middle."""
        line = self._item("throughput", f"median{n}", lambda: pg.PlotCurveItem(
            pen=pg.mkPen(COLOURS[1], width=2, style=Qt.PenStyle.DashLine)))
        y = self._y_of("throughput", m.value)
        self._set("throughput", f"median{n}", line.setData, [m.x0, m.x1], [y, y])
        if m.part is None:
            text = self._words["median"].replace("%1", num(m.value)).replace("%2", self.run.unit)
        else:  # the unit is in the title; parts' labels stay short to fit side by side
            text = f"{self.part_word(m.part)} {num(m.value)}"
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
        self.run.dirty.update(k for k, s in self.run.series.items() if s.plot == plot.key)
        self.run.decorated = True
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
                       "median": self.tr("median %1 %2"),
                       # llm-infer's parts: a word each, as its figures are named
                       "part:prefill": self.tr("prefill", "llm-infer's prompt pass"),
                       "part:decode": self.tr("decode", "llm-infer's token generation")}
        if self._noted is not None:  # the note as it was, in the new words
            self._note.setText(self._note_text(self._noted))
            self._say_why_empty()
        self.run.titled = False

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
            unit = self.run.unit if key == "throughput" else self._y_units[key]
            title = self._titles[key] + (f" ({unit})" if unit else "")
            entries = [(s.colour, _LINE_SAMPLES.get(s.dash, "\u2501\u2501"),
                        self._legend_name(key, s.name))
                       for s in self.run.series.values() if s.plot == key and s.name is not None]
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
        self.run.titled = True

    def _legend_name(self, plot: str, name: str) -> str:
        """A series' name in the legend, in the language now set: a data-parallel run's total
        and ranks are GPUs, or processes on the CPU."""
        if plot == "vram" and name in _VRAM_NAMES:
            return QCoreApplication.translate("LivePlots", str(_VRAM_NAMES[name]))
        if name == ALL_GPUS:
            return (self.tr("all processes") if self.run.on_cpu
                    else QCoreApplication.translate("LivePlots", _ALL_GPUS))
        if name.startswith("rank "):
            rank = name.removeprefix("rank ")
            return (self.tr("process %1") if self.run.on_cpu else self.tr("GPU %1")).replace(
                "%1", rank)
        return name

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
            self.run.decorated = True  # the marks' words
            if self.run.finished or self._timer.isActive():
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
            self.run.decorated = True
            self.run.titled = False
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


def _alpha(colour: QColor, alpha: int) -> QColor:
    out = QColor(colour)
    out.setAlpha(alpha)
    return out
