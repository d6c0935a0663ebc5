"""``rocmate memory [show | plan | apply | undo]``: how much memory an APU's GPU can use, why,
and how much to give it (issue 35). ``show`` (the default) and ``plan`` change nothing;
``apply`` carries the plan out through the root helper after the user agreed, as ``rocmate
install`` does, and ``undo`` takes rocmate's change back. Both take effect at the next boot."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from core.cli.argwords import wrap
from core.cli.options import machine_options, says_errors
from core.diagnose.memory_advice import ENOUGH, MemoryAdvice
from core.i18n import t
from core.install.helper.policy import TTM_CONF
from core.install.plan import Plan
from core.operations.memory import (
    MemoryReport,
    check_memory,
    goal_keys,
    memory_goal,
    plan_memory,
    plan_memory_undo,
    prepare_memory_change,
)
from core.operations.memory_words import (
    explained,
    fact_rows,
    goal_words,
    limit_rows,
    verdict_words,
)
from core.termstyle import display_width

NO_APU = 4
"""Exit status when the machine has no integrated AMD GPU (as the doctor's "Not supported")."""


def add_parsers(sub: argparse._SubParsersAction) -> None:
    memory = sub.add_parser(
        "memory",
        help=t("cli.help.memory.summary", "how much memory an APU's GPU can use, and how much "
               "to give it"),
        epilog=t("cli.help.memory.epilog", "Exit status: 0 the GPU already has what the goal "
                 "needs; 1 a larger GTT is advised (or the goal needs more than the machine can "
                 "safely give, or the RAM is not known); 4 no integrated AMD GPU; 2 a usage "
                 "error; 130 interrupted.") + " " + t(
            "cli.help.memory.epilog-change", "plan, apply, undo: 0 the plan was shown or "
            "carried out (a restart puts it in force); 1 it cannot be made, you said no, or a "
            "step failed; 2 a usage error (a replayed machine cannot be changed)."))
    memory.add_argument("action", nargs="?", choices=ACTIONS, default="show",
                        help=t("cli.help.memory.action", "show (the default): the facts and "
                               "advice; plan: what would change; apply: change it (as root, "
                               "after you agree); undo: put back what was there before"))
    machine_options(memory)
    memory.add_argument("--goal", metavar="GOAL", default="max",
                        help=t("cli.help.memory.goal", "what to size for: {goals} (default: "
                               "max, the most the machine can safely give)",
                               goals=", ".join(goal_keys())))
    memory.add_argument("--llm-gb", metavar="GB", type=float,
                        help=t("cli.help.memory.llm-gb", "size for an LLM whose weights take "
                               "GB (the model file's size)"))
    memory.add_argument("--gib", metavar="N", type=int,
                        help=t("cli.help.memory.gib", "plan, apply: give the GPU N GiB instead "
                               "of what the goal needs (at most the RAM less the floor)"))
    memory.add_argument("--yes", "-y", action="store_true",
                        help=t("cli.help.memory.yes", "apply, undo: do not ask before starting"))
    memory.add_argument("--json", action="store_true",
                        help=t("cli.help.memory.json", "print rocmate.memory/1 JSON (plan, "
                               "apply, undo: the rocmate.plan/1 JSON)"))
    memory.set_defaults(func=run_memory)


ACTIONS = ("show", "plan", "apply", "undo")


@says_errors
def run_memory(args: argparse.Namespace) -> int:
    if args.action != "show":
        return _change(args)
    goal = memory_goal(args.goal, args.llm_gb)
    report = check_memory(args.root, goal=goal, python=args.python,
                          probe_torch=not args.no_torch, torch_timeout=args.torch_timeout)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        sys.stdout.write(render_memory(report))
    if not report.advices:
        return NO_APU
    return 0 if all(a.verdict == ENOUGH for a in report.advices) else 1


def render_memory(report: MemoryReport) -> str:
    """The advice as text, one block per integrated GPU."""
    lines = ["rocmate memory", ""]
    if not report.advices:
        lines.append(t("cli.memory.no-apu", "This machine has no integrated AMD GPU, so no "
                       "system memory is shared with one (rocmate doctor shows its GPUs)."))
        return "\n".join(lines) + "\n"
    for advice in report.advices:
        lines += [*_facts(advice), "", *_advice(advice), ""]
    return "\n".join(lines)


def _row(label: str, value: str) -> str:
    return f"  {label}{' ' * max(0, 26 - display_width(label))} {value}"


def _facts(advice: MemoryAdvice) -> list[str]:
    return [advice.gpu, *(_row(label, value) for label, value in fact_rows(advice))]


def _advice(advice: MemoryAdvice) -> list[str]:
    lines = [t("cli.memory.goal", "Goal: {goal}", goal=goal_words(advice))]
    lines += [_row(label, value) for label, value in limit_rows(advice)]
    lines += _para(verdict_words(advice))
    for n, said in enumerate(explained(advice)):
        floor = n == 0 and advice.safe_bytes is not None  # the floor's reasons: no bullet
        lines += _para(said.text, first=None if floor else "  - ", indent="  " if floor
                       else "    ")
        lines += _para(t("cli.memory.source", "Source: {source}", source=said.source),
                       indent="    ")
    return lines


def _para(text: str, *, first: str | None = None, indent: str = "  ") -> list[str]:
    """``text`` wrapped to the doctor's width (96 columns with the indent), Chinese too."""
    if not text:
        return []
    start = first if first is not None else indent
    lines = wrap(" ".join(text.split()), 96 - len(indent))
    return [(start if i == 0 else indent) + line for i, line in enumerate(lines)]


# --------------------------------------------------------------------------------------------
# plan, apply, undo


def _change(args: argparse.Namespace) -> int:
    if args.action == "undo":
        plan = plan_memory_undo(args.root)
    else:
        report = check_memory(args.root, goal=memory_goal(args.goal, args.llm_gb),
                              python=args.python, probe_torch=not args.no_torch,
                              torch_timeout=args.torch_timeout)
        if not report.advices:
            sys.stdout.write(render_memory(report))
            return NO_APU
        plan = plan_memory(report, args.gib, args.root)
    if args.json:
        print(json.dumps(plan.to_json(), indent=2))
    else:
        sys.stdout.write(render_change_plan(plan))
    if plan.blocked:
        return 1
    if args.action == "plan" or not plan.steps:
        return 0
    if args.root:
        print("rocmate: " + t("cli.memory.replay-plan-only", "a replayed machine can only be "
                              "planned ({command})", command="rocmate memory plan"),
              file=sys.stderr)
        return 2
    if not args.yes and not _confirm():
        print(t("cli.install.nothing-changed", "Nothing was changed."))
        return 1
    from core.operations.setup import run_setup  # the set-up's machinery, only when it runs

    runner = prepare_memory_change(plan, _print_event, via="sudo")
    ok = asyncio.run(run_setup(runner)).ok
    print(t("cli.install.log", "Log: {path}", path=runner.log_path))
    return 0 if ok else 1


def render_change_plan(plan: Plan) -> str:
    """A GPU memory plan as text: each root step with the file it writes, then the notes."""
    lines = [t("cli.memory.plan.title", "GPU memory plan"), ""]
    if plan.blocked:
        lines += _para(t("cli.memory.plan.blocked", "Nothing can be done: {reason}",
                         reason=plan.blocked))
        return "\n".join(lines) + "\n"
    for number, step in enumerate(plan.steps, start=1):
        lines.append(f"  {number}. {step.title} " + t("plan.text.root", "[root]"))
        lines += _para(step.explain, indent="     ")
        if step.file is not None:
            lines.append(f"     -> {step.file.path}")
            lines += [f"        {line}" for line in (step.file.content or "").splitlines()]
        elif step.argv:
            lines.append(f"     -> {TTM_CONF}")
    for note in plan.notes:
        lines += _para(t("plan.text.note", "Note: {note}", note=note) if plan.steps else note)
    return "\n".join(lines) + "\n"


def _confirm() -> bool:
    if not sys.stdin.isatty():
        print("rocmate: " + t("cli.install.needs-yes", "add {option} to run without a terminal",
                              option="--yes"), file=sys.stderr)
        return False
    answer = input(t("cli.memory.confirm", "Carry out this change (as root)? {choices} ",
                     choices="[y/N]")).strip().lower()
    return answer in ("y", "yes")


def _print_event(event: dict[str, Any]) -> None:
    kind = event.get("event")
    if kind == "step" and event.get("status") in ("done", "unchanged", "failed"):
        print(f"[{event.get('status')}] {event.get('title') or event.get('id')}")
    elif kind == "done":
        if event.get("ok"):
            print(t("cli.memory.done", "Done. Restart the computer; then {command} shows the new "
                    "limit in force.", command="rocmate memory"))
        else:
            print(t("cli.install.stopped", "Stopped: {error}", error=event.get("error")))
