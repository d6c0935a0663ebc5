"""The Benchmark page's numbers against ``rocmate bench`` with the same settings: the page is
driven for real (offscreen) on this machine's GPU, then each suite runs again from the command
line; every headline figure (and gemm's peaks) is set side by side.

    QT_QPA_PLATFORM=offscreen python benchmarks/gui_vs_cli.py --out DIR [--choice health]

Writes into DIR: the page's report (page.json), the command line's reports (cli-SUITE.json), the
Benchmark and Results pages as PNGs after the run, and a log. The last line is

    gui vs cli: FIGURE page P cli C (P/C), ...
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")  # as gui.qt does, before qasync looks
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import qasync  # noqa: E402

import gui.qt  # noqa: E402,F401  (the binding first)
from core.operations.machine import check_machine  # noqa: E402
from core.report.model import Report, from_json, to_json  # noqa: E402
from gui.app import application  # noqa: E402
from gui.pages.base import PageId  # noqa: E402
from gui.runtime import use_python_threads  # noqa: E402
from gui.session import Session  # noqa: E402


def log(out: Path, text: str) -> None:
    print(text, flush=True)
    with open(out / "gui_vs_cli.log", "a", encoding="utf-8") as f:
        f.write(text + "\n")


def figures(report: Report) -> dict[str, float]:
    """Every figure's median of every run, named ``suite figure``."""
    found: dict[str, float] = {}
    for run in report.runs:
        if run.result is None:
            continue
        for name, figure in run.result.figures.items():
            found[f"{run.suite} {name}"] = figure.median
    return found


def run_page(choices: list[str], python: str, out: Path, *, cpu_tiny: bool = False) -> Report:
    from gui.pages.benchmark import BenchmarkPage
    from gui.wizard import RocWizard

    app = application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    use_python_threads(loop)
    session = Session(python=python, history_path=out / "history.sqlite")
    session.report = check_machine(None, python=python)
    wizard = RocWizard(session)
    wizard.resize(900, 720)
    wizard.open_at(PageId.BENCHMARK)
    wizard.show()
    page = wizard.pages[PageId.BENCHMARK]
    assert isinstance(page, BenchmarkPage)
    page.choose(*choices)
    if cpu_tiny:  # a check of this script on a machine without a GPU
        page.advanced.device.setCurrentIndex(page.advanced.device.findData("cpu"))
        page.advanced.tiny.setChecked(True)

    async def go() -> None:
        page.start()
        while page.busy:
            await asyncio.sleep(0.1)

    started = time.monotonic()
    loop.run_until_complete(go())
    if page.result is None or session.bench_report is None:
        raise SystemExit(f"the page's run did not finish: {page.message.text()}")
    log(out, f"page: {page.result.status} in {time.monotonic() - started:.0f} s; "
             f"{page.status.text()}")
    page.plots.finish()
    # the plots paint their rows one timer tick apart (gui/widgets/live_plots.py): a grab
    # before the last tick showed the held plots black (issue 39/2)
    deadline = time.monotonic() + 5.0
    while not page.plots.settled and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    for _ in range(20):
        app.processEvents()
    wizard.grab().save(str(out / "benchmark-page.png"))
    wizard.next()
    for _ in range(20):
        app.processEvents()
    wizard.grab().save(str(out / "results-page.png"))
    report = session.bench_report
    (out / "page.json").write_text(to_json(report) + "\n", encoding="utf-8")
    return report


def run_cli(report: Report, python: str, out: Path) -> dict[str, float]:
    """Each suite of the page's report again, from the command line, with its settings."""
    from core.bench.worker.options import BenchOptions

    found: dict[str, float] = {}
    for run in report.runs:
        given = BenchOptions.from_values({k: v for k, v in run.settings.items()
                                          if k in BenchOptions.__dataclass_fields__})
        argv = given.to_argv()[2:]  # without --suite: the command takes it first
        target = out / f"cli-{run.suite}.json"
        command = [sys.executable, "-m", "core.cli", "bench", run.suite, "--python", python,
                   "--out", str(target), "--no-history", *argv]
        log(out, "$ " + " ".join(command[1:]))
        started = time.monotonic()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
        log(out, f"cli: exit {done.returncode} in {time.monotonic() - started:.0f} s")
        if done.returncode != 0:
            log(out, done.stdout[-2000:] + done.stderr[-2000:])
            continue
        found.update(figures(from_json(target.read_text(encoding="utf-8"))))
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--choice", action="append", default=[],
                    help="a card of the page: health, resnet50-train, sd15-infer, llm-train "
                         "(repeat; default health)")
    ap.add_argument("--cpu-tiny", action="store_true",
                    help="run on the CPU at tiny size (to check the script without a GPU)")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    choices = args.choice or ["health"]
    page_report = run_page(choices, args.python, args.out, cpu_tiny=args.cpu_tiny)
    page = figures(page_report)
    for run in page_report.runs:
        log(args.out, f"page {run.suite}: {run.status}, {run.duration_s:.1f} s, settings "
                      f"{ {k: v for k, v in run.settings.items() if v not in (None, False)} }")
    cli = run_cli(page_report, args.python, args.out)
    parts = []
    for name, value in page.items():
        if cli.get(name):
            log(args.out, f"{name}: page {value:.4g}, cli {cli[name]:.4g}, "
                          f"page/cli {value / cli[name]:.3f}")
            if not name.endswith("step_time"):
                parts.append(f"{name} page {value:.4g} cli {cli[name]:.4g} "
                             f"({value / cli[name]:.3f})")
    log(args.out, "gui vs cli: " + "; ".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
