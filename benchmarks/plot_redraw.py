"""How many redraws per second the live benchmark graphs keep (goal: 20 or more, out of the
timer's 25) when every series holds 100,000 points.

    .venv/bin/python benchmarks/plot_redraw.py [--points 100000] [--seconds 3]

A :class:`gui.widgets.live_plots.LivePlots` is filled through ``add_event``, as the runner feeds
it, with a synthetic long run: one step and one telemetry sample every half second (throughput
with a cold start, a warm-up ramp and noise; power, three temperatures, two clocks, VRAM and
busy). It is shown offscreen at 900x720; a timer then appends two steps and two samples every
10 ms (faster than any real run), so every series changes before every redraw, and the redraws
done in ``--seconds`` of the event loop are counted (painting included). The last line is the
figure: ``plots: N redraws/s at 100000 points per series``.

``measure_redraws()`` is the same measurement for a larger GUI benchmark to import (with this
folder on ``sys.path``: ``from plot_redraw import measure_redraws``).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import gui.qt  # noqa: E402,F401  (the binding, before pyqtgraph looks for one)

# isort: split

from PySide6.QtCore import QElapsedTimer, QEventLoop, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from gui.widgets.live_plots import LivePlots  # noqa: E402

PERIOD_S = 0.5  # one step and one telemetry sample per this much run time
GIB = 2**30


def synthetic_events(points: int, *, start: int = 0, seed: int = 1) -> Iterator[dict[str, Any]]:
    """``points`` step events and ``points`` telemetry events, interleaved, of a run of
    ``points * PERIOD_S`` seconds; ``start``: the index to begin at (to go on with a run)."""
    rng = np.random.default_rng(seed + start)
    noise = np.empty((0, 8))
    if start == 0:
        yield {"event": "hello", "backend": "hip", "rx_t": 0.4}
        yield {"event": "phase", "phase": "warmup", "rx_t": 0.5}
    for n in range(points):
        i = start + n
        t = 11.0 + (i + 1) * PERIOD_S  # the first step ends after its 11 s
        if n % 4096 == 0:  # drawn a little at a time: no pause while measuring
            noise = rng.normal(0.0, 1.0, size=(4096, 8))
        z = noise[n % 4096]
        warm = i < 40
        if i == 0:
            seconds = 11.0  # the cold start: compiling kernels, loading the model
        else:
            ramp = 1.0 + 0.6 * math.exp(-i / 8.0)
            dip = 1.25 if i % 900 < 30 else 1.0  # a slow stretch now and then
            seconds = 0.055 * ramp * dip * (1.0 + 0.02 * z[0])
        if i == 40:
            yield {"event": "phase", "phase": "measure", "rx_t": t - 0.01}
        yield {"event": "step", "phase": "warmup" if warm else "measure", "index": i,
               "seconds": seconds, "items": 256, "throughput": 256 / seconds,
               "unit": "images/s", "rx_t": t}
        heat = 1.0 - math.exp(-i / 300.0)
        busy = 0.0 if i < 20 else min(100.0, 97.0 + 2.0 * z[1])
        yield {"event": "telemetry", "rx_t": t + PERIOD_S / 2,
               "power_w": 80.0 + 300.0 * heat * (busy / 100.0) + 6.0 * z[2],
               "busy_pct": max(0.0, busy),
               "vram_used_bytes": int((1.2 + 13.0 * (i >= 20) + 0.05 * z[3]) * GIB),
               "vram_total_bytes": 140 * GIB,
               "temps_c": {"edge": 35.0 + 30.0 * heat + 0.5 * z[4],
                           "junction": 38.0 + 45.0 * heat + 0.8 * z[5],
                           "mem": 36.0 + 34.0 * heat + 0.4 * z[6]},
               "clocks_mhz": {"sclk": 2100.0 - (150.0 if z[7] > 1.5 else 0.0),
                              "mclk": 1249.0},
               "energy_j": 6.0e4 + 200.0 * t}


def measure_redraws(points: int = 100_000, seconds: float = 3.0) -> float:
    """Redraws per second of a LivePlots holding ``points`` points per series, shown offscreen
    at 900x720 while a few points arrive every 10 ms."""
    return _measure(points, seconds)[0]


def _measure(points: int, seconds: float) -> tuple[float, float]:
    """Redraws per second, and the CPU time this process spent per redraw (the redraw, the
    painting, the feeding) in seconds: the figure that other load on the machine leaves be."""
    app = QApplication.instance() or QApplication([])
    plots = LivePlots(capacity=max(200_000, 2 * points))
    plots.resize(900, 720)
    plots.show()
    for event in synthetic_events(points):
        plots.add_event(event)
    while plots.redraws == 0:  # the first redraw, of everything
        app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
    more = synthetic_events(1_000_000, start=points)

    def feed() -> None:  # two steps and two samples
        for _ in range(4):
            plots.add_event(next(more))

    feeder = QTimer()
    feeder.setInterval(10)
    feeder.timeout.connect(feed)
    before = plots.redraws
    clock = QElapsedTimer()
    loop = QEventLoop()
    QTimer.singleShot(round(seconds * 1000), loop.quit)
    feeder.start()
    clock.start()
    cpu = time.process_time()
    loop.exec()
    took = clock.nsecsElapsed() / 1e9
    cpu = time.process_time() - cpu
    feeder.stop()
    done = plots.redraws - before
    held = min(plots.counts().values())
    plots.finish()
    plots.close()
    plots.deleteLater()
    app.processEvents()
    if held < points:
        raise RuntimeError(f"the plots hold {held} points per series, not {points}")
    return done / took, cpu / max(done, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    started = time.perf_counter()
    rate, cpu = _measure(args.points, args.seconds)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"(filled and measured in {time.perf_counter() - started:.1f} s; {cpu * 1000:.0f} ms "
          f"of CPU per redraw, painting and feeding included; load average {load:.1f} on "
          f"{os.cpu_count()} cores)")
    print(f"plots: {rate:.1f} redraws/s at {args.points} points per series")


if __name__ == "__main__":
    main()
