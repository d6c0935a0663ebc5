"""``rocmate bench SUITE``: run one suite in the target Python, show progress and a summary,
save the report (``--out``) and add it to the history."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import IO, Any

from core.bench.run_report import build_report
from core.bench.runner import BenchRunner, RunOutcome, default_run_file, run_sync
from core.bench.worker.options import BenchOptions, add_arguments
from core.bench.worker.protocol import SUITES
from core.report.model import Report, to_json
from core.report.privacy import scrub_report
from core.report.text import run_text


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Add ``bench`` with all its options; sets ``func=run``."""
    p = subparsers.add_parser(
        "bench", help="benchmark the GPU (ResNet-50, SD 1.5, LLM training, GEMM, bandwidth)",
        description="Run a benchmark suite in the target Python and save a rocmate.report/1.")
    p.add_argument("suite", choices=SUITES)
    p.add_argument("--python", metavar="PATH",
                   help="the Python holding the ROCm PyTorch (default: rocmate's managed "
                        "environment, else python3)")
    p.add_argument("--out", metavar="FILE.json", help="write the report here")
    p.add_argument("--json", action="store_true", help="print the report JSON on stdout")
    add_arguments(p, cli=True, skip=("suite",))  # every benchmark option, defined once
    p.add_argument("--watchdog", type=float, default=180.0, metavar="S",
                   help="kill the worker after S seconds without an event (default 180)")
    p.add_argument("--startup-timeout", type=float, default=900.0, metavar="S",
                   help="the same until the first step: build, compile, autotune (default 900)")
    p.add_argument("--run-file", metavar="FILE.jsonl",
                   help="event log (default: under $XDG_DATA_HOME/rocmate/runs)")
    p.add_argument("--no-telemetry", action="store_true", help="do not sample GPU telemetry")
    p.add_argument("--no-history", action="store_true", help="do not add the run to the history")
    p.set_defaults(func=run)


def options_from_args(args: argparse.Namespace) -> BenchOptions:
    model = str(Path(args.model).expanduser().resolve()) if args.model else None
    return BenchOptions.from_values({**vars(args), "model": model})


# The measured phase's default length per part (docs/bench.md), for the progress bar.
_MEASURE_SECONDS = {"gemm": 2.0, "bandwidth": 2.0}


class Progress:
    """A one-line progress display on stderr (plain lines when stderr is not a terminal)."""

    def __init__(self, stream: IO[str], options: BenchOptions) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.options = options
        self.phase = ""
        self.part: str | None = None
        self.measure_t0 = 0.0
        self.last_draw = 0.0
        self.width = 0
        self.last_step: dict[str, Any] = {}
        self.hello_t: float | None = None  # until the first phase: the suite is being prepared

    def _line(self, text: str, final: bool = False) -> None:
        if self.tty:
            pad = max(0, self.width - len(text))
            self.stream.write("\r" + text + " " * pad + ("\n" if final else ""))
            self.width = 0 if final else len(text)
        elif final:
            self.stream.write(text + "\n")
        self.stream.flush()

    def __call__(self, ev: dict[str, Any]) -> None:
        kind = ev.get("event")
        if kind == "hello":
            dev = f"{ev.get('device_name')} ({ev.get('backend')}, {ev.get('arch')})"
            s = ev.get("settings") or {}
            self._line(f"{ev.get('suite')} on {dev}, torch {ev.get('torch')}, "
                       f"{s.get('precision') or 'all dtypes'}, batch {s.get('batch_size')}",
                       final=True)
            self.hello_t = float(ev.get("rx_t") or 0.0)
            self._line("preparing (libraries, model, data) ...", final=not self.tty)
        elif kind == "telemetry" and self.tty and self.hello_t is not None and not self.phase:
            self._line(f"preparing (libraries, model, data) "
                       f"{float(ev.get('rx_t') or 0.0) - self.hello_t:.0f} s")
        elif kind == "phase":
            if self.phase and self.tty:
                self._line(self._status_text(), final=True)
            elif self.tty and self.hello_t is not None:  # the preparing line, finished
                took = float(ev.get("rx_t") or 0.0) - self.hello_t
                self._line(f"prepared (libraries, model, data) in {took:.1f} s", final=True)
            self.phase = str(ev.get("phase"))
            self.part = ev.get("part")
            self.measure_t0 = float(ev.get("rx_t") or 0.0)
            if not self.tty and self.phase != "done":
                self._line(f"{self.phase}{' ' + self.part if self.part else ''} ...", final=True)
            self.last_step = {}
        elif kind == "step":
            self.last_step = ev
            now = time.monotonic()
            if self.tty and now - self.last_draw > 0.1:
                self.last_draw = now
                self._line(self._status_text())
        elif kind == "error" and self.tty and self.width:
            self._line("", final=True)

    def _status_text(self) -> str:
        ev = self.last_step
        label = f"{self.phase}{' ' + self.part if self.part else ''}"
        if not ev:
            return f"{label:<14}"
        idx = int(ev.get("index", 0)) + 1
        rate = ev.get("throughput")
        rate_s = f"{_num(rate)} {ev.get('unit', '')}" if rate else ""
        text = f"{label:<14} step {idx:>4}  {ev.get('seconds', 0):.4f} s/step  {rate_s}"
        if self.phase == "measure":
            o = self.options
            if o.steps:
                frac = min(1.0, idx / o.steps)
            else:
                target = o.seconds or _MEASURE_SECONDS.get(o.suite, 10.0)
                frac = min(1.0, (float(ev.get("rx_t", 0.0)) - self.measure_t0) / target)
            bar = "#" * int(frac * 20)
            text = f"{label:<14} [{bar:<20}] {frac:>4.0%}  {rate_s}"
        return text


def _write_out(path: Path, text: str) -> bool:
    """Write the --out report (its folder created); a failure is one line, and the run still
    goes to the history and the summary."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        print(f"rocmate: the report could not be written to {path}: {exc.strerror or exc}",
              file=sys.stderr)
        return False
    return True


def _num(v: float | None, digits: int = 4) -> str:
    if v is None:
        return "-"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.{digits}g}"


def summary(report: Report) -> str:
    """The summary table of a report's runs."""
    lines: list[str] = []
    for run in report.runs:
        lines += run_text(run)  # the same table `rocmate report show` prints
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Run the suite; exit 0 when it measured, 1 on error, 130 when cancelled."""
    from core.report.history import History, HistoryError, default_path
    from core.system import LiveSystem

    system = LiveSystem()
    env = system.env()
    python = args.python
    if not python:
        from core.probe.managed_env import default_python

        python = default_python(system)
    from core.probe.environment import applied_env

    script, extra = applied_env(system, python)  # e.g. HSA_OVERRIDE_GFX_VERSION from install
    if extra:
        shown = " ".join(f"{k}={v}" for k, v in sorted(extra.items()))
        print(f"rocmate: with {shown} (from {script})", file=sys.stderr)
    options = options_from_args(args)
    run_file = Path(args.run_file) if args.run_file else default_run_file(env, options.suite)
    progress = Progress(sys.stderr, options)
    runner = BenchRunner(options, python=python, env=extra, run_file=run_file,
                         watchdog_s=args.watchdog,
                         startup_timeout_s=args.startup_timeout,
                         telemetry=not args.no_telemetry, on_event=progress, system=system)
    outcome: RunOutcome = run_sync(runner)
    # Scrubbed before it is written anywhere: no user, host or home path leaves the machine.
    report = scrub_report(build_report([outcome], system))
    text = to_json(report)
    out_failed = bool(args.out) and not _write_out(Path(args.out), text)
    if not args.no_history:
        try:
            with History(default_path(env)) as history:
                history.insert(report)
        except (HistoryError, OSError) as exc:
            print(f"rocmate: the run was not added to the history: {exc}", file=sys.stderr)
    if args.json:
        print(text)
    else:
        print(summary(report))
        saved = [f"run file {run_file}"] + ([f"report {args.out}"] if args.out and not out_failed
                                            else [])
        print("  " + "; ".join(saved))
    if outcome.status == "ok":
        return 1 if out_failed else 0
    return 130 if outcome.status == "cancelled" else 1
