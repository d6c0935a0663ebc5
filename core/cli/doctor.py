"""``rocmate doctor``, ``rocmate explain`` and ``rocmate snapshot``: the machine check, a pasted
error explained for this machine, and an anonymised record of the machine."""

from __future__ import annotations

import argparse
import json
import sys

from core.cli.options import machine_options, says_errors
from core.diagnose.doctor_text import render_text
from core.diagnose.engine import NOT_PROVED, NOT_SUPPORTED, READY, READY_AFTER_FIXES
from core.diagnose.explain import render_explanations
from core.i18n import t
from core.operations.machine import check_machine, explain_error, take_snapshot
from core.termstyle import Style, pad_left, wants_colour


def add_parsers(sub: argparse._SubParsersAction) -> None:
    doctor = sub.add_parser(
        "doctor",
        help=t("cli.help.doctor.summary", "check this machine for ROCm and PyTorch"),
        epilog=t("cli.help.doctor.epilog", "Exit status: 0 Ready, 1 Ready after these fixes, 4 "
                 "Not supported, 5 Not yet proved: nothing to fix, but no kernel has run on the "
                 "GPU (--no-torch, a replay without a recorded check) (the same with --json); 2 "
                 "a usage error, 3 rocmate's knowledge base is broken, 130 interrupted."))
    machine_options(doctor)
    doctor.add_argument("--json", action="store_true",
                        help=t("cli.help.doctor.json", "print rocmate.doctor/1 JSON"))
    doctor.add_argument("-v", "--verbose", action="store_true",
                        help=t("cli.help.doctor.verbose", "show every check"))
    doctor.add_argument("--color", choices=["auto", "always", "never"], default="auto")
    doctor.add_argument("--try-overrides", action="store_true",
                        help=t("cli.help.doctor.try-overrides", "try the card's "
                               "HSA_OVERRIDE_GFX_VERSION values for real, one throwaway process "
                               "at a time (the known value, the one set now, none), and say "
                               "which works"))
    doctor.set_defaults(func=run_doctor)

    snap = sub.add_parser("snapshot", help=t("cli.help.snapshot.summary", "record this "
                                             "machine (anonymised) into a folder"),
                          epilog=t("cli.help.snapshot.epilog", "Exit status: 0 written; 2 a "
                                   "usage error, or a folder that is not new and empty or "
                                   "cannot be written; 130 interrupted."))
    snap.add_argument("out", metavar="DIR")
    snap.add_argument("--root", metavar="DIR",
                      help=t("cli.help.snapshot.root", "a replayed machine: its folder is the "
                             "snapshot, copied as it is (this computer is not read)"))
    snap.add_argument("--python", metavar="PATH")
    snap.add_argument("--no-torch", action="store_true")
    snap.set_defaults(func=run_snapshot)

    exp = sub.add_parser(
        "explain",
        help=t("cli.help.explain.summary", "explain an error message for this machine"),
        description=t("cli.help.explain.description", "Explain a pasted error for this machine. "
                      "On this machine the check behind it skips PyTorch unless --python names "
                      "the Python to check (importing torch takes seconds); a replayed machine "
                      "(--root) answers with its recorded PyTorch."),
        epilog=t("cli.help.explain.epilog", "Exit status: 0 the error is known; 1 rocmate does "
                 "not know it; 2 a usage or input error (a snapshot folder that is not there or "
                 "cannot be read); 3 rocmate's knowledge base is broken; 130 interrupted."))
    exp.add_argument("text", nargs="?", default="-",
                     help=t("cli.help.explain.text", "the error text, or - to read it from "
                            "stdin (paste it, then Ctrl-D)"))
    machine_options(exp)
    exp.add_argument("--json", action="store_true")
    exp.set_defaults(func=run_explain)


def _replay_notes(args: argparse.Namespace) -> None:
    if args.root and args.python:
        print("rocmate: " + t("cli.doctor.replay-python-unused", "a replayed machine answers "
                              "with the PyTorch it recorded; {option} is not used",
                              option="--python"), file=sys.stderr)


@says_errors
def run_doctor(args: argparse.Namespace) -> int:
    if args.try_overrides:
        return run_override_trials(args)
    _replay_notes(args)
    report = check_machine(args.root, python=args.python, probe_torch=not args.no_torch,
                           torch_timeout=args.torch_timeout)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        style = Style(wants_colour(sys.stdout, args.color))
        sys.stdout.write(render_text(report, style, verbose=args.verbose))
    return EXIT_STATUS[report.verdict]


EXIT_STATUS = {READY: 0, READY_AFTER_FIXES: 1, NOT_SUPPORTED: 4, NOT_PROVED: 5}
"""The doctor's exit status for each verdict, for scripts (``rocmate doctor || ...``)."""


@says_errors
def run_snapshot(args: argparse.Namespace) -> int:
    if args.root and (args.python or args.no_torch):
        unused = [o for o, given in (("--python", args.python), ("--no-torch", args.no_torch))
                  if given]
        print("rocmate: " + t("cli.doctor.snapshot-replay-options-unused", "a replayed "
                              "machine is copied with the PyTorch it recorded; {options} not "
                              "used", options=", ".join(unused)), file=sys.stderr)
    snapshot = take_snapshot(args.out, python=args.python, probe_torch=not args.no_torch,
                             root=args.root)
    if snapshot.copied_from is not None:
        print(t("cli.doctor.snapshot-copied", "Snapshot written to {path}: a copy of the "
                "replayed machine {source} (this computer was not read).",
                path=snapshot.path, source=snapshot.copied_from))
    else:
        print(t("cli.doctor.snapshot-written", "Snapshot written to {path} in {seconds} s.",
                path=snapshot.path, seconds=f"{snapshot.seconds:.1f}"))
    print(t("cli.doctor.snapshot-replay", "Replay it with: {command}",
            command=snapshot.replay_command))
    return 0


@says_errors
def run_explain(args: argparse.Namespace) -> int:
    text = _read_error() if args.text == "-" else args.text
    explained = explain_error(text, args.root, python=args.python,
                              # a replay's PyTorch answer is recorded: free to read
                              probe_torch=bool(args.python or args.root) and not args.no_torch,
                              torch_timeout=args.torch_timeout)
    if args.json:
        print(json.dumps(explained.to_json(), indent=2))
    else:
        sys.stdout.write(render_explanations(text, list(explained.explanations),
                                             explained.report))
    return 0 if explained.explanations else 1


def _read_error() -> str:
    """The error text from stdin; on a terminal, after saying how to end it."""
    if sys.stdin.isatty():
        print(t("cli.doctor.paste-error", "Paste the error message, then press {enter} and "
                "{end}:", enter="Enter", end="Ctrl-D"), file=sys.stderr)
    return sys.stdin.read()


def run_override_trials(args: argparse.Namespace) -> int:
    """``doctor --try-overrides``: exit 0 when a value works, 1 when none does."""
    from core.operations.setup import override_warning, try_overrides
    from core.probe.override_trial import OVERRIDE, Trial

    def starting() -> None:
        print(f"rocmate: {override_warning()}", file=sys.stderr)
        if not args.json:
            print(t("cli.doctor.override.trying", "Trying {variable} values, one at a time:",
                    variable=OVERRIDE), flush=True)

    def said(trial: Trial) -> None:
        if args.json:
            return
        value = trial.value or t("cli.doctor.override.none", "(none)")
        print(f"  {OVERRIDE}={pad_left(value, 8)} {pad_left(trial.outcome_text, 8)} "
              f"{trial.detail_text}", flush=True)

    trials = try_overrides(args.root, args.python, timeout=min(args.torch_timeout, 120.0),
                           on_start=starting, on_trial=said)
    best = trials.best
    if args.json:
        print(json.dumps(trials.to_json(), indent=2))
        return 0 if best is not None else 1
    card, gfx = trials.card, trials.gfx
    if best is None:
        if card:
            print(t("cli.doctor.override.none-works.card", "No value made PyTorch work on {card} "
                    "({gfx}); run {command} for the cause.", card=card, gfx=gfx,
                    command="`rocmate doctor`"))
        else:
            print(t("cli.doctor.override.none-works", "No value made PyTorch work; run {command} "
                    "for the cause.", command="`rocmate doctor`"))
        return 1
    if best.value is None:
        if card:
            print(t("cli.doctor.override.not-needed.card", "PyTorch works on {card} ({gfx}) "
                    "without an override: leave {variable} unset.", card=card, gfx=gfx,
                    variable=OVERRIDE))
        else:
            print(t("cli.doctor.override.not-needed", "PyTorch works without an override: leave "
                    "{variable} unset.", variable=OVERRIDE))
    else:
        setting = f"{OVERRIDE}={best.value}"
        if card:
            print(t("cli.doctor.override.keep.card", "Keep {setting} on {card} ({gfx}): {command} "
                    "writes it into the managed environment, or export it in the shell that runs "
                    "PyTorch.", setting=setting, card=card, gfx=gfx, command="rocmate install"))
        else:
            print(t("cli.doctor.override.keep", "Keep {setting}: {command} writes it into the "
                    "managed environment, or export it in the shell that runs PyTorch.",
                    setting=setting, command="rocmate install"))
    return 0
