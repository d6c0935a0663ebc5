"""Finding the fastest settings for one suite on this card (``rocmate tune SUITE``, the app's
"Find the fastest settings"), and keeping them.

Today's defaults run first, then each variant of resources/data/tune_variants.toml that applies
to the suite, the platform and the card the defaults' worker named, each in a fresh worker
through the same runner as ``rocmate bench`` (its protocol, watchdog and warm-up steadiness
check), each measured for the same short fixed time sized to the budget. A variant the budget
leaves no time for is "not run"; one that fails keeps its reason. The ranking and the noise rule
are core.bench.tune_rank's.

"Keep these" writes the winner's environment variables through the plan's own environment
steps (the route of the override tester's "Keep this value", core.operations.setup), remembers
what was there before (``$XDG_DATA_HOME/rocmate/tune-undo.json``) and :func:`undo_tuned` puts
it back. A winner that is a bench option (precision, channels_last, compile) is not a variable:
it is said as the bench options to use instead."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from core.bench.runner import BenchRunner, RunOutcome
from core.bench.tune_rank import DEFAULT, Measured, Ranking, rank
from core.bench.tune_variants import (
    BACKEND_PLATFORM,
    TUNING_FILE,
    Applicability,
    Variant,
    applicability,
    load_variants,
)
from core.bench.worker.options import BenchOptions, flag_of
from core.bench.worker.protocol import SIZES
from core.i18n import local, t
from core.install.planner import Choices
from core.install.runner import Emit, Runner
from core.operations.errors import OperationError
from core.operations.setup import ENV_STEPS, plan_facts, plan_setup
from core.probe.environment import ENV_SCRIPT, TUNED, applied, parse_env_script
from core.probe.managed_env import default_python
from core.report.history import default_path
from core.system import LiveSystem, System

SCHEMA = "rocmate.tune/1"
UNDO_SCHEMA = "rocmate.tune-undo/1"
TUNE_SUITES = ("resnet50-train", "sd15-infer", "llm-train", "llm-infer")
DEFAULT_BUDGET_S = 300.0
MEASURE_SHARE = 0.4
"""The part of each run's share of the budget that is measured (the rest: start, warm-up)."""
MEASURE_MIN_S, MEASURE_MAX_S = 1.0, 20.0
OVERRUN = 1.1
"""A variant still starts when the runs so far say it ends within 10 % past the budget."""

TuneCallback = Callable[["TuneEvent"], None]


@dataclass(frozen=True)
class TuneRequest:
    suite: str
    budget_s: float = DEFAULT_BUDGET_S
    device: str = "cuda:0"
    size: str = "default"
    python: str | None = None
    only: tuple[str, ...] | None = None
    """Only these variant ids (None: every row of the table)."""
    variants: tuple[Variant, ...] | None = None
    """The variants to try instead of the table's (tests)."""
    measure_s: float | None = None
    """Each run's measured seconds (None: sized to the budget, :func:`measure_seconds`)."""
    watchdog_s: float = 180.0
    startup_timeout_s: float = 900.0

    def problems(self) -> list[str]:
        found = []
        if self.suite not in TUNE_SUITES:
            found.append(t("ops.tune.suite", "rocmate tune measures {suites} (not {suite})",
                           suites=", ".join(TUNE_SUITES), suite=self.suite))
        if not (self.budget_s > 0 and self.budget_s < 7 * 24 * 3600):
            found.append(t("ops.tune.budget", "--budget must be a positive number of seconds "
                           "(not {value})", value=self.budget_s))
        if self.size not in SIZES:
            found.append(t("ops.tune.size", "--size must be one of {sizes}",
                           sizes=", ".join(SIZES)))
        found += BenchOptions(suite=self.suite if self.suite in TUNE_SUITES else
                              TUNE_SUITES[0], device=self.device).problems(t)
        return found


@dataclass(frozen=True)
class VariantPlan:
    """A variant as this tune sees it: the row and whether it is measured here."""

    variant: Variant
    applies: Applicability

    def to_json(self) -> dict[str, Any]:
        v = self.variant
        return {"id": v.id, "title": str(v.title), "env": v.env, "options": v.options,
                "why": str(v.why), "source": v.source, "applies": self.applies.applies,
                "not_applicable": self.applies.code or None}


@dataclass
class TuneEvent:
    """What a tune says while it runs: ``plan`` (after the defaults' hello: which variants are
    measured), ``start`` (a run begins), ``done`` (a run ended, ``measured``)."""

    kind: str
    variant: str
    index: int  # this run's place, 1-based
    total: int  # the runs planned (the defaults included)
    elapsed_s: float
    left_s: float  # the estimated time left
    measured: Measured | None = None
    plans: tuple[VariantPlan, ...] = ()


@dataclass
class TuneResult:
    suite: str
    budget_s: float
    measure_s: float
    elapsed_s: float
    python: str
    platform: str | None
    gfx: str | None
    device_name: str | None
    base: BenchOptions
    plans: tuple[VariantPlan, ...]
    ranking: Ranking
    card_variables: dict[str, str] = field(default_factory=dict)
    cancelled: bool = False

    def variant(self, variant_id: str) -> Variant | None:
        return next((p.variant for p in self.plans if p.variant.id == variant_id), None)

    @property
    def winner(self) -> Variant | None:
        """The fastest variant that beat the defaults (None: the defaults are fastest, or
        nothing was measured)."""
        w = self.ranking.winner
        return self.variant(w) if w and w != DEFAULT else None

    def suggested_options(self) -> list[str]:
        """The winner's bench options as ``rocmate bench`` flags (empty for a variable)."""
        winner = self.winner
        if winner is None:
            return []
        flags = []
        for name, value in winner.options.items():
            flags += [flag_of(name)] if value is True else [flag_of(name), str(value)]
        return flags

    def to_json(self) -> dict[str, Any]:
        """``rocmate.tune/1`` (texts in English, as every JSON rocmate prints)."""
        winner = self.winner
        return {"schema": SCHEMA, "suite": self.suite, "budget_s": self.budget_s,
                "measure_s": self.measure_s, "elapsed_s": round(self.elapsed_s, 3),
                "python": self.python, "platform": self.platform, "gfx": self.gfx,
                "device_name": self.device_name, "settings": self.base.settings(),
                "card_variables": self.card_variables, "cancelled": self.cancelled,
                "variants": [p.to_json() for p in self.plans],
                **self.ranking.to_json(),
                "keep": {"env": winner.env if winner else {},
                         "options": self.suggested_options()}}


def measure_seconds(budget_s: float, runs: int) -> float:
    """Each run's measured phase: its share of the budget, of which :data:`MEASURE_SHARE`."""
    share = budget_s / max(runs, 1) * MEASURE_SHARE
    return round(min(max(share, MEASURE_MIN_S), MEASURE_MAX_S), 1)


def upper_count(variants: tuple[Variant, ...], suite: str, device: str) -> int:
    """The most runs a tune of ``suite`` can make (before the platform is known): the defaults
    and every variant for the suite on the CPU (``device`` cpu) or on any GPU platform."""
    cpu = device == "cpu"
    return 1 + sum(1 for v in variants if suite in v.suites and (
        ("cpu" in v.platforms) if cpu else bool({"rocm", "cuda"} & set(v.platforms))))


def measured_from(variant: str, outcome: RunOutcome) -> Measured:
    """A run's outcome as a row of the ranking."""
    if outcome.status == "ok" and outcome.result:
        result = outcome.result
        name = result.get("headline") or next(iter(result.get("figures") or {}), None)
        fig = (result.get("figures") or {}).get(name) or {}
        warmup = result.get("warmup") or {}
        return Measured(variant, "ok", name, fig.get("unit"), fig.get("median"), fig.get("cv"),
                        bool(fig.get("higher_is_better", True)), fig.get("n"),
                        warmup.get("settled"), round(outcome.duration_s, 2))
    error = outcome.error or {}
    state = "cancelled" if outcome.status == "cancelled" else "failed"
    message = str(error.get("message") or "").strip().splitlines()
    return Measured(variant, state, seconds=round(outcome.duration_s, 2),
                    error_kind=error.get("kind"), reason=message[0] if message else None)


class TuneRun:
    """One tune, set up: ``await run()``; :meth:`cancel` stops the run in progress (the rows
    measured so far are kept)."""

    def __init__(self, request: TuneRequest, on_event: TuneCallback | None = None,
                 system: System | None = None) -> None:
        problems = request.problems()
        if problems:
            raise OperationError("; ".join(problems), status=2)
        self.request = request
        self.on_event = on_event
        self.system = system or LiveSystem()
        self.python = request.python or default_python(self.system)
        card = applied(self.system, self.python)
        self.card = card  # what rocmate-env.sh changes for a run (a stale export it unsets)
        self.card_variables = dict(card.variables)
        variants = request.variants if request.variants is not None else load_variants()
        if request.only is not None:
            unknown = sorted(set(request.only) - {v.id for v in variants})
            if unknown:
                raise OperationError(t("ops.tune.unknown-variant", "no such variant: {ids} "
                                       "(known: {known})", ids=", ".join(unknown),
                                       known=", ".join(v.id for v in variants)), status=2)
            variants = tuple(v for v in variants if v.id in request.only)
        self.variants = variants
        self.base = BenchOptions(suite=request.suite, device=request.device, size=request.size)
        self.total = upper_count(variants, request.suite, request.device)
        self.measure_s = request.measure_s or measure_seconds(request.budget_s, self.total)
        self._runner: BenchRunner | None = None
        self._cancelled = False
        self._t0 = 0.0
        self._durations: list[float] = []

    def cancel(self) -> None:
        self._cancelled = True
        if self._runner is not None:
            self._runner.cancel()

    def _elapsed(self) -> float:
        return time.monotonic() - self._t0

    def _left(self, runs_left: int) -> float:
        """The time left: the runs still to come at the mean duration so far (the budget's
        share before the first has ended), never past the budget."""
        each = (sum(self._durations) / len(self._durations) if self._durations
                else self.request.budget_s / self.total)
        return max(0.0, min(each * runs_left, self.request.budget_s - self._elapsed())
                   if self._durations else each * runs_left)

    def _say(self, kind: str, variant: str, index: int, total: int, runs_left: int,
             measured: Measured | None = None, plans: tuple[VariantPlan, ...] = ()) -> None:
        if self.on_event is not None:
            self.on_event(TuneEvent(kind, variant, index, total, self._elapsed(),
                                    self._left(runs_left), measured, plans))

    def worker_env(self, variant: Variant | None, folder: Path) -> dict[str, str | None]:
        """The variables a run gets on top of this process's: the card's (rocmate-env.sh),
        then the variant's; TunableOp's results file goes into the tune's own ``folder``,
        which is removed when the tune ends (nothing of it is left behind)."""
        env = self.card.for_run()
        if variant is not None:
            env.update(variant.env)
            if variant.tuning_file:
                env[TUNING_FILE] = str(folder / f"{variant.id}-tunableop_results.csv")
        return env

    async def _measure(self, variant: Variant | None, folder: Path) -> RunOutcome:
        base = variant.apply(self.base) if variant is not None else self.base
        options = replace(base, seconds=self.measure_s)
        env = self.worker_env(variant, folder)
        self._runner = BenchRunner(
            options, python=self.python, env=env, telemetry=False, system=self.system,
            watchdog_s=self.request.watchdog_s,
            startup_timeout_s=self.request.startup_timeout_s)
        started = self._elapsed()
        outcome = await self._runner.run()
        self._durations.append(self._elapsed() - started)
        return outcome

    async def run(self) -> TuneResult:
        self._t0 = time.monotonic()
        folder = Path(tempfile.mkdtemp(prefix="rocmate-tune-"))
        rows: list[Measured] = []
        plans: tuple[VariantPlan, ...] = ()
        platform = gfx = name = None
        try:
            self._say("start", DEFAULT, 1, self.total, self.total)
            base = await self._measure(None, folder)
            hello = base.hello or {}
            platform = BACKEND_PLATFORM.get(str(hello.get("backend")))
            gfx = hello.get("arch") if platform == "rocm" else None
            name = hello.get("device_name")
            rows.append(measured_from(DEFAULT, base))
            plans = self._plans(platform, gfx)
            todo = [p.variant for p in plans if p.applies.applies]
            total = 1 + len(todo)
            self._say("plan", DEFAULT, 1, total, len(todo), plans=plans)
            self._say("done", DEFAULT, 1, total, len(todo), rows[-1])
            failed_base = rows[0].state != "ok"
            for index, variant in enumerate(todo, start=2):
                left = total - index + 1
                if self._cancelled or failed_base:
                    why = (t("tune.not-run.cancelled", "the tune was stopped") if
                           self._cancelled else t("tune.not-run.defaults-failed",
                                                  "today's defaults did not run"))
                    rows.append(Measured(variant.id, "not-run", reason=why,
                                         error_kind="cancelled" if self._cancelled
                                         else "defaults"))
                    continue
                mean = sum(self._durations) / len(self._durations)
                if self._elapsed() + mean > self.request.budget_s * OVERRUN:
                    rows.append(Measured(variant.id, "not-run", error_kind="budget", reason=t(
                        "tune.not-run.budget", "the time budget ran out")))
                    self._say("done", variant.id, index, total, left - 1, rows[-1])
                    continue
                self._say("start", variant.id, index, total, left)
                outcome = await self._measure(variant, folder)
                rows.append(measured_from(variant.id, outcome))
                self._say("done", variant.id, index, total, left - 1, rows[-1])
            rows += [Measured(p.variant.id, "not-applicable", reason=p.applies.reason)
                     for p in plans if not p.applies.applies]
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return TuneResult(self.request.suite, self.request.budget_s, self.measure_s,
                          self._elapsed(), self.python, platform, gfx, name, self.base, plans,
                          rank(rows), self.card_variables, self._cancelled)

    def _plans(self, platform: str | None, gfx: str | None) -> tuple[VariantPlan, ...]:
        if platform is None:  # the defaults did not say hello: nothing can be placed
            why = t("tune.na.no-device", "the defaults' run did not start")
            return tuple(VariantPlan(v, Applicability(False, why, "platform"))
                         for v in self.variants)
        now = self.card.over(self.system.env())  # what the defaults' worker had
        plans = []
        for v in self.variants:
            found = applicability(v, self.request.suite, platform, gfx, self.base)
            if found.applies and v.env and all(now.get(k) == x for k, x in v.env.items()):
                found = Applicability(False, t("tune.na.same", "the default here already"),
                                      "default")
            plans.append(VariantPlan(v, found))
        return tuple(plans)


def run_tune(request: TuneRequest, on_event: TuneCallback | None = None,
             system: System | None = None) -> TuneResult:
    """Run a tune to the end from synchronous code (Ctrl-C: KeyboardInterrupt)."""
    run = TuneRun(request, on_event, system)
    return asyncio.run(run.run())


# -- keeping the winner ----------------------------------------------------------------------


@dataclass(frozen=True)
class KeepResult:
    ok: bool
    log_path: Path | None
    written: dict[str, str]
    """The variables now in the environment's rocmate-env.sh from tunes."""
    before: dict[str, str]
    """What was there before (what :func:`undo_tuned` puts back)."""
    options: list[str]
    """Bench options to use instead (``--channels-last``): not variables, so not written."""
    script: str | None = None


def undo_path(system: System | None = None) -> Path:
    """``$XDG_DATA_HOME/rocmate/tune-undo.json``: what the last keep replaced."""
    return default_path((system or LiveSystem()).env()).parent / "tune-undo.json"


def _tuned_now(system: System, script: str) -> dict[str, str]:
    text = system.read_text(script, limit=64 * 1024) if system.exists(script) else None
    return {k: v for k, v in parse_env_script(text or "").items() if k in TUNED}


async def _write(tuned: dict[str, str], root: str | Path | None, venv: str | None,
                 on_event: Emit | None, folder: Path | None) -> tuple[bool, Path, str]:
    plan = plan_setup(root, Choices(venv=venv, tuned=tuple(sorted(tuned.items()))),
                      facts=plan_facts(root, probe_torch=False))
    if plan.blocked or plan.venv is None:
        raise OperationError(t("ops.tune.no-plan", "no set-up fits this machine, so there is "
                               "no environment to write into: {reason}",
                               reason=plan.blocked or "?"), status=1)
    steps = tuple(s for s in plan.steps if s.id.startswith(ENV_STEPS))
    writes = replace(plan, steps=steps, replay=plan.replay if venv is None else None)
    runner = Runner(writes, on_event or (lambda event: None), None, folder=folder)
    ok = bool(await runner.run())
    return ok, runner.log_path, os.path.join(plan.venv, "bin", ENV_SCRIPT)


def _venv_of(root: str | Path | None, venv: str | None) -> str:
    plan = plan_setup(root, Choices(venv=venv), facts=plan_facts(root, probe_torch=False))
    if plan.venv is None:
        raise OperationError(t("ops.tune.no-plan", "no set-up fits this machine, so there is "
                               "no environment to write into: {reason}",
                               reason=plan.blocked or "?"), status=1)
    return plan.venv


async def keep_tuned(result: TuneResult, root: str | Path | None = None, *,
                     venv: str | None = None, on_event: Emit | None = None,
                     folder: Path | None = None, system: System | None = None) -> KeepResult:
    """Write the winner's variables into the environment (``venv``, default the plan's)
    through the plan's environment steps, and remember what they replace for
    :func:`undo_tuned`. A winner that is a bench option writes nothing and says the options."""
    system = system or LiveSystem()
    winner = result.winner
    options = result.suggested_options()
    if winner is None or not winner.env:
        return KeepResult(True, None, {}, {}, options)
    folder_venv = _venv_of(root, venv)
    script = os.path.join(folder_venv, "bin", ENV_SCRIPT)
    before = _tuned_now(system, script)
    tuned = {**before, **winner.kept_env(folder_venv)}
    ok, log, script = await _write(tuned, root, venv, on_event, folder)
    if ok:
        record = {"schema": UNDO_SCHEMA, "venv": folder_venv, "suite": result.suite,
                  "variant": winner.id, "before": before, "written": tuned}
        path = undo_path(system)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return KeepResult(ok, log, tuned, before, options, script)


async def undo_tuned(root: str | Path | None = None, *, on_event: Emit | None = None,
                     folder: Path | None = None, system: System | None = None) -> KeepResult:
    """Put back the variables the last :func:`keep_tuned` replaced (its record says which
    environment); an error when there is nothing to undo."""
    system = system or LiveSystem()
    path = undo_path(system)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise OperationError(t("ops.tune.nothing-to-undo", "nothing to undo: no setting of "
                               "rocmate tune was kept"), status=1) from None
    except (OSError, ValueError) as exc:
        raise OperationError(t("ops.tune.undo-damaged", "the undo record {path} cannot be "
                               "read: {error}", path=path, error=exc), status=1) from exc
    if not isinstance(record, dict) or record.get("schema") != UNDO_SCHEMA:
        raise OperationError(t("ops.tune.undo-damaged", "the undo record {path} cannot be "
                               "read: {error}", path=path, error="schema"), status=1)
    before = {str(k): str(v) for k, v in dict(record.get("before") or {}).items()}
    written = {str(k): str(v) for k, v in dict(record.get("written") or {}).items()}
    ok, log, script = await _write(before, root, str(record.get("venv")), on_event, folder)
    if ok:
        with contextlib.suppress(OSError):
            path.unlink()
    return KeepResult(ok, log, before, written, [], script)


def variant_title(result: TuneResult, variant_id: str) -> str:
    """A variant's words in the current language (the defaults: "today's defaults")."""
    if variant_id == DEFAULT:
        return t("tune.default", "today's defaults")
    found = result.variant(variant_id)
    return local(found.title) if found else variant_id


def state_text(row: Measured) -> str:
    """A row's state in words, with its reason (the current language)."""
    if row.state == "ok":
        return (t("tune.state.not-steady", "measured (warm-up never steady)")
                if row.settled is False else t("tune.state.ok", "measured"))
    words = {"failed": t("tune.state.failed", "failed"),
             "not-run": t("tune.state.not-run", "not run"),
             "not-applicable": t("tune.state.not-applicable", "not applicable"),
             "cancelled": t("tune.state.cancelled", "stopped")}.get(row.state, row.state)
    if row.state == "failed" and row.error_kind and row.error_kind != "other":
        words = t("tune.state.failed-kind", "failed ({kind})", kind=row.error_kind)
    return t("tune.state.with-reason", "{state}: {reason}", state=words,
             reason=row.reason) if row.reason else words


def percent(value: float | None, signed: bool = False) -> str:
    """0.123 as "12.3 %" (``signed``: "+12.3 %"); "–" for None."""
    if value is None:
        return "–"
    return f"{value * 100:+.1f} %" if signed else f"{value * 100:.1f} %"


def answer_text(result: TuneResult) -> str:
    """The answer in a sentence or two: the fastest settings and the gain over today's
    defaults, or that there is no clear winner (the gap inside the noise), or why there is no
    answer."""
    ranking = result.ranking
    base = ranking.row(DEFAULT)
    if base is None or base.state != "ok":
        reason = base.reason if base and base.reason else t("tune.answer.unknown", "unknown")
        return t("tune.answer.defaults-failed", "No answer: today's defaults did not run "
                 "({reason}), so nothing can be compared.", reason=reason)
    if ranking.winner in (None, DEFAULT):
        if not any(r.state == "ok" for r in ranking.rows if r.variant != DEFAULT):
            return t("tune.answer.nothing-else", "Only today's defaults were measured: no "
                     "other setting ran here.")
        return t("tune.answer.defaults-fastest", "Today's defaults are the fastest measured "
                 "here: keep them.")
    title = variant_title(result, ranking.winner)
    winner = ranking.row(ranking.winner)
    cvs = t("tune.answer.cvs", "CV {a} and {b}", a=percent(winner.cv if winner else None),
            b=percent(base.cv))
    if not ranking.clear:
        return t("tune.answer.no-clear-winner", "No clear winner: {title} measured {gain} "
                 "against today's defaults, inside the noise ({cvs}); keep today's defaults "
                 "or measure again with a longer --budget.", title=title,
                 gain=percent(ranking.gain, signed=True), cvs=cvs)
    return t("tune.answer.winner", "Fastest: {title}, {gain} over today's defaults ({cvs}).",
             title=title, gain=percent(ranking.gain, signed=True), cvs=cvs)


def keep_text(result: TuneResult) -> str | None:
    """What "Keep these" would do with the winner: the variables it writes, or the bench
    options to use instead; None when there is nothing to keep (no clear winner)."""
    winner = result.winner
    if winner is None or not result.ranking.clear:
        return None
    if winner.env:
        return t("tune.keep.env", "Keep these writes {variables} into the environment's "
                 "rocmate-env.sh (undo puts back what was there).",
                 variables=", ".join(f"{k}={v}" for k, v in winner.kept_env(
                     os.path.dirname(os.path.dirname(result.python)) or "VENV").items()))
    return t("tune.keep.options", "This is a bench option, not a variable: nothing is "
             "written; benchmark with {command}.",
             command=" ".join(["rocmate bench", result.suite, *result.suggested_options()]))


def undo_ready(system: System | None = None) -> bool:
    """Whether a kept setting can be undone (the last keep's record is there)."""
    return undo_path(system).exists()


def reworded(result: TuneResult) -> TuneResult:
    """``result`` with rocmate's own reasons (not applicable, not run) in the language now
    set; the worker's words (a failure's message) stay as they came."""
    if result.platform is None:
        return result
    plans = tuple(VariantPlan(p.variant, applicability(p.variant, result.suite,
                                                       result.platform, result.gfx,
                                                       result.base)) for p in result.plans)
    why = {p.variant.id: p.applies.reason for p in plans}
    not_run = {"budget": t("tune.not-run.budget", "the time budget ran out"),
               "cancelled": t("tune.not-run.cancelled", "the tune was stopped"),
               "defaults": t("tune.not-run.defaults-failed", "today's defaults did not run")}
    rows = []
    for row in result.ranking.rows:
        if row.state == "not-applicable" and row.variant in why:
            row = replace(row, reason=why[row.variant])
        elif row.state == "not-run" and row.error_kind in not_run:
            row = replace(row, reason=not_run[row.error_kind])
        rows.append(row)
    return replace(result, plans=plans, ranking=replace(result.ranking, rows=tuple(rows)))
