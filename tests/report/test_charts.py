"""The pure-Python SVG charts."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from core.report.charts import Band, Chart, Rule, Series, decimate, nice_ticks, render, tick_label


@pytest.mark.parametrize(("lo", "hi", "expected"), [
    (0, 1, [0, 0.2, 0.4, 0.6, 0.8, 1.0]),
    (0, 0.0558, [0, 0.02, 0.04, 0.06]),
    (0, 630, [0, 200, 400, 600, 800]),
    (35, 49, [35, 40, 45, 50]),
    (0, 100, [0, 20, 40, 60, 80, 100]),
])
def test_nice_ticks(lo: float, hi: float, expected: list[float]) -> None:
    assert nice_ticks(lo, hi) == pytest.approx(expected)


def test_tick_labels_are_short() -> None:
    assert tick_label(0.02, 0.01) == "0.02"
    assert tick_label(600.0, 200.0) == "600"
    assert tick_label(2.5, 2.5) == "2.5"
    assert tick_label(12000.0, 2000.0) == "12,000"


def _chart(**over: object) -> Chart:
    kw: dict[str, object] = dict(
        title="Step <time>", x_label="step", y_unit="s",
        series=[Series("warm-up", [(1, 11.2), (2, 0.06)], color=6, dots=True, hollow=True),
                Series("measured & <b>", [(3.0, 0.055), (4.0, 0.056), (5.0, 0.0552)])],
        bands=[Band(2.5, 5, "measured")], rules=[Rule(0.0553, "median 0.0553 s", 2)],
        y_cap=0.075, chart_id="c1")
    kw.update(over)
    return Chart(**kw)  # type: ignore[arg-type]


def test_a_chart_is_valid_svg_with_axes_units_legend_and_marks() -> None:
    svg = render(_chart())
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg") and root.get("viewBox") == "0 0 400 240"
    texts = [t.text for t in root.iter() if t.tag.endswith("text")]
    assert "s" in texts and "step" in texts  # unit and axis label
    assert "measured & <b>" in texts  # escaped in the source, the text itself in the tree
    assert "11.2 s (off scale)" in texts  # the clipped warm-up step is labelled, not plotted
    assert "Step <time>" in [t.text for t in root.iter() if t.tag.endswith("title")]
    assert "<b>" not in svg and "&lt;b&gt;" in svg
    assert len(root.findall(".//{*}polyline")) == 2 and root.findall(".//{*}rect")
    ys = [float(c.get("cy") or 0) for c in root.iter() if c.tag.endswith("circle")]
    assert all(46 <= y <= 200 for y in ys)  # nothing drawn outside the plot area


def test_an_empty_chart_is_nothing() -> None:
    assert render(_chart(series=[Series("none", [])], rules=[], bands=[])) == ""


def test_non_finite_points_are_skipped() -> None:
    svg = render(_chart(series=[Series("x", [(0, float("nan")), (1, 2.0), (2, float("inf"))])],
                        y_cap=None))
    assert "nan" not in svg and "inf" not in svg


def test_decimate_keeps_extremes_and_bounds_size() -> None:
    pts = [(float(i), float(i % 97)) for i in range(10000)]
    out = decimate(pts, 800)
    assert len(out) <= 820
    assert max(y for _, y in out) == 96 and min(y for _, y in out) == 0
    assert [x for x, _ in out] == sorted(x for x, _ in out)


def test_many_points_draw_a_line_not_thousands_of_dots() -> None:
    svg = render(Chart(title="t", x_label="x", y_unit="u",
                       series=[Series("s", [(float(i), float(i)) for i in range(5000)])]))
    assert svg.count("<circle") == 0 and len(re.findall(r"\d+\.\d,\d+\.\d", svg)) <= 820


def test_a_long_series_with_a_few_non_finite_points_draws_the_rest() -> None:
    pts = [(float(i), 1.0 + i % 7) for i in range(3000)]
    pts[10] = (10.0, float("nan"))
    pts[2000] = (float("inf"), 2.0)
    pts[2500] = (2500.0, 1e308)  # finite: its sum with the others is not
    svg = render(Chart(title="t", x_label="x", y_unit="u", series=[Series("s", pts)]))
    assert "nan" not in svg and "inf" not in svg
    assert svg.count("<polyline") == 1
