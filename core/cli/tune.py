"""``rocmate tune SUITE``: measure today's defaults and each setting of
resources/data/tune_variants.toml that applies here, each in a fresh worker within a time
budget, rank them, say the fastest and whether it is clear of the noise; ``--keep`` writes the
winner's variables into the environment, ``--undo`` puts back what the last keep replaced."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import IO, TYPE_CHECKING

from core.i18n import t
from core.operations.errors import OperationError
from core.termstyle import display_width, pad_left, pad_right

if TYPE_CHECKING:  # the tune operation loads when the command runs
    from core.operations.tune import TuneEvent, TuneResult

SUITES = ("resnet50-train", "sd15-infer", "llm-train", "llm-infer")


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Add ``tune``; sets ``func=run``."""
    p = subparsers.add_parser(
        "tune", help=t("cli.help.tune.summary", "find the fastest settings for a suite on "
                       "this card (measured)"),
        description=t("cli.help.tune.description", "Measure today's defaults and each setting "
                      "that may help (variables such as TORCH_BLAS_PREFER_HIPBLASLT, "
                      "PYTORCH_TUNABLEOP_ENABLED, MIOPEN_FIND_MODE; bf16 or fp16, "
                      "channels_last, torch.compile), each in a fresh worker, and rank them by "
                      "the suite's headline with its spread."),
        epilog=t("cli.help.tune.epilog", "Exit status: 0 ranked (or undone); 1 today's "
                 "defaults did not run, or keeping or undoing failed; 2 a usage error; 130 "
                 "interrupted."))
    p.add_argument("suite", nargs="?", choices=SUITES)
    p.add_argument("--budget", type=float, default=300.0, metavar="SECONDS",
                   help=t("cli.help.tune.budget", "the time for the whole tune (default 300)"))
    p.add_argument("--size", choices=("tiny", "default"), default="default",
                   help=t("cli.help.tune.size", "tiny = small shapes for a quick smoke run"))
    p.add_argument("--device", default="cuda:0",
                   help=t("cli.help.tune.device", "cuda:N or cpu (default cuda:0)"))
    p.add_argument("--python", metavar="PATH",
                   help=t("cli.help.bench.python", "the Python holding the ROCm PyTorch (default: "
                          "rocmate's managed environment, else python3)"))
    p.add_argument("--only", metavar="ID,ID",
                   help=t("cli.help.tune.only", "try only these settings (ids of "
                          "tune_variants.toml)"))
    p.add_argument("--json", action="store_true",
                   help=t("cli.help.tune.json", "print the rocmate.tune/1 JSON on stdout"))
    p.add_argument("--keep", action="store_true",
                   help=t("cli.help.tune.keep", "write a clear winner's variables into the "
                          "environment's rocmate-env.sh"))
    p.add_argument("--undo", action="store_true",
                   help=t("cli.help.tune.undo", "put back what the last --keep replaced"))
    p.set_defaults(func=run)


def _clock(seconds: float) -> str:
    seconds = max(0, round(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


class Progress:
    """Lines on stderr: the plan, each run as it starts and ends, the time left."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.result_titles: dict[str, str] = {}

    def __call__(self, event: TuneEvent) -> None:
        from core.i18n import local
        from core.operations.tune import percent, state_text

        if event.kind == "plan":
            for plan in event.plans:
                self.result_titles[plan.variant.id] = local(plan.variant.title)
                if not plan.applies.applies:
                    print("  " + t("cli.tune.not-applicable", "{title}: not applicable ({why})",
                                   title=local(plan.variant.title), why=plan.applies.reason),
                          file=self.stream)
            return
        title = (t("tune.default", "today's defaults") if event.variant == "default"
                 else self.result_titles.get(event.variant, event.variant))
        if event.kind == "start":
            print(t("cli.tune.start", "[{index}/{total}] {title} (about {left} left)",
                    index=event.index, total=event.total, title=title,
                    left=_clock(event.left_s)), file=self.stream)
        elif event.kind == "done" and event.measured is not None:
            row = event.measured
            said = (f"{row.median:.4g} {row.unit}, CV {percent(row.cv)}" if row.state == "ok"
                    and row.median is not None else state_text(row))
            print(f"      {said}", file=self.stream)


def table(result: TuneResult) -> list[str]:
    """The ranked table: rank, setting, headline median, CV, vs the defaults, state."""
    from core.operations.tune import percent, state_text, variant_title

    rows = result.ranking.rows
    headline = next((r for r in rows if r.state == "ok"), None)
    heads = [t("cli.tune.col.rank", "#"), t("cli.tune.col.setting", "setting"),
             (f"{headline.headline} ({headline.unit})" if headline else
              t("cli.tune.col.headline", "headline")), t("cli.tune.col.cv", "CV"),
             t("cli.tune.col.vs", "vs defaults"), t("cli.tune.col.state", "state")]
    body = []
    for i, row in enumerate(rows, start=1):
        ok = row.state == "ok"
        body.append([str(i) if ok else "–", variant_title(result, row.variant),
                     f"{row.median:.4g}" if ok and row.median is not None else "–",
                     percent(row.cv) if ok else "–",
                     percent(row.vs_default, signed=True) if ok and row.variant != "default"
                     else "–", state_text(row)])
    widths = [max(display_width(r[c]) for r in [heads, *body]) for c in range(5)]

    def cell(c: int, text: str) -> str:
        if c == 5:
            return text
        return pad_left(text, widths[c]) if c == 1 else pad_right(text, widths[c])

    return ["  ".join(cell(c, text) for c, text in enumerate(r)).rstrip()
            for r in [heads, *body]]


def run(args: argparse.Namespace) -> int:
    from core.operations import tune as ops

    if args.undo:
        try:
            done = asyncio.run(ops.undo_tuned())
        except OperationError as exc:
            print(f"rocmate tune: {exc}", file=sys.stderr)
            return exc.status
        if not done.ok:
            print("rocmate tune: " + t("cli.tune.undo-failed", "the variables could not be "
                                       "written back: see {log}", log=done.log_path),
                  file=sys.stderr)
            return 1
        print(t("cli.tune.undone", "Put back in {script}: {variables}", script=done.script,
                variables=", ".join(f"{k}={v}" for k, v in done.written.items())
                or t("cli.tune.none", "none")))
        return 0
    if args.suite is None:
        print("rocmate tune: " + t("cli.tune.no-suite", "name the suite to tune ({suites}), "
                                   "or --undo", suites=", ".join(SUITES)), file=sys.stderr)
        return 2
    only = tuple(x.strip() for x in args.only.split(",") if x.strip()) if args.only else None
    request = ops.TuneRequest(args.suite, budget_s=args.budget, device=args.device,
                              size=args.size, python=args.python, only=only)
    try:
        tune = ops.TuneRun(request, Progress(sys.stderr))
    except OperationError as exc:
        print(f"rocmate tune: {exc}", file=sys.stderr)
        return exc.status
    print(t("cli.tune.budget", "Budget {budget}: today's defaults first, then up to {count} "
            "settings, each in a fresh worker and measured for {seconds} s.",
            budget=_clock(request.budget_s), count=tune.total - 1, seconds=tune.measure_s),
          file=sys.stderr)
    try:
        result = asyncio.run(tune.run())
    except KeyboardInterrupt:
        print("rocmate: " + t("cli.interrupted", "interrupted"), file=sys.stderr)
        return 130
    status = 0 if (result.ranking.row("default") or ops.Measured("", "")).state == "ok" else 1
    if args.json:
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        print("\n".join(table(result)))
        print()
        print(t("cli.tune.took", "Took {took} of a {budget} budget; each setting measured for "
                "{seconds} s.", took=_clock(result.elapsed_s), budget=_clock(result.budget_s),
                seconds=result.measure_s))
        print(ops.answer_text(result))
        kept = ops.keep_text(result)
        if kept and not args.keep:
            print(kept)
    if args.keep:
        status = max(status, _keep(result))
    return 130 if result.cancelled else status


def _keep(result: TuneResult) -> int:
    from core.operations import tune as ops

    if result.winner is None or not result.ranking.clear:
        print("rocmate tune: " + t("cli.tune.nothing-kept", "nothing kept: there is no clear "
                                   "winner over today's defaults"), file=sys.stderr)
        return 0
    try:
        kept = asyncio.run(ops.keep_tuned(result))
    except OperationError as exc:
        print(f"rocmate tune: {exc}", file=sys.stderr)
        return exc.status
    if not kept.ok:
        print("rocmate tune: " + t("cli.tune.keep-failed", "the variables could not be "
                                   "written: see {log}", log=kept.log_path), file=sys.stderr)
        return 1
    if kept.options:
        print(t("cli.tune.kept-options", "Not a variable, so nothing was written: benchmark "
                "with {command}", command=" ".join(["rocmate bench", result.suite,
                                                    *kept.options])), file=sys.stderr)
        return 0
    print(t("cli.tune.kept", "Written into {script}: {variables} (rocmate tune --undo puts "
            "back what was there)", script=kept.script,
            variables=", ".join(f"{k}={v}" for k, v in kept.written.items())), file=sys.stderr)
    return 0
