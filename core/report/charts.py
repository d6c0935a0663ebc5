"""Line charts as inline SVG, in pure Python: axes with 1-2-5 ticks, units, a legend, a shaded
x range (the measured phase), horizontal rules (a median) and points off the scale marked
instead of squashing the chart.

Colours come from CSS classes (``s1``..``s6`` for strokes, ``f1``..``f6`` for fills, ``ax``,
``grid``, ``tk``, ``band``), so the page's stylesheet decides light and dark. Every text is
escaped; the SVG has a ``<title>`` for screen readers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html import escape
from operator import itemgetter

from core.i18n import t
from core.termstyle import display_width

Point = tuple[float, float]

WIDTH = 400
HEIGHT = 240
_ML, _MR, _MT, _MB = 48, 12, 46, 40  # margins: left (y ticks), right, top (legend), bottom
_CHAR_W = 7.4  # average width of a character at the chart's font size (a CJK one takes two)
_MAX_POINTS = 800
_MAX_TICKS = 50


@dataclass
class Series:
    label: str
    points: Sequence[Point]
    color: int = 1  # palette index 1..6
    line: bool = True
    dots: bool = False
    hollow: bool = False
    dashed: bool = False


@dataclass
class Band:
    x0: float
    x1: float
    label: str
    css: str = "band"  # band | band2 (a lighter shade)


@dataclass
class Rule:
    y: float
    label: str
    color: int = 6


@dataclass
class Chart:
    """Everything one chart shows; :func:`render` turns it into SVG."""

    title: str
    x_label: str
    y_unit: str
    series: list[Series]
    bands: list[Band] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    y_min: float | None = 0.0  # None: from the data
    y_max: float | None = None  # None: from the data
    y_cap: float | None = None  # points above are drawn at the top edge and labelled
    chart_id: str = "chart"


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values (1, 2, 2.5, 5 × 10^k) covering [lo, hi].

    At most ``_MAX_TICKS``; where no round step is representable (a span far below the float
    spacing at the values, or beyond the float range) just the ends, ``[lo, hi]``."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return [0.0]
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    span = hi - lo
    if not (math.isfinite(span) and span > 0):
        return _end_ticks(lo, hi)
    raw = span / max(1, count)
    mag = 10.0 ** math.floor(math.log10(raw)) if raw > 0 else 0.0
    step = next((m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw), 0.0)
    if not (math.isfinite(step) and step > 0) or lo + step == lo or hi + step == hi:
        return _end_ticks(lo, hi)  # a step the values cannot tell apart from 0
    first = math.floor(lo / step + 1e-9)
    start = first * step
    n = (hi - start) / step + 0.999  # ticks k with start + k*step < hi + 0.999*step
    if not math.isfinite(n) or n > _MAX_TICKS or not math.isfinite(start + math.ceil(n) * step):
        return _end_ticks(lo, hi)
    return [round(start + k * step, 12) for k in range(math.ceil(n))]


def _end_ticks(lo: float, hi: float) -> list[float]:
    return [lo, hi] if math.isfinite(hi) and hi > lo else [lo]


def tick_label(v: float, step: float) -> str:
    if step >= 1 or v == 0:
        text = f"{v:,.0f}" if abs(v) >= 10000 else f"{v:.0f}"
        if abs(step - round(step)) > 1e-9:
            text = f"{v:.1f}"
        return text
    decimals = min(6, max(0, -math.floor(math.log10(step)) + (0 if _is_round(step) else 1)))
    return f"{v:.{decimals}f}"


def _is_round(step: float) -> bool:
    mant = step / 10 ** math.floor(math.log10(step))
    return abs(mant - round(mant)) < 1e-9


def decimate(points: Sequence[Point], limit: int = _MAX_POINTS) -> list[Point]:
    """At most about ``limit`` points, keeping each bucket's lowest and highest."""
    if len(points) <= limit:
        return list(points)
    size = math.ceil(len(points) / (limit // 2))
    ys = list(map(itemgetter(1), points))
    out: list[Point] = []
    for i in range(0, len(points), size):
        bucket = ys[i:i + size]
        lo = points[i + bucket.index(min(bucket))]
        hi = points[i + bucket.index(max(bucket))]
        out.extend(sorted({lo, hi}, key=itemgetter(0)))
    return out


def render(chart: Chart) -> str:
    """The chart as an ``<svg>`` element (scales to its container's width)."""
    finite = {id(s): _finite_points(s.points) for s in chart.series}
    pts = [p for s in chart.series for p in finite[id(s)]]
    if not pts:
        return ""
    xs = [p[0] for p in pts] + [b.x0 for b in chart.bands] + [b.x1 for b in chart.bands]
    x_lo, x_hi = min(xs), max(xs)
    ys = [p[1] for p in pts] + [r.y for r in chart.rules]
    cap = chart.y_cap
    visible = [y for y in ys if cap is None or y <= cap]
    y_lo = chart.y_min if chart.y_min is not None else min(visible or ys)
    y_hi = chart.y_max if chart.y_max is not None else max(visible or ys)
    if cap is not None and len(visible) < len(ys):
        y_hi = max(y_hi, cap)  # room above the data for the off-scale marks
    if y_hi <= y_lo:
        y_hi = y_lo + (abs(y_lo) * 0.1 or 1.0)
    y_ticks = nice_ticks(y_lo, y_hi)
    if chart.y_min is None:
        y_lo = y_ticks[0]
    y_hi = max(y_hi, y_ticks[-1]) if chart.y_max is None else y_hi
    y_ticks = [v for v in y_ticks if y_lo - 1e-12 <= v <= y_hi + 1e-12]
    x_ticks = [v for v in nice_ticks(x_lo, x_hi, 6) if x_lo - 1e-9 <= v <= x_hi + 1e-9]
    if x_hi <= x_lo:
        x_hi = x_lo + 1.0

    pw, ph = WIDTH - _ML - _MR, HEIGHT - _MT - _MB

    def sx(x: float) -> float:
        return _ML + (x - x_lo) / (x_hi - x_lo) * pw

    def sy(y: float) -> float:
        return _MT + ph - (min(y, y_hi) - y_lo) / (y_hi - y_lo) * ph

    out = [f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
           f'aria-labelledby="{chart.chart_id}-t" xmlns="http://www.w3.org/2000/svg">',
           f'<title id="{chart.chart_id}-t">{escape(chart.title)}</title>']
    for b in chart.bands:
        x0, x1 = sx(max(b.x0, x_lo)), sx(min(b.x1, x_hi))
        out.append(f'<rect class="{escape(b.css)}" x="{x0:.1f}" y="{_MT}" '
                   f'width="{max(0.5, x1 - x0):.1f}" height="{ph}"/>')
        out.append(f'<text class="tk bandlb" x="{(x0 + x1) / 2:.1f}" y="{_MT - 4}" '
                   f'text-anchor="middle">{escape(b.label)}</text>')
    y_step = y_ticks[1] - y_ticks[0] if len(y_ticks) > 1 else 1.0
    for tick in y_ticks:
        y = sy(tick)
        out.append(f'<line class="grid" x1="{_ML}" x2="{_ML + pw}" y1="{y:.1f}" y2="{y:.1f}"/>')
        out.append(f'<text class="tk" x="{_ML - 5}" y="{y + 3.5:.1f}" text-anchor="end">'
                   f'{escape(tick_label(tick, y_step))}</text>')
    x_step = x_ticks[1] - x_ticks[0] if len(x_ticks) > 1 else 1.0
    for tick in x_ticks:
        x = sx(tick)
        out.append(f'<line class="ax" x1="{x:.1f}" x2="{x:.1f}" y1="{_MT + ph}" '
                   f'y2="{_MT + ph + 4}"/>')
        out.append(f'<text class="tk" x="{x:.1f}" y="{_MT + ph + 16}" text-anchor="middle">'
                   f'{escape(tick_label(tick, x_step))}</text>')
    out.append(f'<line class="ax" x1="{_ML}" x2="{_ML}" y1="{_MT}" y2="{_MT + ph}"/>')
    out.append(f'<line class="ax" x1="{_ML}" x2="{_ML + pw}" y1="{_MT + ph}" '
               f'y2="{_MT + ph}"/>')
    out.append(f'<text class="lb" x="{_ML + pw / 2:.1f}" y="{HEIGHT - 6}" '
               f'text-anchor="middle">{escape(chart.x_label)}</text>')
    out.append(f'<text class="lb" x="{_ML - 5}" y="{_MT - 8}" text-anchor="end">'
               f'{escape(chart.y_unit)}</text>')
    for r in chart.rules:
        if y_lo <= r.y <= y_hi:
            y = sy(r.y)
            out.append(f'<line class="s{r.color} rule" x1="{_ML}" x2="{_ML + pw}" '
                       f'y1="{y:.1f}" y2="{y:.1f}"/>')
    clipped: list[tuple[Point, Series]] = []
    for s in chart.series:
        pts_s = decimate(finite[id(s)])
        if not pts_s:
            continue
        coords = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in pts_s)
        if s.line and len(pts_s) > 1:
            dash = ' stroke-dasharray="5 4"' if s.dashed else ""
            out.append(f'<polyline class="s{s.color} ln" points="{coords}"{dash}/>')
        if s.dots or len(pts_s) == 1:
            cls = f"s{s.color} hollow" if s.hollow else f"f{s.color}"
            out.extend(f'<circle class="{cls}" cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="2.6"/>'
                       for x, y in pts_s if cap is None or y <= cap)
        if cap is not None:
            clipped += [((x, y), s) for x, y in pts_s if y > cap]
    out += _clip_marks(clipped, sx, sy, y_hi, chart.y_unit)
    out += _legend(chart)
    out.append("</svg>")
    return "\n".join(out)


def _clip_marks(clipped: list[tuple[Point, Series]], sx: Callable[[float], float],
                sy: Callable[[float], float], y_hi: float, unit: str) -> list[str]:
    """Points above the cap: a triangle on the top edge, labelled with their value."""
    out: list[str] = []
    for i, ((x, y), s) in enumerate(clipped):
        cx, cy = sx(x), sy(y_hi)
        out.append(f'<path class="f{s.color}" d="M{cx - 4:.1f},{cy + 6:.1f} '
                   f'L{cx + 4:.1f},{cy + 6:.1f} L{cx:.1f},{cy - 1:.1f} Z"/>')
        if i < 3:
            anchor = "start" if cx < _ML + 60 else "end"
            dx = 7 if anchor == "start" else -7
            label = t("report.chart.off-scale", "{value} {unit} (off scale)", value=_short(y),
                      unit=unit)
            out.append(f'<text class="tk" x="{cx + dx:.1f}" y="{cy + 8:.1f}" '
                       f'text-anchor="{anchor}">{escape(label)}</text>')
    return out


def _legend(chart: Chart) -> list[str]:
    items = [(s.label, s.color, s.dashed, s.hollow and not s.line) for s in chart.series
             if s.label]
    items += [(r.label, r.color, True, False) for r in chart.rules if r.label]
    out: list[str] = []
    x, y = float(_ML), 14.0
    for label, color, dashed, hollow in items:
        w = 22 + display_width(label) * _CHAR_W + 12
        if x + w > WIDTH - _MR and x > _ML:
            x, y = float(_ML), y + 14
        if hollow:
            out.append(f'<circle class="s{color} hollow" cx="{x + 8:.1f}" cy="{y - 3.5:.1f}" '
                       f'r="3"/>')
        else:
            dash = ' stroke-dasharray="4 3"' if dashed else ""
            out.append(f'<line class="s{color} ln" x1="{x:.1f}" x2="{x + 16:.1f}" '
                       f'y1="{y - 3.5:.1f}" y2="{y - 3.5:.1f}"{dash}/>')
        out.append(f'<text class="tk" x="{x + 20:.1f}" y="{y:.1f}">{escape(label)}</text>')
        x += w
    return out


def _short(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.3g}"


def _finite_points(points: Sequence[Point]) -> Sequence[Point]:
    """The points with finite coordinates: all of them (one sum of each coordinate says so,
    a hundred thousand points at C speed) or, where a sum is not finite, those that are."""
    if math.isfinite(sum(map(itemgetter(0), points))) and math.isfinite(
            sum(map(itemgetter(1), points))):
        return points
    return [p for p in points if math.isfinite(p[0]) and math.isfinite(p[1])]
