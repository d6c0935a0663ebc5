"""``rocmate install --repair PYTHON | --rollback PYTHON | --repairs``: repair the PyTorch an
app's environment already has, put it back, list the history (issue 34)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from core.i18n import t
from core.termstyle import Style, wants_colour

if TYPE_CHECKING:
    from core.install.plan import Plan
    from core.install.runner import Runner


def add_arguments(install: argparse.ArgumentParser) -> None:
    install.add_argument("--repair", metavar="PYTHON",
                         help=t("cli.help.install.repair", "replace the PyTorch family of an "
                                "app's environment (its python, or its folder) with the card's "
                                "ROCm builds, and nothing else; the environment is recorded "
                                "first"))
    install.add_argument("--rollback", metavar="PYTHON",
                         help=t("cli.help.install.rollback", "put back the environment as the "
                                "last repair recorded it"))
    install.add_argument("--repairs", action="store_true",
                         help=t("cli.help.install.repairs", "list the repairs rocmate made "
                                "(with --repair PYTHON: that environment's only)"))


def wanted(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "repair", None) or getattr(args, "rollback", None)
                or getattr(args, "repairs", False))


def run(args: argparse.Namespace, confirm: Any, print_event: Any) -> int:
    """The repair options of ``rocmate install`` (``confirm`` and ``print_event`` are the
    install command's own)."""
    if args.repairs:
        return _list(args.repair)
    if args.rollback:
        from core.operations.repair import rollback_plan

        plan = rollback_plan(args.root, args.rollback)
    else:
        from core.install.planner import Choices
        from core.operations.repair import plan_repair

        plan = plan_repair(args.root, args.repair,
                           Choices(strategy=getattr(args, "strategy", None),
                                   rocm=getattr(args, "rocm", None)))
    _show(plan, args.json)
    if args.dry_run:
        return 0
    if args.root:
        print("rocmate: " + t("cli.install.replay-plan-only", "a replayed machine can only be "
                              "planned ({option})", option="--dry-run"), file=sys.stderr)
        return 2
    if not plan.steps:
        return 0
    if not args.yes and not confirm():
        print(t("cli.install.nothing-changed", "Nothing was changed."))
        return 1
    from core.operations.repair import prepare_repair

    def shown(event: dict[str, Any]) -> None:
        _print_repair_event(event, print_event)

    runner = prepare_repair(plan, shown)
    from core.cli.cancellable import run_to_end

    return run_to_end(lambda: _run_cancellable(runner), runner.log_path)


def _print_repair_event(event: dict[str, Any], print_event: Any) -> None:
    kind = event.get("event")
    if kind == "record":
        print(t("cli.repair.recorded", "Recorded in {folder}", folder=event.get("folder")))
    elif kind == "rollback":
        print(t("cli.repair.rolling-back", "Putting the environment back as recorded..."))
    elif kind == "rollback-check":
        if event.get("same"):
            print(t("cli.repair.same", "pip freeze --all matches the record again."))
        else:
            print(t("cli.repair.differs", "pip freeze --all still differs from the record: "
                    "{lines}", lines=" ".join(str(x) for x in event.get("differences") or [])))
    else:
        print_event(event)
    if kind == "done" and event.get("state"):
        print(t("cli.repair.state", "Record {folder}: {state}", folder=event.get("record"),
                state=event.get("state")))


async def _run_cancellable(runner: Runner) -> bool:
    """The run, with Ctrl-C as its cancel (a repair cut short is put back as recorded); a
    second Ctrl-C leaves at once."""
    from core.cli.cancellable import cancellable

    return bool(await cancellable(runner.run(), runner.cancel, t(
        "cli.repair.stopping", "Stopping; the environment is then put back as recorded ({keys} "
        "again to leave at once)", keys="Ctrl-C")))


def _show(plan: Plan, as_json: bool) -> None:
    if as_json:
        print(json.dumps(plan.to_json(), indent=2))
        return
    from core.install.plan_text import render_plan

    repair = getattr(plan, "repair", None)
    if repair is not None:
        print(_summary(repair))
    sys.stdout.write(render_plan(plan, Style(wants_colour(sys.stdout))))


def _summary(repair: Any) -> str:
    lines = []
    if repair.kind == "rollback":
        lines.append(t("cli.repair.rollback-of", "Rollback of {python} to the record {folder}",
                       python=repair.python, folder=repair.record))
    else:
        lines.append(t("cli.repair.repair-of", "Repair of {python}", python=repair.python))
    for change in repair.changes:
        after = change.after or {"remove": t("cli.repair.removed", "removed"),
                                 "keep": t("cli.repair.kept", "kept as it is"),
                                 "follow": t("cli.repair.follows", "what the new torch needs"),
                                 }.get(change.action, "-")
        lines.append(f"  {change.name}: {change.before or '-'} -> {after}")
    for pin in repair.app_pins:
        lines.append("  " + t("cli.repair.app-pin", "the app asks for {pin}", pin=pin))
    return "\n".join(lines) + "\n"


def _list(python: str | None) -> int:
    from core.operations.repair import list_repairs

    records = list_repairs(python)
    if not records:
        print(t("cli.repair.none", "rocmate has made no repairs yet."))
        return 0
    for record in records:
        print(t("cli.repair.history-line", "{time}  {python}  torch {before} -> {after}  "
                "[{state}]", time=record.time, python=record.python,
                before=record.torch_before or "-", after=record.torch_after or "-",
                state=record.state))
        print(f"    {record.folder}")
    return 0
