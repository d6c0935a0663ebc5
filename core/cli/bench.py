"""``rocmate bench SUITE``: run one suite in the target Python, show progress and a summary,
save the report (``--out``) and add it to the history."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from core.bench.worker.options import BenchOptions, add_arguments
from core.bench.worker.protocol import SUITES
from core.cli.argwords import retell
from core.i18n import t
from core.operations.errors import OperationError
from core.report.formatting import settings_flags
from core.termstyle import display_width, pad_left

if TYPE_CHECKING:  # the benchmark operation loads when the command runs
    from core.report.model import Report


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Add ``bench`` with all its options; sets ``func=run``."""
    p = subparsers.add_parser(
        "bench", help=t("cli.help.bench.summary", "benchmark the GPU (ResNet-50, SD 1.5, LLM "
                        "training, GEMM, bandwidth)"),
        description=t("cli.help.bench.description", "Run a benchmark suite in the target Python "
                      "and save a rocmate.report/1."),
        epilog=t("cli.help.bench.epilog", "Exit status: 0 the suite measured; 1 the run failed "
                 "(the report says why) or the report could not be written; 2 a usage error (an "
                 "option the suite does not take); 130 cancelled."))
    p.add_argument("suite", choices=SUITES)
    p.add_argument("--python", metavar="PATH",
                   help=t("cli.help.bench.python", "the Python holding the ROCm PyTorch (default: "
                          "rocmate's managed environment, else python3)"))
    p.add_argument("--out", metavar="FILE.json",
                   help=t("cli.help.bench.out", "write the report here"))
    p.add_argument("--json", action="store_true",
                   help=t("cli.help.bench.json", "print the report JSON on stdout"))
    add_arguments(p, cli=True, skip=("suite",))  # every benchmark option, defined once
    retell(p, _benchmark_option_helps())
    p.add_argument("--watchdog", type=float, default=180.0, metavar="S",
                   help=t("cli.help.bench.watchdog", "kill the worker after S seconds without an "
                          "event (default 180)"))
    p.add_argument("--startup-timeout", type=float, default=900.0, metavar="S",
                   help=t("cli.help.bench.startup-timeout", "the same until the first step: "
                          "build, compile, autotune (default 900)"))
    p.add_argument("--run-file", metavar="FILE.jsonl",
                   help=t("cli.help.bench.run-file", "event log (default: under "
                          "$XDG_DATA_HOME/rocmate/runs)"))
    p.add_argument("--no-telemetry", action="store_true",
                   help=t("cli.help.bench.no-telemetry", "do not sample GPU telemetry"))
    p.add_argument("--no-history", action="store_true",
                   help=t("cli.help.bench.no-history", "do not add the run to the history"))
    p.set_defaults(func=run)


def _benchmark_option_helps() -> list[tuple[str, str, str]]:
    """The help of the options core.bench.worker.options defines (it loads the standard library
    alone: the worker runs it), in the user's language: (dest, its English there, the words). An
    option whose English has changed there keeps it (core.cli.argwords.retell)."""
    return [
        ("device", "cuda:N or cpu (default cuda:0)",
         t("cli.help.bench.device", "cuda:N or cpu (default cuda:0)")),
        ("size", "tiny = small shapes for a quick smoke run",
         t("cli.help.bench.size", "tiny = small shapes for a quick smoke run")),
        ("warmup_steps", "a fixed warm-up instead of 'until step times settle'",
         t("cli.help.bench.warmup-steps", "a fixed warm-up instead of 'until step times "
           "settle'")),
        ("steps", "measure exactly N steps",
         t("cli.help.bench.steps", "measure exactly N steps")),
        ("seconds", "measure for T seconds",
         t("cli.help.bench.seconds", "measure for T seconds")),
        ("compile", "torch.compile the model",
         t("cli.help.bench.compile", "torch.compile the model")),
        ("channels_last", "channels_last memory format",
         t("cli.help.bench.channels-last", "channels_last memory format")),
        ("model", "sd15-infer: local diffusers folder or .safetensors file (real weights)",
         t("cli.help.bench.model", "sd15-infer: local diffusers folder or .safetensors file "
           "(real weights)")),
        ("preset", "llm-train and llm-infer model size (default auto: the largest that fits)",
         t("cli.help.bench.preset", "llm-train and llm-infer model size (default auto: the "
           "largest that fits)")),
        ("seq_len", "llm-train sequence length, llm-infer prompt length",
         t("cli.help.bench.seq-len", "llm-train sequence length, llm-infer prompt length")),
        ("inference_steps", "sd15-infer denoising steps (default 20)",
         t("cli.help.bench.inference-steps", "sd15-infer denoising steps (default 20)")),
        ("gpus", "data-parallel on N GPUs, or all: one process per GPU (torch.distributed, "
                 "DistributedDataParallel); resnet50-train and llm-train",
         t("cli.help.bench.gpus", "data-parallel on N GPUs, or all: one process per GPU "
           "(torch.distributed, DistributedDataParallel); resnet50-train and llm-train")),
    ]


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
        self.prepare_t: float | None = None  # when preparing began (first setup phase or hello)
        self.setup_what: str | None = None  # the latest setup phase's words (newer workers)
        self.setup_t = 0.0

    def _line(self, text: str, final: bool = False) -> None:
        if self.tty:
            pad = max(0, self.width - display_width(text))
            self.stream.write("\r" + text + " " * pad + ("\n" if final else ""))
            self.width = 0 if final else display_width(text)
        elif final:
            self.stream.write(text + "\n")
        self.stream.flush()

    def __call__(self, ev: dict[str, Any]) -> None:
        kind = ev.get("event")
        if kind == "hello":
            dev = f"{ev.get('device_name')} ({ev.get('backend')}, {ev.get('arch')})"
            flags = settings_flags(ev.get("settings") or {})
            self._line(t("cli.bench.hello", "{suite} on {device}, torch {torch}{flags}",
                         suite=ev.get("suite"), device=dev, torch=ev.get("torch"),
                         flags="".join(f", {flag}" for flag in flags)), final=True)
            self.hello_t = float(ev.get("rx_t") or 0.0)
            if self.prepare_t is None:
                self.prepare_t = self.hello_t
            if self.setup_what is None:  # an older worker: no words on what it prepares
                self._line(t("cli.bench.preparing", "preparing (libraries, model, data) ..."),
                           final=not self.tty)
        elif kind == "telemetry" and self.tty and self.hello_t is not None and not self.phase:
            now = float(ev.get("rx_t") or 0.0)
            if self.setup_what is None:
                self._line(t("cli.bench.preparing-for", "preparing (libraries, model, data) "
                             "{seconds} s", seconds=f"{now - self.hello_t:.0f}"))
            else:
                self._line(t("cli.bench.preparing-what-for", "preparing: {what} {seconds} s",
                             what=self.setup_what, seconds=f"{now - self.setup_t:.0f}"))
        elif kind == "phase" and ev.get("phase") == "setup":
            self._setup(ev)
        elif kind == "phase":
            if self.phase and self.tty:
                self._line(self._status_text(), final=True)
            elif self.tty and self.prepare_t is not None:  # the preparing line, finished
                took = float(ev.get("rx_t") or 0.0) - self.prepare_t
                self._line(t("cli.bench.prepared", "prepared (libraries, model, data) in "
                             "{seconds} s", seconds=f"{took:.1f}"), final=True)
            self.phase = str(ev.get("phase"))
            self.part = ev.get("part")
            self.measure_t0 = float(ev.get("rx_t") or 0.0)
            if not self.tty and self.phase != "done":
                self._line(t("cli.bench.phase-started", "{phase} ...",
                             phase=self._label()), final=True)
            self.last_step = {}
        elif kind == "step":
            self.last_step = ev
            now = time.monotonic()
            if self.tty and now - self.last_draw > 0.1:
                self.last_draw = now
                self._line(self._status_text())
        elif kind == "error" and self.tty and self.width:
            self._line("", final=True)

    def _setup(self, ev: dict[str, Any]) -> None:
        """A setup phase: what the worker prepares before its first step, on one line."""
        self.setup_what = str(ev.get("what") or t("cli.bench.setup-the-run", "the run"))
        self.setup_t = float(ev.get("rx_t") or 0.0)
        if self.prepare_t is None:
            self.prepare_t = self.setup_t
        if self.tty:
            self._line(t("cli.bench.preparing-what", "preparing: {what}", what=self.setup_what))
        else:
            self._line(t("cli.bench.preparing-what-started", "preparing: {what} ...",
                         what=self.setup_what), final=True)

    def _label(self) -> str:
        """The phase (in words) and the part it measures: ``measure fp16``."""
        words = {"warmup": t("cli.bench.phase.warmup", "warmup"),
                 "measure": t("cli.bench.phase.measure", "measure")}
        phase = words.get(self.phase, self.phase)
        return f"{phase}{' ' + self.part if self.part else ''}"

    def _status_text(self) -> str:
        ev = self.last_step
        label = pad_left(self._label(), 14)
        if not ev:
            return label
        idx = int(ev.get("index", 0)) + 1
        rate = ev.get("throughput")
        rate_s = f"{_num(rate)} {ev.get('unit', '')}" if rate else ""
        text = t("cli.bench.step", "{label} step {index}  {seconds} s/step  {rate}", label=label,
                 index=f"{idx:>4}", seconds=f"{ev.get('seconds', 0):.4f}", rate=rate_s)
        if self.phase == "measure":
            o = self.options
            if o.steps:
                frac = min(1.0, idx / o.steps)
            else:
                target = o.seconds or _MEASURE_SECONDS.get(o.suite, 10.0)
                frac = min(1.0, (float(ev.get("rx_t", 0.0)) - self.measure_t0) / target)
            bar = "#" * int(frac * 20)
            text = f"{label} [{bar:<20}] {frac:>4.0%}  {rate_s}"
        return text


def _num(v: float | None, digits: int = 4) -> str:
    if v is None:
        return "-"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.{digits}g}"


def summary(report: Report) -> str:
    """The summary table of a report's runs."""
    from core.bench.advice import reworded
    from core.report.scaling import scaling_lines
    from core.report.text import run_text

    lines: list[str] = []
    for run in reworded(report).runs:
        lines += run_text(run)  # the same table `rocmate report show` prints
    scaled = scaling_lines(report)
    lines += ["", *scaled] if scaled else []
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Run the suite; exit 0 when it measured, 1 on error, 130 when cancelled."""
    from core.operations.benchmark import (
        BenchmarkRequest,
        BenchmarkRun,
        baseline_request,
        known_bad_from,
        known_bad_warnings,
        run_to_end,
    )

    options = options_from_args(args)
    request = BenchmarkRequest(
        options, python=args.python, watchdog_s=args.watchdog,
        startup_timeout_s=args.startup_timeout, telemetry=not args.no_telemetry,
        run_file=Path(args.run_file) if args.run_file else None,
        out=Path(args.out) if args.out else None, history=not args.no_history)
    try:
        bench_run = BenchmarkRun(request, Progress(sys.stderr, options))
    except OperationError as exc:
        print(f"rocmate bench: {exc}", file=sys.stderr)
        return exc.status
    facts = bench_run.facts  # read once (a data-parallel run's GPUs), also for the warnings
    warnings = known_bad_from(facts) if facts is not None else known_bad_warnings()
    for warning in warnings:  # a stack that public reports show hanging the card
        print("rocmate: " + t("cli.bench.known-bad", "warning: {text}", text=warning),
              file=sys.stderr)
    if bench_run.ranks.said:  # the GPUs the ranks go on, an iGPU or unusable card left out
        print("rocmate: " + bench_run.ranks.said, file=sys.stderr)
    base = baseline_request(request)
    if base is not None:  # --gpus N: one GPU first, through the same launcher, to scale against
        print("rocmate: " + t("cli.bench.baseline", "first the same run on one GPU (--gpus 1), "
                              "to measure the scaling against"), file=sys.stderr)
        try:
            first = run_to_end(BenchmarkRun(base, Progress(sys.stderr, base.options),
                                            facts=facts))
        except OperationError as exc:
            print(f"rocmate bench: {exc}", file=sys.stderr)
            return 1
        if first.status != "ok":
            print(summary(first.report))
            return 130 if first.status == "cancelled" else 1
        bench_run = BenchmarkRun(request, Progress(sys.stderr, options),
                                 baseline=first.outcome, facts=facts)
    if bench_run.variables or bench_run.removed:  # e.g. HSA_OVERRIDE_GFX_VERSION
        shown = " ".join([f"{k}={v}" for k, v in sorted(bench_run.variables.items())]
                         + [f"unset {k}" for k in bench_run.removed])
        print("rocmate: " + t("cli.bench.variables", "with {variables} (from {file})",
                              variables=shown, file=bench_run.variables_file), file=sys.stderr)
    try:
        result = run_to_end(bench_run)
    except OperationError as exc:
        print(f"rocmate bench: {exc}", file=sys.stderr)
        return 1
    if result.out_error:
        print(f"rocmate: {result.out_error}", file=sys.stderr)
    if result.history_error:
        print("rocmate: " + t("cli.bench.not-in-history",
                              "the run was not added to the history: {error}",
                              error=result.history_error), file=sys.stderr)
    if args.json:
        print(result.report_json)
    else:
        print(summary(result.report))
        saved = [t("cli.bench.saved.run-file", "run file {path}", path=result.run_file)]
        if args.out and not result.out_error:
            saved.append(t("cli.bench.saved.report", "report {path}", path=args.out))
        print("  " + t("doctor.list-separator", "; ").join(saved))
    if result.status == "ok":
        return 1 if result.out_error else 0
    return 130 if result.status == "cancelled" else 1
