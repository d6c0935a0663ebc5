"""Repairing the PyTorch an app already has (issue 34): the plan for an existing environment,
carrying it out with a record to go back to, rolling back, and the history.

- :func:`plan_repair`: the repair plan for the environment of ``python`` on the machine (or a
  replayed one: then only shown), or :class:`RepairRefused` with the one line that says why not;
- :func:`prepare_repair`: a runner for a repair or rollback plan (``await runner.run()``,
  ``runner.cancel()``), in the shape of :func:`core.operations.setup.prepare_setup`;
- :func:`rollback_plan`: the plan that restores the last record of ``python``;
- :func:`list_repairs`: the history, newest first;
- :func:`check_after_repair`: the doctor run in that Python after a repair or rollback, and the
  app's row of the apps list (its PyTorch read again, whether it reaches the GPU);
- :func:`app_venv_problem`: why ``rocmate install --venv DIR`` should repair DIR instead.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from core.diagnose.context import Context
from core.diagnose.doctor import DoctorReport, run_doctor
from core.diagnose.rules_apps import AppCheck, check_app
from core.i18n import t
from core.install.plan import Plan
from core.install.planner import Choices
from core.install.repair import RepairPlan, RepairRefusal, make_repair_plan
from core.install.repair_record import RepairRecord, last_undoable, list_records
from core.install.repair_runner import RepairRunner, rollback_of
from core.install.runner import Emit, Runner
from core.knowledge.loader import load_knowledge
from core.knowledge.torch_family import load_torch_family
from core.operations.errors import OperationError
from core.operations.machine import check_machine, open_machine
from core.probe.app_envs import AppEnv, read_family
from core.probe.python_packages import (
    PythonEnvironment,
    app_requirements,
    read_environment,
    writable,
)
from core.system import System

__all__ = ["AfterRepair", "RepairRecord", "RepairRefused", "app_venv_problem",
           "check_after_repair", "list_repairs", "plan_repair", "prepare_repair",
           "rollback_plan"]


class RepairRefused(OperationError):
    """The environment is not repaired (or rolled back); ``str()`` is the one line, ``reason``
    its id (core.install.repair.REFUSALS)."""

    def __init__(self, message: str, reason: str, status: int = 1) -> None:
        super().__init__(message, status)
        self.reason = reason


def python_of(path: str) -> str:
    """The interpreter for what the user named: a Python, or an environment's folder
    (``~/ComfyUI/venv`` -> ``~/ComfyUI/venv/bin/python``); ``~`` expanded."""
    path = os.path.expanduser(path.strip())
    if path and not path.startswith("/") and "/" in path:
        path = os.path.abspath(path)
    if path.startswith("/") and os.path.basename(path.rstrip("/")) not in ("python", "python3") \
            and not os.path.basename(path).startswith("python"):
        return posixpath.join(path.rstrip("/"), "bin", "python")
    return posixpath.normpath(path) if path.startswith("/") else path


def _writable(system: System, env: PythonEnvironment) -> dict[str, bool | None]:
    """What pip writes: the first site-packages folder and bin/."""
    folders = list(env.site_packages[:1])
    if env.prefix:
        folders.append(posixpath.join(env.prefix, "bin"))
    return {folder: writable(system, folder) for folder in folders}


def plan_repair(root: str | Path | None, python: str,
                choices: Choices | None = None, *, card: str | Path | None = None) -> Plan:
    """The repair plan for the environment of ``python`` (a :class:`RepairPlan`, whose JSON has
    the ``repair`` object); :class:`RepairRefused` says why there is none.

    ``card`` is a test seam, used by no command and no window of the product: a recorded
    machine's folder whose GPU, kernel and system the plan is made for, while the environment
    is this computer's (``root`` None). A test on a computer without an AMD GPU repairs a
    throwaway venv for real with it (tests/gui/test_repair_live.py); the plan is not a replay,
    so it can be carried out."""
    system = open_machine(root)
    exe = python_of(python)
    env = read_environment(system, exe)
    facts = run_doctor(open_machine(card) if card is not None else system,
                       probe_torch=False).facts
    try:
        plan = make_repair_plan(env, facts, load_knowledge(), load_torch_family(),
                                app_requirements(system, env), _writable(system, env),
                                choices)
    except RepairRefusal as exc:
        raise RepairRefused(str(exc), exc.reason) from exc
    return replace(plan, replay=str(root)) if root is not None else plan


def prepare_repair(plan: Plan, on_event: Emit, *, via: Literal["sudo", "pkexec"] = "sudo",
                   base: Path | None = None) -> Runner:
    """A runner for a repair or rollback plan: it records the environment first, rolls a
    failed repair back by itself and keeps the record's state. Every step runs as the user, so
    ``via`` is not used (it is there for the shape of ``prepare_setup``). ``base`` is the
    history folder (default ``$XDG_DATA_HOME/rocmate/repairs``)."""
    del via
    if plan.replay is not None:
        raise OperationError(t("ops.repair.replay-only-shown", "This plan is for the replayed "
                               "machine in {folder}: it is only shown here, and nothing on "
                               "this computer is changed.", folder=plan.replay), status=2)
    if not isinstance(plan, RepairPlan) or plan.repair is None:
        raise OperationError(t("ops.repair.not-a-repair", "this is not a repair or rollback "
                               "plan"), status=2)
    record = None
    if plan.repair.kind == "rollback":
        record = RepairRecord.load(Path(plan.repair.record or ""))
        if record is None:
            raise RepairRefused(t("ops.repair.record-gone", "the record {folder} is gone or "
                                  "damaged", folder=plan.repair.record), "nothing-recorded")
    return RepairRunner(plan, on_event, base=base, record=record)


def rollback_plan(root: str | Path | None, python: str, *,
                  base: Path | None = None) -> Plan:
    """The plan that restores the last record of ``python`` that a rollback may still restore;
    :class:`RepairRefused` when there is none."""
    if root is not None:
        raise OperationError(t("ops.repair.replay-rollback", "a replayed machine has no "
                               "repairs here to roll back: roll back on the machine itself"),
                             status=2)
    exe = python_of(python)
    record = last_undoable(exe, base)
    if record is None:
        raise RepairRefused(t("ops.repair.nothing-recorded", "rocmate has no repair of {python} "
                              "to roll back ({command} lists them)", python=exe,
                              command="rocmate install --repairs"), "nothing-recorded")
    return rollback_of(record)


def list_repairs(python: str | None = None, *, base: Path | None = None) -> list[RepairRecord]:
    """The repairs history, newest first (only ``python``'s when given)."""
    return list_records(python_of(python) if python else None, base)


@dataclass(frozen=True)
class AfterRepair:
    """The environment after a repair or a rollback: the doctor's answer with its kernel
    check run in that Python, and the app's row of the System check's apps list."""

    report: DoctorReport
    app: AppCheck


def check_after_repair(root: str | Path | None, python: str, name: str = "") -> AfterRepair:
    """The doctor in ``python`` (its PyTorch probed, the kernel check run in it) and what the
    apps list says of that environment now: the row the doctor found under the home, or,
    for an environment elsewhere, the same judgement of its family read again."""
    exe = python_of(python)
    report = check_machine(root, python=exe)
    prefix = posixpath.dirname(posixpath.dirname(exe))
    found = next((a for a in report.apps if a.env.folder.rstrip("/") == prefix), None)
    if found is None:
        system = open_machine(root)
        site, family = read_family(system, prefix, load_torch_family())
        env = AppEnv("other", name or prefix, prefix, exe, family, site)
        found = check_app(Context(report.facts, load_knowledge()), env)
    return AfterRepair(report, found)


def app_venv_problem(root: str | Path | None, venv: str) -> str | None:
    """Why a new set-up should not go into ``venv``: it is already another app's environment
    with PyTorch in it (a set-up there would install torch and torchvision only and leave the
    rest of the family, e.g. torchaudio 2.5.1+cpu, behind). None when it is not."""
    system = open_machine(root)
    prefix = venv.rstrip("/") or "/"
    if system.exists(posixpath.join(prefix, "bin", "rocmate-env.sh")):
        return None  # rocmate made it: a set-up may go on there
    if not system.exists(posixpath.join(prefix, "pyvenv.cfg")):
        return None
    env = read_environment(system, posixpath.join(prefix, "bin", "python"))
    if env.torch is None:
        return None
    family = ", ".join(f"{m.name} {m.version}" for m in env.family)
    return t("ops.repair.venv-is-an-app", "{venv} is already an environment with PyTorch "
             "({family}): a new set-up there would leave part of that family behind. Repair it "
             "in place instead: {command}", venv=prefix, family=family,
             command=f"rocmate install --repair {prefix}/bin/python")
