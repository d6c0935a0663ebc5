"""``rocmate install`` and ``rocmate env``: show the plan for this machine, then carry it out."""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import TYPE_CHECKING, Any

from core.cli import repair
from core.cli.options import says_errors
from core.i18n import t
from core.install.plan import STRATEGIES

if TYPE_CHECKING:  # the operations load when a command runs: `rocmate --help` stays quick
    from core.install.plan import Plan
    from core.install.runner import Runner
from core.termstyle import Style, wants_colour


def add_parsers(sub: argparse._SubParsersAction) -> None:
    install = sub.add_parser("install", help=t("cli.help.install.summary", "plan (and carry "
                                               "out) the ROCm + PyTorch set-up"),
                             epilog=t("cli.help.install.epilog", "Exit status: 0 the plan was "
                                      "shown (--dry-run) or carried out; 1 no set-up fits this "
                                      "machine, you said no, or a step failed; 2 a usage or "
                                      "input error (a choice that cannot be honoured here, a "
                                      "replayed machine without --dry-run); 3 rocmate's "
                                      "knowledge base is broken; 130 interrupted."))
    install.add_argument("--root", metavar="DIR", help=t("cli.help.install.root", "plan for a "
                                                         "replayed machine snapshot"))
    install.add_argument("--dry-run", action="store_true",
                         help=t("cli.help.install.dry-run", "only show the plan"))
    install.add_argument("--json", action="store_true",
                         help=t("cli.help.install.json", "print the rocmate.plan/1 JSON"))
    install.add_argument("--strategy", choices=STRATEGIES)
    install.add_argument("--rocm", metavar="X.Y", type=_release,
                         help=t("cli.help.install.rocm", "ROCm release (default: the best fit)"))
    install.add_argument("--venv", metavar="DIR",
                         help=t("cli.help.install.venv", "where the Python environment goes"))
    install.add_argument("--packages", choices=["runtime", "sdk"], default="runtime")
    install.add_argument("--remove-old", action="store_true",
                         help=t("cli.help.install.remove-old", "agree to remove other ROCm"))
    install.add_argument("--fix-shell-files", action="store_true",
                         help=t("cli.help.install.fix-shell-files", "agree to comment out the "
                                "lines of your shell start-up files that export a variable the "
                                "doctor finds wrong (a copy of each file is kept)"))
    install.add_argument("--yes", "-y", action="store_true",
                         help=t("cli.help.install.yes", "do not ask before starting"))
    install.add_argument("--resume", action="store_true",
                         help=t("cli.help.install.resume", "continue an interrupted run"))
    repair.add_arguments(install)
    install.set_defaults(func=run_install)
    env = sub.add_parser("env", help=t("cli.help.env.summary", "print the environment "
                                       "variables this GPU needs"),
                         epilog=t("cli.help.env.epilog", "Exit status: 0 the variables were "
                                  "printed; 1 no set-up fits this machine; 2 a usage or input "
                                  "error; 3 rocmate's knowledge base is broken; 130 "
                                  "interrupted."))
    env.add_argument("--root", metavar="DIR")
    env.add_argument("--shell", choices=["sh", "fish"], default="sh")
    env.set_defaults(func=run_env)


def _release(text: str) -> str:
    """A ROCm release as ``--rocm`` takes it: 6.4, 7.2.1, 10.1 (argparse type)."""
    if not re.fullmatch(r"\d{1,2}\.\d{1,2}(\.\d{1,3})?", text.strip()):
        raise argparse.ArgumentTypeError(t("cli.install.not-a-release", "{value} is not a ROCm "
                                           "release: give one such as {examples}",
                                           value=repr(text), examples="6.4, 7.2, 10.1"))
    return text.strip()


def _plan(args: argparse.Namespace) -> Plan:
    from core.install.planner import Choices
    from core.operations.setup import plan_setup

    choices = Choices(
        strategy=getattr(args, "strategy", None),
        rocm=getattr(args, "rocm", None),
        venv=getattr(args, "venv", None),
        package_set=getattr(args, "packages", "runtime"),
        remove_old=getattr(args, "remove_old", False),
        fix_shell_files=getattr(args, "fix_shell_files", False),
    )
    return plan_setup(args.root, choices, check_venv=True)


@says_errors
def run_install(args: argparse.Namespace) -> int:
    from core.install.plan_text import render_plan

    if repair.wanted(args):  # an app's environment, not a set-up (issue 34)
        return repair.run(args, _confirm, _print_event)
    plan = _plan(args)
    if args.json:
        print(json.dumps(plan.to_json(), indent=2))
    else:
        sys.stdout.write(render_plan(plan, Style(wants_colour(sys.stdout))))
    if args.dry_run or plan.blocked:
        return 0 if not plan.blocked else 1
    if plan.stopped_by:  # its steps would fail: shown, not carried out (issue 33)
        print("rocmate: " + t("cli.install.cannot-start", "this plan cannot be carried out: {why}",
                              why=plan.stopped_by[0].title), file=sys.stderr)
        return 1
    if args.root:
        print("rocmate: " + t("cli.install.replay-plan-only", "a replayed machine can only be "
                              "planned ({option})", option="--dry-run"), file=sys.stderr)
        return 2
    if not args.yes and not _confirm(plan.nothing_to_do):
        print(t("cli.install.nothing-changed", "Nothing was changed."))
        return 1
    return _carry_out(plan, args.resume)


def _confirm(nothing_to_do: bool = False) -> bool:
    if not sys.stdin.isatty():
        print("rocmate: " + t("cli.install.needs-yes", "add {option} to run without a terminal",
                              option="--yes"), file=sys.stderr)
        return False
    question = (t("cli.install.confirm-fresh", "Nothing needs doing. Set up a fresh environment "
                  "anyway? {choices} ", choices="[y/N]") if nothing_to_do else
                t("cli.install.confirm", "Carry out this plan? {choices} ", choices="[y/N]"))
    answer = input(question).strip().lower()
    return answer in ("y", "yes")


def _carry_out(plan: Plan, resume: bool) -> int:
    from core.operations.setup import prepare_setup

    # sudo from /usr/bin or /bin, and only for a root-owned installation; directly when root
    # already. $APPIMAGE is never read (privilege.py says why).
    runner = prepare_setup(plan, _print_event, via="sudo", resume=resume)
    from core.cli.cancellable import run_to_end

    return run_to_end(lambda: _run_cancellable(runner), runner.log_path)


async def _run_cancellable(runner: Runner) -> bool:
    """The run, with Ctrl-C as its cancel (the runner then reads the helper's output to the end
    and says how it ended); a second Ctrl-C leaves at once."""
    from core.cli.cancellable import cancellable
    from core.operations.setup import run_setup

    done = await cancellable(run_setup(runner), runner.cancel, t(
        "cli.install.stopping", "Stopping... ({keys} again to leave at once)", keys="Ctrl-C"))
    return done.ok


def _print_event(event: dict[str, Any]) -> None:
    kind = event.get("event")
    if kind == "step":
        print(f"[{_step_status(event.get('status'))}] {event.get('title') or event.get('id')}")
    elif kind == "output":
        print(f"    {event.get('line')}")
    elif kind == "stopping":
        print(str(event.get("message")))
    elif kind == "done":
        if event.get("ok"):
            if event.get("needs"):
                print(t("cli.install.done-relogin",
                        "Done. Log out and back in for the group change."))
            else:
                print(t("cli.install.done", "Done."))
        else:
            print(t("cli.install.stopped", "Stopped: {error}", error=event.get("error")))


def _step_status(status: object) -> str:
    """A step's status (``start``, ``done``, ``failed``, ...) as shown; an unknown one as it is."""
    words = {
        "start": t("cli.install.status.start", "start"),
        "done": t("cli.install.status.done", "done"),
        "skipped": t("cli.install.status.skipped", "skipped"),
        "failed": t("cli.install.status.failed", "failed"),
        "cancelled": t("cli.install.status.cancelled", "cancelled"),
        "needs-relogin": t("cli.install.status.needs-relogin", "needs-relogin"),
        "needs-reboot": t("cli.install.status.needs-reboot", "needs-reboot"),
    }
    return words.get(str(status), str(status))


@says_errors
def run_env(args: argparse.Namespace) -> int:
    """The card's variables as shell lines (for eval); why there are none on stderr. Exit 0,
    or 1 when no set-up fits the machine."""
    from core.operations.setup import card_variables, variable_lines

    variables = card_variables(args.root)
    for line in variable_lines(variables, args.shell):
        print(line)
    if variables.why_nothing:
        print("rocmate env: " + t("cli.install.env-nothing", "nothing to set. {why}",
                                  why=variables.why_nothing), file=sys.stderr)
    return 0 if variables.usable else 1
