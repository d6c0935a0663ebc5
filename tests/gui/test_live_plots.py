"""The live benchmark graphs: fed a run's events (a recorded report's steps and telemetry
replayed as the runner sends them, and a real CPU run of the worker), drawn on the timer only,
the same series and medians from a saved report, telemetry a card lacks said in words, rings
that drop their oldest points."""

from __future__ import annotations

import json
import statistics
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRectF, QTimer
from PySide6.QtWidgets import QGraphicsPathItem, QLabel

from core.bench.runner import BenchRunner
from core.bench.worker.options import BenchOptions
from core.report.model import SuiteRun, from_json
from gui.models.live_run import TELEMETRY_PLOTS, Ring
from gui.widgets.live_plots import STAR_PX, LivePlots
from gui.widgets.plot_marks import Band, Rule, Tag

REPORTS = Path(__file__).resolve().parents[1] / "fixtures" / "reports"
H200 = "h200-resnet50-train-amp-bf16-cl-bs256.json"
SD15 = "h200-sd15-infer-eager-bs1-unsteady.json"
CPU = "cpu-tiny-resnet50-train.json"


def _run(name: str) -> SuiteRun:
    return from_json((REPORTS / name).read_text()).runs[0]


def run_events(run: SuiteRun, *, unit: str = "images/s", backend: str = "cuda",
               drop: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """The events the runner sent during ``run`` (as its run file holds them), rebuilt from the
    report: steps at their time, a phase event before each phase's first step, telemetry
    samples (without the keys in ``drop``), the result, done and the end."""
    events: list[dict[str, Any]] = [{"event": "run", "suite": run.suite, "rx_t": 0.0},
                                    {"event": "hello", "backend": backend, "rx_t": 0.5}]
    phase = None
    for s in run.steps:
        assert s.t is not None
        if s.phase != phase:
            phase = s.phase
            events.append({"event": "phase", "phase": phase, "rx_t": s.t - s.seconds})
        events.append({"event": "step", "phase": s.phase, "index": s.index,
                       "seconds": s.seconds, "items": s.items,
                       "throughput": s.items / s.seconds, "unit": unit, "rx_t": s.t})
    for sample in run.telemetry:
        fields = {k: v for k, v in asdict(sample).items()
                  if v not in (None, {}) and k != "t" and k not in drop}
        events.append({"event": "telemetry", "rx_t": sample.t, **fields})
    assert run.result is not None
    last = max(e["rx_t"] for e in events)
    events.append({"event": "result", "headline": run.result.headline,
                   "figures": {k: asdict(f) for k, f in run.result.figures.items()},
                   "rx_t": last + 0.01})
    events.append({"event": "phase", "phase": "done", "rx_t": last + 0.02})
    events.append({"event": "end", "status": "ok", "rx_t": run.duration_s})
    return sorted(events, key=lambda e: e["rx_t"])


def _plots(qtbot: Any, **kw: Any) -> LivePlots:
    """A LivePlots shown at 900x720, after the redraw its first showing asks for (titles and
    labels fitted to the plots' sizes)."""
    plots = LivePlots(**kw)
    qtbot.addWidget(plots)
    plots.resize(900, 720)
    plots.show()
    qtbot.waitExposed(plots)
    qtbot.waitUntil(lambda: plots.redraws >= 1, timeout=2000)
    return plots


def _redrawn(qtbot: Any, plots: LivePlots, before: int) -> None:
    """Drawn again and settled (titles, layout and decorations may follow a tick or two
    after the curves)."""
    qtbot.waitUntil(lambda: plots.redraws > before and plots.settled, timeout=3000)


def _expected_counts(run: SuiteRun) -> dict[str, int]:
    tel = run.telemetry
    out = {"throughput": len(run.steps), "step_time": len(run.steps),
           "power": sum(s.power_w is not None for s in tel),
           "busy": sum(s.busy_pct is not None for s in tel),
           "vram_used": sum(s.vram_used_bytes is not None for s in tel),
           "vram_total": sum(s.vram_total_bytes is not None for s in tel)}
    for s in tel:
        for name in s.temps_c:
            out[f"temp:{name}"] = out.get(f"temp:{name}", 0) + 1
        for name in s.clocks_mhz:
            out[f"clock:{name}"] = out.get(f"clock:{name}", 0) + 1
    return out


def _regions(plots: LivePlots, key: str) -> list[tuple[float, float]]:
    items = plots.plot(key).getPlotItem().items
    return sorted(tuple(i.getRegion()) for i in items if isinstance(i, Band))


# -- live: events in, redraws on the timer --------------------------------------------------------


def test_a_runs_events_are_counted_and_drawn_on_the_timer_only(qtbot: Any) -> None:
    run = _run(H200)
    plots = _plots(qtbot, fps=25.0)
    start = plots.redraws
    for event in run_events(run):
        plots.add_event(event)
    assert plots.redraws == start  # add_event keeps, never draws
    assert plots.steps_seen == len(run.steps) == 62
    assert plots.counts() == _expected_counts(run)
    assert plots.counts()["power"] == len(run.telemetry) == 40

    _redrawn(qtbot, plots, start)
    done = plots.redraws
    qtbot.wait(300)  # about 7 timer ticks with nothing new: no redraw
    assert plots.redraws == done

    plots.add_event({"event": "telemetry", "rx_t": 23.5, "power_w": 120.0})
    assert plots.redraws == done
    qtbot.waitUntil(lambda: plots.redraws == done + 1, timeout=2000)
    assert plots.counts()["power"] == 41

    plots.finish()
    assert plots.redraws == done + 2  # finish draws once more, then the timer stops
    plots.add_event({"event": "telemetry", "rx_t": 24.0, "power_w": 121.0})
    qtbot.wait(150)
    assert plots.redraws == done + 2


def test_the_redraws_follow_the_timer_not_the_events(qtbot: Any) -> None:
    """2,000 steps fed over about half a second: a few dozen redraws, not one per event."""
    plots = _plots(qtbot, fps=25.0)
    start = plots.redraws
    fed = 0

    def feed() -> None:
        nonlocal fed
        for _ in range(40):
            plots.add_event({"event": "step", "phase": "measure", "index": fed,
                             "seconds": 0.01, "items": 8, "throughput": 800.0 + fed % 7,
                             "unit": "images/s", "rx_t": 1.0 + fed * 0.01})
            fed += 1

    timer = QTimer()
    timer.timeout.connect(feed)
    timer.start(10)
    qtbot.waitUntil(lambda: fed >= 2000, timeout=20_000)
    timer.stop()
    plots.finish()
    assert plots.counts()["throughput"] == plots.steps_seen == fed
    assert 2 <= plots.redraws - start <= fed // 20


# -- a saved report draws what the live feed drew -------------------------------------------------


def test_a_saved_run_draws_the_same_series_and_median_as_the_live_feed(qtbot: Any) -> None:
    run = _run(H200)
    saved = _plots(qtbot)
    before = saved.redraws
    saved.show_run(run)
    assert saved.redraws == before + 1  # drawn at once
    assert saved.counts() == _expected_counts(run)
    assert run.result is not None
    assert saved.medians() == {None: run.result.headline_figure.median}
    assert saved.medians()[None] == pytest.approx(4624.139300460414)

    live = _plots(qtbot)
    for event in run_events(run):
        live.add_event(event)
    live.finish()
    assert live.counts() == saved.counts()
    assert live.medians() == saved.medians()
    for key in saved.counts():
        for a, b in zip(live.points(key), saved.points(key), strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12)
    t, throughput = saved.points("throughput")
    assert list(t) == [s.t for s in run.steps]
    np.testing.assert_allclose(throughput, [s.items / s.seconds for s in run.steps])
    # one warm-up, shaded alike in every plot, live and saved
    warm = [s for s in run.steps if s.phase == "warmup"]
    assert warm[0].t is not None and warm[-1].t is not None
    for key in ("throughput", "step_time", *TELEMETRY_PLOTS):
        (x0, x1), = _regions(saved, key)
        assert x0 == pytest.approx(warm[0].t - warm[0].seconds)
        assert x1 == pytest.approx(warm[-1].t)
        (y0, y1), = _regions(live, key)
        assert (y0, y1) == pytest.approx((x0, x1), abs=0.05)


def test_the_median_is_the_reports_figure_in_the_steps_unit(qtbot: Any) -> None:
    """sd15's headline is seconds per image; the throughput plot's median is its images/s."""
    run = _run(SD15)
    plots = _plots(qtbot)
    plots.show_run(run)
    assert run.result is not None
    assert run.result.headline_figure.unit == "s/image"
    assert plots.medians() == {None: run.result.figures["throughput"].median}
    assert plots.counts() == _expected_counts(run)


def test_every_plot_shares_one_time_axis_and_an_outlying_first_step_stays_in_view(
        qtbot: Any) -> None:
    run = _run(H200)
    plots = _plots(qtbot)
    plots.show_run(run)
    keys = ("throughput", "step_time", *TELEMETRY_PLOTS)
    ranges = [plots.plot(k).getPlotItem().getViewBox().viewRange() for k in keys]
    for (x_range, _) in ranges:
        assert x_range == pytest.approx(ranges[0][0])
    assert ranges[0][0][0] <= run.telemetry[0].t and ranges[0][0][1] >= run.telemetry[-1].t
    # the first step (11.2 s) would flatten the rest (0.055 s): the axis leaves it out, and
    # its star sits inside the view, its time written out
    (_, (bottom, top)) = plots.plot("step_time").getPlotItem().getViewBox().viewRange()
    assert run.steps[0].seconds > 100 * top
    assert top > max(s.seconds for s in run.steps[1:])
    stars = [i for i in plots.plot("step_time").getPlotItem().items
             if isinstance(i, QGraphicsPathItem)]
    (star,) = stars
    assert bottom < star.pos().y() < top
    texts = [i.toPlainText() for i in plots.plot("step_time").getPlotItem().items
             if isinstance(i, Tag)]
    assert any("cold start 11.23 s" in t for t in texts)
    # the star is drawn whole in both plots: on throughput the slow first step sits on the
    # zero line, and half of it was cut off by the plot's bottom edge (issue 31/15)
    for key in ("throughput", "step_time"):
        assert_star_inside(plots, key)
    plots.resize(640, 400)  # a small window: 4 % of a short plot is less than half a star
    plots.show_run(run)
    for key in ("throughput", "step_time"):
        assert_star_inside(plots, key)


def assert_star_inside(plots: LivePlots, plot: str) -> None:
    """The cold-start star (STAR_PX across, drawn in pixels around its point) lies whole
    inside the plot's view box."""
    star = plots._deco[(plot, "cold")]
    box = plots.plot(plot).getPlotItem().getViewBox()
    inside = box.sceneBoundingRect().adjusted(-0.5, -0.5, 0.5, 0.5)
    centre = box.mapViewToScene(star.pos())
    half = STAR_PX / 2
    drawn = QRectF(centre.x() - half, centre.y() - half, 2 * half, 2 * half)
    assert inside.contains(drawn), (plot, drawn, inside)


# -- telemetry a card does not offer ---------------------------------------------------------------


def test_a_run_without_telemetry_says_so_in_words_instead_of_empty_plots(qtbot: Any) -> None:
    run = _run(CPU)
    assert run.telemetry == []
    plots = _plots(qtbot)
    plots.show_run(run)
    assert "Measured on the CPU" in plots.telemetry_note()
    assert "this card" not in plots.telemetry_note()  # a CPU run has no card (issue 31/16)
    note = plots.findChild(QLabel, "live-plots-telemetry-note")
    assert note is not None and note.isVisible()
    assert plots.visible_plots() == ["throughput", "step_time"]
    for key in TELEMETRY_PLOTS:
        assert not plots.plot(key).isVisible()
    assert plots.counts() == {"throughput": 7, "step_time": 7, "power": 0, "busy": 0,
                              "vram_used": 0, "vram_total": 0}


def test_a_cpu_run_says_it_live_from_its_hello(qtbot: Any) -> None:
    plots = _plots(qtbot)
    before = plots.redraws
    plots.add_event({"event": "hello", "backend": "cpu", "rx_t": 1.0})
    _redrawn(qtbot, plots, before)
    assert "Measured on the CPU" in plots.telemetry_note()
    assert plots.visible_plots() == ["throughput", "step_time"]


def test_a_gpu_shows_its_telemetry_plots_while_waiting_for_the_first_sample(
        qtbot: Any) -> None:
    plots = _plots(qtbot)
    before = plots.redraws
    plots.add_event({"event": "hello", "backend": "hip", "rx_t": 1.0})
    plots.add_event({"event": "step", "phase": "warmup", "index": 0, "seconds": 0.5,
                     "items": 1, "throughput": 2.0, "unit": "images/s", "rx_t": 3.0})
    _redrawn(qtbot, plots, before)
    assert plots.telemetry_note() == ""
    assert plots.visible_plots() == ["throughput", "step_time", *TELEMETRY_PLOTS]


def test_one_missing_kind_of_telemetry_is_named_and_only_its_plot_goes(qtbot: Any) -> None:
    run = _run(H200)
    plots = _plots(qtbot)
    before = plots.redraws
    events = run_events(run, drop=("busy_pct",))
    samples = [e for e in events if e["event"] == "telemetry"]
    for event in samples[:2]:
        plots.add_event(event)
    _redrawn(qtbot, plots, before)
    assert "busy" in plots.visible_plots()  # two samples: too early to say
    for event in events:
        if event not in samples[:2]:
            plots.add_event(event)
    plots.finish()
    assert plots.telemetry_note() == "Not available on this card: GPU busy."
    assert plots.visible_plots() == ["throughput", "step_time", "power", "temperature",
                                     "clocks", "vram"]
    assert plots.counts()["busy"] == 0 and plots.counts()["power"] == 40


def test_telemetry_that_stops_before_any_sample_counts_as_not_available(qtbot: Any) -> None:
    plots = _plots(qtbot)
    plots.add_event({"event": "hello", "backend": "hip", "rx_t": 1.0})
    plots.add_event({"event": "telemetry-stopped", "rx_t": 1.2,
                     "reason": "PermissionError: gpu_metrics"})
    qtbot.waitUntil(lambda: "not available on this card" in plots.telemetry_note(),
                    timeout=2000)
    assert plots.visible_plots() == ["throughput", "step_time"]


def test_a_gpu_whose_telemetry_never_comes_is_said_so_a_few_seconds_after_its_hello(
        qtbot: Any) -> None:
    plots = _plots(qtbot)
    before = plots.redraws
    plots.add_event({"event": "hello", "backend": "hip", "rx_t": 1.0})
    plots.add_event({"event": "phase", "phase": "warmup", "rx_t": 3.0})
    _redrawn(qtbot, plots, before)
    assert plots.telemetry_note() == ""  # 2 s: the sampler may still be starting
    plots.add_event({"event": "step", "phase": "warmup", "index": 0, "seconds": 3.0,
                     "items": 1, "throughput": 0.33, "unit": "images/s", "rx_t": 6.5})
    qtbot.waitUntil(lambda: "not available on this card" in plots.telemetry_note(),
                    timeout=2000)
    assert plots.visible_plots() == ["throughput", "step_time"]
    plots.add_event({"event": "telemetry", "rx_t": 7.0, "power_w": 150.0})  # late after all
    qtbot.waitUntil(lambda: "power" in plots.visible_plots(), timeout=2000)


def test_a_run_that_ended_before_it_began_says_no_telemetry_was_recorded(
        qtbot: Any) -> None:
    plots = _plots(qtbot)
    plots.add_event({"event": "run", "rx_t": 0.0})
    plots.add_event({"event": "error", "kind": "other", "rx_t": 0.4})
    plots.finish()
    assert plots.telemetry_note() == "No telemetry was recorded."
    assert plots.empty_words() == "Nothing to show: the run failed before its first step."
    assert plots.visible_plots() == ["throughput", "step_time"]


# -- reset and capacity ---------------------------------------------------------------------------


def test_reset_clears_every_series_shading_and_mark(qtbot: Any) -> None:
    plots = _plots(qtbot)
    plots.show_run(_run(H200))
    assert _regions(plots, "power") and plots.medians()
    before = plots.redraws
    plots.reset()
    assert plots.steps_seen == 0
    assert set(plots.counts().values()) == {0}
    assert plots.medians() == {}
    _redrawn(qtbot, plots, before)  # the cleared plots, at the next ticks

    def marks() -> list[Any]:
        return [i for key in ("throughput", "step_time", *TELEMETRY_PLOTS)
                for i in plots.plot(key).getPlotItem().items
                if isinstance(i, (Band, Tag, Rule, QGraphicsPathItem, pg.InfiniteLine))]

    qtbot.waitUntil(lambda: not marks(), timeout=2000)
    assert plots.points("throughput")[0].size == 0
    assert "temp:gpu" not in plots.counts()
    # and a new run draws from scratch, with its own sensors
    plots.show_run(_run(SD15))
    assert plots.counts()["throughput"] == 25


def test_the_rings_keep_the_newest_points_up_to_their_capacity(qtbot: Any) -> None:
    plots = _plots(qtbot, capacity=10)
    before = plots.redraws
    for i in range(25):
        plots.add_event({"event": "step", "phase": "measure", "index": i, "seconds": 0.1,
                         "items": 4, "throughput": float(i), "unit": "images/s",
                         "rx_t": float(i)})
        plots.add_event({"event": "telemetry", "rx_t": i + 0.5, "power_w": 100.0 + i,
                         "temps_c": {"edge": 40.0 + i}})
    assert plots.steps_seen == 25
    assert plots.counts()["throughput"] == plots.counts()["power"] == 10
    assert plots.counts()["temp:edge"] == 10
    t, values = plots.points("throughput")
    assert list(t) == [float(i) for i in range(15, 25)]
    assert list(values) == [float(i) for i in range(15, 25)]
    assert list(plots.points("power")[1]) == [100.0 + i for i in range(15, 25)]
    _redrawn(qtbot, plots, before)
    x, _ = plots.plot("throughput").getPlotItem().listDataItems()[0].getOriginalDataset()
    assert list(x) == [float(i) for i in range(15, 25)]


def test_a_ring_wraps_in_order_and_keeps_its_extremes() -> None:
    ring = Ring(4, 2)
    for i in range(6):
        ring.append(float(i), 10.0 * i)
    assert len(ring) == 4 and ring.total == 6
    assert list(ring.column(0)) == [2.0, 3.0, 4.0, 5.0]
    assert list(ring.column(1)) == [20.0, 30.0, 40.0, 50.0]
    assert ring.finite and ring.hi == [5.0, 50.0] and ring.lo == [0.0, 0.0]
    ring.append(6.0, float("nan"))
    assert not ring.finite and ring.hi == [6.0, 50.0]
    ring.clear()
    assert len(ring) == 0 and ring.column(0).size == 0 and ring.finite
    with pytest.raises(ValueError):
        Ring(0, 1)


def test_a_step_without_throughput_is_kept_as_a_gap(qtbot: Any) -> None:
    plots = _plots(qtbot)
    for i, throughput in enumerate([100.0, None, 102.0]):
        plots.add_event({"event": "step", "phase": "measure", "index": i, "seconds": 0.0
                         if throughput is None else 0.04, "items": 4,
                         "throughput": throughput, "unit": "images/s", "rx_t": 1.0 + i})
    plots.finish()
    assert plots.counts()["throughput"] == 3
    values = plots.points("throughput")[1]
    assert values[0] == 100.0 and np.isnan(values[1]) and values[2] == 102.0


# -- a real run of the worker ---------------------------------------------------------------------


@pytest.mark.slow
def test_a_real_cpu_run_is_drawn_live_with_a_median_per_part(
        qtbot: Any, aloop: Any, tmp_path: Path) -> None:
    """gemm on the CPU at tiny size through core's runner, its events straight into the plots
    on the Qt event loop, as the Benchmark page feeds them."""
    plots = _plots(qtbot)
    start = plots.redraws
    options = BenchOptions(suite="gemm", device="cpu", size="tiny", warmup_steps=2, steps=5)
    run_file = tmp_path / "gemm.jsonl"
    runner = BenchRunner(options, python=sys.executable, run_file=run_file,
                         on_event=plots.add_event, env={"OMP_NUM_THREADS": "1"})
    task = aloop.create_task(runner.run())
    qtbot.waitUntil(task.done, timeout=300_000)
    outcome = task.result()
    assert outcome.status == "ok", outcome.error
    plots.finish()
    events = [json.loads(line) for line in run_file.read_text().splitlines()]
    steps = [e for e in events if e["event"] == "step"]
    assert plots.steps_seen == len(steps) == 3 * (2 + 5)
    assert plots.counts() == {"throughput": 21, "step_time": 21, "power": 0, "busy": 0,
                              "vram_used": 0, "vram_total": 0}
    assert 1 <= plots.redraws - start < len(steps) + 2  # on the timer, not per event
    parts = ("bf16", "fp16", "fp32")
    assert plots.medians() == pytest.approx({
        part: statistics.median(e["items"] / e["seconds"] for e in steps
                                if e["part"] == part and e["phase"] == "measure")
        for part in parts})
    assert len(_regions(plots, "throughput")) == 3  # one warm-up per part
    assert "Measured on the CPU" in plots.telemetry_note()


# -- a frame at a time: what a moving time axis repaints -------------------------------------------


def test_a_moving_time_axis_paints_the_plots_a_few_at_a_time_and_all_in_the_end(
        qtbot: Any) -> None:
    run = _run(H200)
    plots = _plots(qtbot, fps=25.0)
    events = run_events(run)
    early = [e for e in events if e["rx_t"] < 10.0]
    for event in early:
        plots.add_event(event)
    _redrawn(qtbot, plots, plots.redraws)
    widgets = {key: plots.plot(key) for key in ("throughput", "step_time", *TELEMETRY_PLOTS)}
    held_seen: set[str] = set()
    for event in events[len(early):-1]:  # the rest arrives; the x range moves on
        plots.add_event(event)
        qtbot.wait(5)
        held_seen |= {k for k, w in widgets.items() if not w.updatesEnabled()}
    assert widgets["throughput"].updatesEnabled()  # painted at once, always
    assert held_seen and held_seen <= set(widgets) - {"throughput"}
    plots.finish()
    qtbot.waitUntil(lambda: plots.settled, timeout=3000)
    assert all(w.updatesEnabled() for w in widgets.values())  # each painted in the end
    ranges = [w.getPlotItem().getViewBox().viewRange()[0] for w in widgets.values()]
    assert all(r == pytest.approx(ranges[0]) for r in ranges)


def test_a_hidden_plot_leaves_the_shared_time_axis_and_rejoins_it_when_shown(
        qtbot: Any) -> None:
    plots = _plots(qtbot, fps=25.0)
    plots.show_run(_run(CPU))  # a CPU run: no telemetry plots shown
    power = plots.plot("power")
    assert not power.isVisible()
    assert power.getPlotItem().getViewBox().linkedView(0) is None
    plots.show_run(_run(H200))
    assert power.isVisible()
    assert power.getPlotItem().getViewBox().linkedView(0) is not None
    x = plots.plot("throughput").getPlotItem().getViewBox().viewRange()[0]
    assert power.getPlotItem().getViewBox().viewRange()[0] == pytest.approx(x)
    assert all(plots.plot(k).updatesEnabled() for k in ("throughput", *TELEMETRY_PLOTS))


# -- issue 31/15: one line per part ----------------------------------------------------------------


def test_a_run_of_several_parts_draws_no_line_from_one_part_to_the_next(qtbot: Any) -> None:
    """gemm measures bf16, then fp16, then fp32: their figures differ by a factor, and a line
    joining the last bf16 step to the first fp16 one drew a drop nobody measured."""
    plots = _plots(qtbot)
    t = 1.0
    for part, rate in (("bf16", 400.0), ("fp16", 380.0), ("fp32", 60.0)):
        plots.add_event({"event": "phase", "phase": "warmup", "part": part, "rx_t": t})
        for i in range(4):
            t += 0.1
            plots.add_event({"event": "step", "phase": "warmup" if i == 0 else "measure",
                             "part": part, "index": i, "seconds": 0.1, "items": 1,
                             "throughput": rate + i, "unit": "TFLOP/s", "rx_t": t})
    plots.finish()
    for key in ("throughput", "step_time"):
        joins = plots.plot(key).getPlotItem().listDataItems()[0].opts["connect"]
        assert isinstance(joins, np.ndarray), key
        assert joins.tolist() == [True, True, True, False] * 2 + [True, True, True, False]


def test_one_part_stays_one_line(qtbot: Any) -> None:
    plots = _plots(qtbot)
    for i in range(3):
        plots.add_event({"event": "step", "phase": "measure", "index": i, "seconds": 0.04,
                         "items": 4, "throughput": 100.0 + i, "unit": "images/s",
                         "rx_t": 1.0 + i})
    plots.finish()
    assert plots.plot("throughput").getPlotItem().listDataItems()[0].opts["connect"] == "all"


def test_a_long_noisy_run_draws_a_median_line_over_faint_points(qtbot: Any) -> None:
    """An LLM run: hundreds of steps whose rate scatters by tens of percent filled a solid band;
    the line now follows block medians, the points stay beneath it, faint."""
    rng = np.random.default_rng(7)
    plots = _plots(qtbot)
    rates = 15000.0 * (1.0 + 0.3 * rng.standard_normal(600))
    for i, rate in enumerate(rates):
        plots.add_event({"event": "step", "phase": "measure", "index": i, "seconds": 0.05,
                         "items": 1, "throughput": float(rate), "unit": "tokens/s",
                         "rx_t": 1.0 + 0.05 * i})
    plots.finish()
    x, y = plots.trend()
    finite = y[np.isfinite(y)]
    assert 55 <= finite.size <= 70 and np.all(np.diff(x[np.isfinite(y)]) > 0)
    assert np.std(finite) < np.std(rates) / 2  # a line, not the band
    assert abs(float(np.median(finite)) - float(np.median(rates))) < 0.05 * 15000.0
    raw = plots.plot("throughput").getPlotItem().listDataItems()[0]
    assert raw.opts["pen"].color().alpha() < 255  # the points stay, faint
    plots.reset()
    assert plots.trend()[0].size == 0 and raw.opts["pen"].color().alpha() == 255


def test_a_short_run_has_no_trend_line(qtbot: Any) -> None:
    plots = _plots(qtbot)
    for i in range(20):
        plots.add_event({"event": "step", "phase": "measure", "index": i, "seconds": 0.05,
                         "items": 1, "throughput": 100.0 + i % 3, "unit": "images/s",
                         "rx_t": 1.0 + 0.05 * i})
    plots.finish()
    assert plots.trend()[0].size == 0


def test_a_new_run_does_not_keep_the_last_runs_scales(qtbot: Any) -> None:
    """Issue 31/15: between suites the axes stayed at the last run's ranges (4,600 images/s,
    0-25 s) until the next run's first step came."""
    plots = _plots(qtbot)
    plots.show_run(_run(H200))
    box = plots.plot("throughput").getPlotItem().getViewBox()
    assert box.viewRange()[1][1] > 1000
    plots.reset()
    for key in ("throughput", "step_time", "power"):
        (x0, x1), (y0, y1) = plots.plot(key).getPlotItem().getViewBox().viewRange()
        assert (x0, x1, y0, y1) == (0.0, 1.0, 0.0, 1.0), key
