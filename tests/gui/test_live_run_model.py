"""The live graphs' model (gui/models/live_run.py) without a widget: the recorded H200 run's
events in, the series, the run's shape and the drawing's to-do flags out. No Qt is imported by
the model (an import-linter contract, checked here in a fresh interpreter too)."""

from __future__ import annotations

import subprocess
import sys

from gui.models.live_run import SOLID, TELEMETRY_PLOTS, LiveRun
from tests.gui.test_live_plots import H200, _expected_counts, _run, run_events


def test_the_model_imports_no_qt() -> None:
    code = ("import sys, gui.models.live_run; "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph')]; "
            "print(bad); sys.exit(1 if bad else 0)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_streamed_run_and_its_saved_report_make_the_same_model() -> None:
    run = _run(H200)
    live = LiveRun()
    for event in run_events(run):
        live.add_event(event)
    live.finish()
    saved = LiveRun()
    saved.take_run(run)
    assert live.counts() == saved.counts() == _expected_counts(run)
    assert live.medians() == saved.medians() and live.medians()
    assert live.parts == saved.parts
    assert len(live.warm) == len(saved.warm) == 1
    assert live.missing("power") is False
    assert live.finished and saved.finished


def test_the_drawing_flags_say_what_changed() -> None:
    model = LiveRun()
    model.dirty.clear()
    model.decorated = False
    model.laid_out = model.titled = True
    model.add_event({"event": "step", "phase": "warmup", "index": 0, "seconds": 0.5,
                     "items": 8, "unit": "images/s", "rx_t": 1.0})
    assert model.dirty == {"throughput", "step_time"}
    assert model.decorated  # a warm-up step: its shading grows
    assert not model.titled  # the unit is new: the throughput's title says it
    model.titled = True
    model.add_event({"event": "telemetry", "rx_t": 1.2, "power_w": 300.0,
                     "clocks_mhz": {"sclk": 1800.0, "mclk": 1200.0}})
    assert {"power", "clock:sclk", "clock:mclk"} <= model.dirty
    assert not model.laid_out  # plots to show: power and clocks
    assert not model.titled  # two clocks: a legend in the title
    assert model.series["clock:sclk"].dash == SOLID != model.series["clock:mclk"].dash


def test_a_cpu_run_says_no_telemetry_from_its_hello() -> None:
    model = LiveRun()
    model.add_event({"event": "hello", "backend": "cpu", "rx_t": 0.3})
    missing, nothing, stopped, empty, on_cpu = model.note_facts()
    assert missing == TELEMETRY_PLOTS and on_cpu and not nothing
    assert stopped is None and empty is None


def test_reset_hands_back_the_series_whose_curves_go() -> None:
    model = LiveRun()
    model.add_event({"event": "telemetry", "rx_t": 0.5, "power_w": 100.0, "busy_pct": 50.0})
    gone = model.reset()
    assert sorted(s.key for s in gone) == ["busy", "power"]
    assert sorted(model.series) == ["step_time", "throughput"]
    assert model.counts()["power"] == 0 and model.samples == 0
