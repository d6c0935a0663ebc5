"""Stream a recorded report into the Benchmark page and grab it: the page mid-run (the graphs and
the telemetry as far as ``--at`` seconds, the progress line saying what the worker does), then
after the run, then the Results page that follows it. Nothing is measured: the run's own steps
and telemetry samples, at the times the report holds, are the events the page gets.

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m scripts.replay_run_screens \\
        --report tests/fixtures/reports/gpu/h200-llm-infer-8b.json --lang en --out /tmp/x

Writes ``[<lang>-]<suite>-live.png``, ``-done.png`` and ``-results.png`` (the prefix only for a
language other than English) into ``--out``. The page's own code does the drawing; the script
only stands in for the worker (its events) and the clock (the time gone, for the progress
line)."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_API", "pyside6")  # as gui.qt does

from core.report.model import Report, SuiteRun, from_json


def run_events(run: SuiteRun, backend: str = "cuda") -> list[dict[str, Any]]:
    """The events the runner sent during ``run``, rebuilt from its report: a phase event before
    each phase of each part, the steps at their times (with their part and unit), the
    telemetry samples, then the result, done and the end; ``rx_t`` on the run's clock."""
    units = {f.unit for f in run.result.figures.values()} if run.result else set()
    unit = next((u for u in ("tokens/s", "images/s") if u in units), "")
    events: list[dict[str, Any]] = [{"event": "run", "suite": run.suite, "rx_t": 0.0},
                                    {"event": "hello", "backend": backend,
                                     "device_name": run.device.name if run.device else None,
                                     "rx_t": 0.5}]
    where: tuple[str | None, str] | None = None
    previous = 0.0
    for s in run.steps:
        t = s.t if s.t is not None else previous + s.seconds
        previous = t
        if (s.part, s.phase) != where:
            where = (s.part, s.phase)
            phase: dict[str, Any] = {"event": "phase", "phase": s.phase, "rx_t": t - s.seconds}
            if s.part:
                phase["part"] = s.part
            events.append(phase)
        step: dict[str, Any] = {"event": "step", "phase": s.phase, "index": s.index,
                                "seconds": s.seconds, "items": s.items,
                                "throughput": s.items / s.seconds if s.seconds > 0 else None,
                                "unit": unit, "rx_t": t}
        if s.part:
            step["part"] = s.part
        events.append(step)
    for sample in run.telemetry:
        fields = {k: v for k, v in asdict(sample).items() if v not in (None, {}) and k != "t"}
        events.append({"event": "telemetry", "rx_t": sample.t, **fields})
    last = max(e["rx_t"] for e in events)
    if run.result is not None:
        events.append({"event": "result", "headline": run.result.headline,
                       "figures": {k: asdict(f) for k, f in run.result.figures.items()},
                       "rx_t": last + 0.01})
    events.append({"event": "phase", "phase": "done", "rx_t": last + 0.02})
    events.append({"event": "end", "status": run.status, "rx_t": max(run.duration_s, last + 0.03)})
    return sorted(events, key=lambda e: e["rx_t"])


def mid_run(run: SuiteRun) -> float:
    """A moment worth showing mid-run: the last part's measured phase under way (the earlier
    parts done, their medians known), else half the run."""
    measured = [s for s in run.steps if s.phase == "measure" and s.t is not None]
    if measured:
        last_part = [s for s in measured if s.part == measured[-1].part]
        if len(last_part) >= 2:
            middle = last_part[len(last_part) // 2]
            assert middle.t is not None
            return middle.t + 0.5 * min(middle.seconds, 1.0)
    return run.duration_s / 2


def _settle(app: Any, rounds: int = 20) -> None:
    from PySide6.QtCore import QCoreApplication, QEventLoop

    for _ in range(rounds):
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
    app.processEvents()


def _wait_settled(app: Any, plots: Any, seconds: float = 5.0) -> None:
    """Until the plots have let every held row go (a grab before shows them black)."""
    deadline = time.monotonic() + seconds
    while not plots.settled and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    _settle(app)


def grab_run(report: Report, out: Path, lang: str, at: float | None = None) -> list[Path]:
    """The Benchmark page live at ``at`` s (None: :func:`mid_run`), after the run, and the
    Results page; the PNGs written, in that order."""
    import gui.qt  # noqa: F401  (the binding first)
    from gui import i18n
    from gui.app import application
    from gui.pages.base import PageId
    from gui.pages.benchmark import BenchmarkPage
    from gui.session import Session
    from gui.wizard import RocWizard

    app = application()
    if not i18n.switch(lang):
        raise SystemExit(f"the app's {lang} catalogue is missing (make qm builds it)")
    run = report.runs[-1]
    events = run_events(run, backend=run.device.backend if run.device else "cuda")
    moment = mid_run(run) if at is None else at
    out.mkdir(parents=True, exist_ok=True)
    prefix = "" if lang == "en" else f"{lang}-"
    # nothing is kept: the history is one the page never writes to (no run starts)
    session = Session(python=sys.executable,
                      history_path=Path(tempfile.gettempdir()) / "rocmate-replay-unused.sqlite")
    wizard = RocWizard(session)
    wizard.resize(900, 720)
    wizard.open_at(PageId.BENCHMARK)
    wizard.show()
    page = wizard.pages[PageId.BENCHMARK]
    assert isinstance(page, BenchmarkPage)
    page.choose(run.suite)
    # what Start does, without a worker: the page busy, its graphs fed by the recorded events
    page._chosen = [c.plan for c in page.cards if c.check.isChecked()]
    page._runs, page._run_index, page._suite = 1, 0, run.suite
    page._estimate_s = sum(p.estimate_s for p in page._chosen)
    page.plots.reset()
    page.show_choices(False, progress=True)
    page.set_busy(True)
    page._update_buttons()
    written = []
    for i, event in enumerate(e for e in events if e["rx_t"] <= moment):
        page._event(event)
        if i % 10 == 0:
            app.processEvents()  # the plots' timer ticks between events, as in a live run
    page._started = time.monotonic() - moment  # the time gone, for the progress line
    page.say(page.status, page._progress_text)
    _settle(app)
    _wait_settled(app, page.plots)
    written.append(_save(wizard, out / f"{prefix}{run.suite}-live.png"))
    for event in (e for e in events if e["rx_t"] > moment):
        page._event(event)
    page._started = time.monotonic() - run.duration_s
    page.progress.setValue(1000)
    page._ticker.stop()
    page.plots.finish()
    page.set_busy(False)
    page._update_buttons()
    session.bench_report = report
    page.offer_runs(report.runs)
    took = f"{run.duration_s:.0f}"
    page.say(page.status, lambda: page.tr("Done in %1 s. Next shows the results.")
             .replace("%1", took))
    page.completeChanged.emit()
    _wait_settled(app, page.plots)
    written.append(_save(wizard, out / f"{prefix}{run.suite}-done.png"))
    wizard.next()
    _settle(app, 40)
    written.append(_save(wizard, out / f"{prefix}{run.suite}-results.png"))
    wizard.close()
    return written


def _save(widget: Any, path: Path) -> Path:
    if not widget.grab().save(str(path)):
        raise SystemExit(f"could not write {path}")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--report", type=Path, required=True, help="a rocmate report (JSON)")
    ap.add_argument("--lang", default="en", choices=("en", "zh_CN"))
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--at", type=float, default=None,
                    help="seconds into the run for the live picture (default: the last part's "
                         "measured phase, half done)")
    args = ap.parse_args(argv)
    report = from_json(args.report.read_text(encoding="utf-8"))
    for path in grab_run(report, args.out, args.lang, args.at):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
