"""Setting the machine up: the plan for it, the variables its card needs, and carrying the plan
out (the user's steps as the user, the root block through the helper), resumable."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from core.diagnose.doctor import DoctorReport, run_doctor
from core.i18n import t
from core.install.plan import Plan
from core.install.planner import Choices, PlanError, make_plan
from core.install.privilege import helper_route
from core.install.runner import Emit, Runner, RunState, state_dir
from core.knowledge.loader import load_knowledge
from core.operations.errors import OperationError
from core.operations.machine import open_machine
from core.operations.repair import app_venv_problem
from core.probe.facts import Facts
from core.probe.managed_env import default_python
from core.probe.override_trial import OVERRIDE, Trial, run_trial
from core.probe.torch_check import TorchCheck, torch_check


def plan_facts(root: str | Path | None = None, *, report: DoctorReport | None = None,
               probe_torch: bool = True) -> Facts:
    """What the planner reads of the machine: the doctor's facts, its PyTorch included (a
    machine whose PyTorch already works gets a plan with nothing to do, issue 33). ``report``
    (the doctor's answer for the same machine) is used as it is instead of asking again;
    ``probe_torch`` False leaves PyTorch alone, for a plan whose steps do not depend on it."""
    if report is not None:
        return report.facts
    return run_doctor(open_machine(root), probe_torch=probe_torch).facts


def plan_setup(root: str | Path | None = None, choices: Choices | None = None, *,
               facts: Facts | None = None, check_venv: bool = False) -> Plan:
    """The set-up plan for the machine (a plan with ``blocked`` set where none is possible).
    A choice that cannot be honoured here (``--rocm`` it does not serve, ...) is an error.
    ``facts`` (from :func:`plan_facts`) plans again without reading the machine again: other
    choices, or the same plan in another language. With ``check_venv`` (a set-up that would
    make the environment), a ``choices.venv`` that is already another app's environment with
    PyTorch is refused with the repair that fits it (issue 34); a plan whose environment steps
    alone are kept (the card's variables) leaves it False."""
    if choices is not None and choices.venv and check_venv:
        taken = app_venv_problem(root, choices.venv)
        if taken:
            raise OperationError(taken, status=2)
    plan = _plan(facts if facts is not None else plan_facts(root), choices)
    return replace(plan, replay=str(root)) if root is not None else plan


def choice_problem(facts: Facts, choices: Choices) -> str | None:
    """Why ``choices`` cannot be planned for the machine of ``facts`` (a strategy for another
    system, a release without a PyTorch for the card); None when they can."""
    try:
        make_plan(facts, load_knowledge(), choices)
    except PlanError as exc:
        return str(exc)
    return None


def release_is_chosen(strategy: str | None) -> bool:
    """Whether a chosen ROCm release (``--rocm``) changes a plan of ``strategy``: TheRock's
    nightly index is one multi-arch release, whatever is asked for."""
    return strategy != "therock"


def replay_refusal(plan: Plan) -> str | None:
    """Why ``plan`` is not carried out on this computer (it was made for a replayed machine);
    None when it may be."""
    if plan.replay is None:
        return None
    command = "rocmate install"
    repair = getattr(plan, "repair", None)  # a repair or rollback plan (core.install.repair)
    if repair is not None:
        command = f"rocmate install --{repair.kind} {shlex.quote(repair.python)}"
    return t("ops.setup.replay-only-shown", "This plan is for the replayed machine in {folder}: "
             "it is only shown here, and nothing on this computer is changed. Carry it out on "
             "that machine itself ({command}).", folder=plan.replay, command=command)


def _plan(facts: Facts, choices: Choices | None) -> Plan:
    try:
        return make_plan(facts, load_knowledge(), choices or Choices())
    except PlanError as exc:
        raise OperationError(str(exc), status=2) from exc


# A variable the doctor finds wrong, by the finding that says so.
_WRONG_WHEN = {"override-wrong": re.compile(r"^HSA_OVERRIDE_GFX_VERSION(_[0-9]+)?$"),
               "hip-visible-devices-hides": re.compile(r"^(HIP|ROCR|CUDA)_VISIBLE_DEVICES$")}


@dataclass(frozen=True)
class CardVariables:
    """What ``rocmate env`` puts into a shell: the variables the card needs, the wrong ones the
    shell has now (to unset), and, where there is nothing to do, why."""

    set: dict[str, str]
    unset: tuple[str, ...]
    why_nothing: str | None = None
    """Why nothing is set (the card needs no variable, or no set-up fits this machine)."""
    usable: bool = True
    """False when no set-up fits the machine (no supported AMD GPU, WSL 1, ...)."""


def card_variables(root: str | Path | None = None, choices: Choices | None = None
                   ) -> CardVariables:
    """The card's variables for a shell, from the plan, and the exported values the doctor
    finds wrong (``override-wrong``, ``hip-visible-devices-hides``) that the plan does not set."""
    report = run_doctor(open_machine(root), probe_torch=False)
    plan = _plan(report.facts, choices)
    exported = report.facts.environment.values
    flagged = {f.id for f in report.findings}
    unset = tuple(sorted(
        name for name in exported if name not in plan.env and any(
            rule.match(name) and finding in flagged for finding, rule in _WRONG_WHEN.items())))
    if plan.blocked:
        return CardVariables({}, unset, t("ops.setup.no-setup-fits", "No set-up fits this "
                                          "machine: {reason}", reason=plan.blocked), False)
    why = None if plan.env or unset else t("ops.setup.no-variables",
                                           "This card needs no variables.")
    return CardVariables(dict(plan.env), unset, why)


def variable_lines(variables: CardVariables, shell: Literal["sh", "fish"] = "sh") -> list[str]:
    """The lines that unset the wrong variables and set the card's, in ``shell``."""
    if shell == "fish":
        return ([f"set -e {name}" for name in variables.unset]
                + [f"set -gx {k} {v}" for k, v in sorted(variables.set.items())])
    return ([f"unset {name}" for name in variables.unset]
            + [f'export {k}="{v}"' for k, v in sorted(variables.set.items())])


@dataclass(frozen=True)
class SetupResult:
    ok: bool
    log_path: Path


def prepare_setup(plan: Plan, on_event: Emit, *, via: Literal["sudo", "pkexec"] = "sudo",
                  resume: bool = False) -> Runner:
    """A runner for ``plan``: its root block goes through ``via`` (sudo from a terminal, pkexec
    from the desktop), or directly when already root, and only from a root-owned installation
    (the runner then stops with the reason). Without ``resume`` an earlier run's progress is
    forgotten. ``on_event`` gets the runner's events; ``runner.cancel()`` stops it. A plan
    for a replayed machine is refused (:func:`replay_refusal`): nothing of it runs here."""
    refusal = replay_refusal(plan)
    if refusal is not None:
        raise OperationError(refusal, status=2)
    if not resume:
        (state_dir() / "state.json").unlink(missing_ok=True)
    route = helper_route(via)
    return Runner(plan, on_event, route.argv, helper_problem=route.problem)


async def run_setup(runner: Runner) -> SetupResult:
    """Carry the plan out; how it ended (the events said what happened step by step)."""
    ok = bool(await runner.run())
    return SetupResult(ok, runner.log_path)


def verify_pytorch(root: str | Path | None = None, python: str | None = None,
                   timeout: float = 120.0) -> TorchCheck:
    """The seeds' verification in the chosen Python, line by line (green, red with the fix, or
    not checked): torch and HIP versions, the GPU seen, its name, a matrix product on the GPU
    compared with the CPU."""
    return torch_check(open_machine(root), python, timeout)


@dataclass(frozen=True)
class OverrideTrials:
    """How each HSA_OVERRIDE_GFX_VERSION value did on the card, in the order tried."""

    card: str | None
    gfx: str | None
    python: str
    trials: tuple[Trial, ...]

    @property
    def best(self) -> Trial | None:
        """The first value that works (the knowledge base's preferred one is tried first)."""
        return next((t for t in self.trials if t.works), None)

    def to_json(self) -> dict[str, Any]:
        """``rocmate.override-trials/1``: what ``doctor --try-overrides --json`` prints (its
        details in English, as every JSON rocmate prints)."""
        best = self.best
        return {"schema": "rocmate.override-trials/1", "card": self.card, "gfx": self.gfx,
                "python": self.python,
                "trials": [{"value": trial.value, "outcome": trial.outcome,
                            "detail": trial.detail} for trial in self.trials],
                "works": best is not None, "best": best.value if best else None}


WARNING = ("Each value runs alone in a throwaway process with a time limit. A wrong value can "
           "compute wrong numbers, crash that process or, rarely, hang the graphics driver "
           "until a reboot: save your work in other programs first.")
"""The caution before trying overrides, in English (the app translates it with Qt);
:func:`override_warning` is the same in the current language."""


def override_warning() -> str:
    """:data:`WARNING` in the current language."""
    return t("ops.setup.override-warning", "Each value runs alone in a throwaway process with a "
             "time limit. A wrong value can compute wrong numbers, crash that process or, "
             "rarely, hang the graphics driver until a reboot: save your work in other programs "
             "first.")


def override_candidates(report: DoctorReport) -> list[str | None]:
    """The values to try for the card to train on: the knowledge base's (preferred first), the
    one set now, and none. A card for which the knowledge base knows no override to work
    (``no_override``: on a 780M, 11.0.0 can hang the machine) is tried without one only,
    whatever is set now."""
    kb = load_knowledge()
    found: list[str | None] = []
    if report.primary_index is not None:
        gpu = report.facts.gpus.gpus[report.primary_index]
        if gpu.gfx and kb.no_override(gpu.gfx) is not None:
            return [None]
        support = report.supports[report.primary_index]
        rule = kb.override_rule(gpu.gfx) if gpu.gfx else None
        found += [support.override, rule.override if rule else None]
    found.append(report.facts.environment.get(OVERRIDE))
    values = [v for v in dict.fromkeys(found) if v]
    return [*values, None]


def try_overrides(root: str | Path | None = None, python: str | None = None, *,
                  values: list[str | None] | None = None, timeout: float = 60.0,
                  on_start: Callable[[], None] | None = None,
                  on_trial: Callable[[Trial], None] | None = None) -> OverrideTrials:
    """Try each value (default: :func:`override_candidates`) in a throwaway process, one at a
    time, on this machine; ``on_start`` hears when the first is about to run (after every
    reason not to run any was ruled out), ``on_trial`` each outcome as it comes."""
    if root is not None:
        raise OperationError(t("ops.setup.replay-runs-nothing", "a replayed machine runs "
                               "nothing: try overrides on the machine itself"), status=2)
    system = open_machine(None)
    report = run_doctor(system, probe_torch=False)
    if report.primary_index is None and values is None:
        raise OperationError(t("ops.setup.no-card-to-try", "there is no AMD GPU here to try "
                               "{variable} on ({command} says what it found)",
                               variable=OVERRIDE, command="rocmate doctor"), status=1)
    if on_start is not None:
        on_start()
    exe = python or default_python(system)
    chosen = override_candidates(report) if values is None else values
    trials: list[Trial] = []
    for value in chosen:
        trial = run_trial(system, exe, value, timeout)
        trials.append(trial)
        if on_trial is not None:
            on_trial(trial)
    gpu = (report.facts.gpus.gpus[report.primary_index]
           if report.primary_index is not None else None)
    return OverrideTrials(gpu.name if gpu else None, gpu.gfx if gpu else None, exe,
                          tuple(trials))


def finished_steps(plan: Plan, folder: Path | None = None) -> list[str]:
    """The ids of the plan's steps an earlier run finished (as planned now): what Resume skips.
    Empty when nothing ran, or everything that ran has changed since."""
    state = RunState.load((folder or state_dir()) / "state.json")
    return [step.id for step in plan.steps if step.kind != "verify" and state.is_done(step)]


ENV_STEPS = "env-"  # the plan's steps that write the card's variables into the environment


async def keep_override(value: str, root: str | Path | None = None, *,
                        venv: str | None = None, on_event: Emit | None = None,
                        folder: Path | None = None) -> SetupResult:
    """Write a tested HSA_OVERRIDE_GFX_VERSION ("" for none) into the environment's variables
    through the plan's own environment steps (nothing else runs, nothing runs as root). For a
    replayed machine (``root``) only into an environment named here (``venv``): the replay's
    own would be a folder of this computer that the replay does not describe."""
    # only the environment's steps are kept: PyTorch (and its kernel check) need not run
    plan = plan_setup(root, Choices(venv=venv, override=value),
                      facts=plan_facts(root, probe_torch=False))
    steps = tuple(s for s in plan.steps if s.id.startswith(ENV_STEPS))
    writes = replace(plan, steps=steps, replay=plan.replay if venv is None else None)
    runner = Runner(writes, on_event or (lambda event: None), None, folder=folder)
    ok = bool(await runner.run())
    return SetupResult(ok, runner.log_path)


def current_releases() -> list[str]:
    """The ROCm release series a plan may be asked for, newest first (``--rocm``)."""
    return [release.version for release in load_knowledge().current_releases()]
