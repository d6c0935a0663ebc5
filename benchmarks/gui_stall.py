"""How smooth the desktop app stays while it works: the longest event-loop stall, the graphs'
redraw rate and the time to the first window.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/gui_stall.py

A 5 ms precise QTimer beats on the GUI thread; a stall is the longest time between two beats
beyond those 5 ms, while
  (a) the doctor runs on a replayed machine (the System check page),
  (b) a real CPU benchmark (gemm, tiny shapes) streams into the live graphs (the Benchmark page),
  (c) an install log floods 10,000 lines/s into the log view (the Run set-up page),
  (d) History loads 1,000 runs.
Then the graphs' redraws per second with 100,000 points per series (benchmarks/plot_redraw.py)
and the first window (benchmarks/gui_start.py: a fresh process each time). The last line is

    gui: longest stall N ms; plots N redraws/s at 100000 points per series; first window N ms

Goals: stall < 50 ms, >= 20 redraws/s, first window < 1500 ms.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")  # as gui.qt does, before qasync looks
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT)]

import qasync  # noqa: E402
from PySide6.QtCore import Qt, QTimer  # noqa: E402

import gui.qt  # noqa: E402,F401  (the binding first)
from core.report.history import History  # noqa: E402
from core.report.model import from_json  # noqa: E402
from gui.app import application  # noqa: E402
from gui.bridge import Bridge  # noqa: E402
from gui.pages.base import PageId  # noqa: E402
from gui.runtime import settle_collector, use_python_threads  # noqa: E402
from gui.session import Session  # noqa: E402

MACHINE = ROOT / "tests/fixtures/machines/rx6700xt-ubuntu2204-needs-override"
REPORT = ROOT / "tests/fixtures/reports/h200-resnet50-train-amp-bf16-cl-bs256.json"
PERIOD_MS = 5


class Heartbeat:
    """A 5 ms precise timer; ``longest_ms`` is the longest gap between beats beyond 5 ms."""

    def __init__(self) -> None:
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(PERIOD_MS)
        self.timer.timeout.connect(self._beat)
        self.last = 0.0
        self.longest_ms = 0.0

    def start(self) -> None:
        self.longest_ms = 0.0
        self.last = time.perf_counter()
        self.timer.start()

    def stop(self) -> float:
        self.timer.stop()
        return self.longest_ms

    def _beat(self) -> None:
        now = time.perf_counter()
        self.longest_ms = max(self.longest_ms, (now - self.last) * 1000 - PERIOD_MS)
        self.last = now


async def until(done: Callable[[], bool], timeout_s: float = 300.0) -> None:
    end = time.monotonic() + timeout_s
    while not done():
        if time.monotonic() > end:
            raise SystemExit("timed out")
        await asyncio.sleep(0.02)


async def doctor(beat: Heartbeat) -> float:
    from gui.wizard import RocWizard

    wizard = RocWizard(Session(root=str(MACHINE)))
    wizard.show()
    await asyncio.sleep(0.3)
    page = wizard.pages[PageId.SYSTEM_CHECK]
    beat.start()
    wizard.setStartId(int(PageId.SYSTEM_CHECK))
    wizard.restart()  # the page starts the doctor as a user reaches it
    await asyncio.sleep(0.05)
    await until(lambda: not page.busy)
    stall = beat.stop()
    wizard.bridge.shutdown()
    wizard.close()
    return stall


async def benchmark(beat: Heartbeat, history: Path) -> tuple[float, int]:
    from gui.pages.benchmark import BenchmarkPage

    session = Session(python=sys.executable, history_path=history)
    page = BenchmarkPage(session, Bridge())
    page.resize(900, 720)
    page.initializePage()
    page.show()
    page.choose("health")
    page.advanced.device.setCurrentIndex(page.advanced.device.findData("cpu"))
    page.advanced.tiny.setChecked(True)
    page.advanced.measure.setValue(4)
    await asyncio.sleep(0.3)
    beat.start()
    page.start()
    await until(lambda: not page.busy)
    stall = beat.stop()
    if page.result is None or page.result.status != "ok":
        raise SystemExit(f"the benchmark did not run: {page.message.text()}")
    steps = page.plots.steps_seen
    page.close()
    return stall, steps


async def install_log(beat: Heartbeat, lines_per_s: int = 10_000, seconds: float = 3.0
                      ) -> tuple[float, int]:
    from gui.pages.run_setup import RunSetupPage

    page = RunSetupPage(Session(), Bridge())
    page.resize(900, 720)
    page.show()
    await asyncio.sleep(0.3)
    sent = 0

    def flood() -> None:  # as a runner reading apt's output on its own thread
        nonlocal sent
        start = time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds:
            due = int(elapsed * lines_per_s)
            while sent < due:
                page.events.append({"event": "output", "step": "apt",
                                    "line": f"Get:{sent} http://deb.debian.org/debian "
                                            f"bookworm/main amd64 libfoo{sent} 1.2.{sent} "
                                            "[123 kB]"})
                sent += 1
            time.sleep(0.001)

    beat.start()
    page.timer.start()
    thread = threading.Thread(target=flood)
    thread.start()
    await until(lambda: not thread.is_alive())
    await until(lambda: not page.events)
    await asyncio.sleep(0.1)
    stall = beat.stop()
    page.timer.stop()
    page.close()
    return stall, sent


async def history_window(beat: Heartbeat, history: Path, runs: int = 1000) -> tuple[float, int]:
    from gui.history import HistoryWindow

    report = from_json(REPORT.read_text())
    with History(history) as db:
        while db.count() < runs:
            db.insert(report)
    window = HistoryWindow(Bridge(), history)
    window.resize(900, 720)
    window.show()
    await asyncio.sleep(0.3)
    beat.start()
    window.reload()
    await until(lambda: window.loaded)
    await asyncio.sleep(0.1)
    stall = beat.stop()
    rows = window.model.rowCount()
    window.close()
    return stall, rows


def main() -> int:
    app = application()
    settle_collector()  # as the app does once its window is up (the windows here come later)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    use_python_threads(loop)
    beat = Heartbeat()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_DATA_HOME"] = tmp
        os.environ["XDG_STATE_HOME"] = tmp
        os.environ["XDG_CONFIG_HOME"] = tmp
        os.environ.setdefault("OMP_NUM_THREADS", "1")

        async def scenarios() -> list[float]:
            a = await doctor(beat)
            print(f"(a) doctor on a replayed machine: longest stall {a:.0f} ms", flush=True)
            b, steps = await benchmark(beat, Path(tmp) / "bench.sqlite")
            print(f"(b) CPU benchmark into the live graphs ({steps} steps): longest stall "
                  f"{b:.0f} ms", flush=True)
            c, lines = await install_log(beat)
            print(f"(c) install log, {lines:,} lines at 10,000 lines/s: longest stall "
                  f"{c:.0f} ms", flush=True)
            d, rows = await history_window(beat, Path(tmp) / "history.sqlite")
            print(f"(d) History loading {rows:,} runs: longest stall {d:.0f} ms", flush=True)
            return [a, b, c, d]

        stalls = loop.run_until_complete(scenarios())
    from gui_start import once
    from plot_redraw import measure_redraws

    redraws = measure_redraws(100_000, 3.0)
    print(f"plots: {redraws:.0f} redraws/s at 100000 points per series", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": tmp,
               "XDG_STATE_HOME": tmp}
        once(str(MACHINE), env)
        first = statistics.median(once(str(MACHINE), env) for _ in range(3)) * 1000
    print(f"gui: longest stall {max(stalls):.0f} ms; plots {redraws:.0f} redraws/s at 100000 "
          f"points per series; first window {first:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
