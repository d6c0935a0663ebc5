"""Running a benchmark suite to a stored report: the target Python and the variables rocmate
wrote for its card, the worker through the runner (events as they come, a cancel), the report
built and scrubbed, written to a file when asked and added to the history.

A measured run is never lost: a report file that cannot be written or a history that cannot be
opened is said in the result (``out_error``, ``history_error``); the run file holds every event.
A run that rocmate itself did not live to finish (a crash, a closed window) is added to the
history later by :func:`recover_interrupted`, as ``interrupted`` with the steps it had.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import signal
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from core.bench.recover import recover
from core.bench.run_report import build_report
from core.bench.runner import (
    BenchRunner,
    EventCallback,
    RunOutcome,
    default_run_file,
    default_runs_dir,
)
from core.bench.worker.options import BenchOptions
from core.i18n import t
from core.operations.errors import OperationError
from core.probe.environment import applied
from core.probe.facts import Facts
from core.probe.managed_env import default_python
from core.report.history import History, HistoryError, default_path
from core.report.model import Report, ReportError, to_json
from core.report.privacy import scrub_report
from core.system import LiveSystem, System

if TYPE_CHECKING:  # the doctor's modules load where a data-parallel run needs them
    from core.probe.gpus import Gpu


@dataclass(frozen=True)
class BenchmarkRequest:
    """One run: the suite's options and how rocmate runs and keeps it."""

    options: BenchOptions
    python: str | None = None
    """The Python holding the PyTorch to measure (default: the managed environment's, else
    python3)."""
    watchdog_s: float = 180.0
    startup_timeout_s: float = 900.0
    telemetry: bool = True
    run_file: Path | None = None
    """The event log (default: under $XDG_DATA_HOME/rocmate/runs)."""
    out: Path | None = None
    """Also write the report JSON here."""
    history: bool = True
    history_path: Path | None = None
    """The history database (default: $XDG_DATA_HOME/rocmate/history.sqlite)."""

    def problems(self) -> list[str]:
        """What keeps this run from starting, in words: the options' problems and the host's."""
        found = self.options.problems(t)
        for flag, value in (("--watchdog", self.watchdog_s),
                            ("--startup-timeout", self.startup_timeout_s)):
            if not math.isfinite(value) or value <= 0:
                found.append(t("ops.bench.seconds-not-positive", "{option} must be a positive "
                               "number of seconds (not {value})", option=flag, value=value))
        model = self.options.model
        if model is not None and not Path(model).exists():
            found.append(t("ops.bench.no-model", "{option} {path}: no such file or folder",
                           option="--model", path=model))
        if self.out is not None:
            unwritable = _cannot_write(self.out)
            if unwritable:
                found.append(unwritable)
        return found


@dataclass
class BenchmarkResult:
    outcome: RunOutcome
    report: Report
    report_json: str
    run_file: Path
    out_error: str | None = None
    """Why the report could not be written to the request's ``out``."""
    history_error: str | None = None
    """Why the run was not added to the history."""
    history_ids: list[int] = field(default_factory=list)

    @property
    def status(self) -> str:
        """ok | error | cancelled (``interrupted`` only for a run recovered later)"""
        return self.outcome.status


class BenchmarkRun:
    """One run, set up and ready: :attr:`python` and :attr:`variables` are known before it
    starts (a front end shows them); ``await run()`` measures; :meth:`cancel` stops the worker
    (the run ends as cancelled, its events kept)."""

    def __init__(self, request: BenchmarkRequest, on_event: EventCallback | None = None,
                 system: System | None = None, baseline: RunOutcome | None = None,
                 facts: Facts | None = None) -> None:
        """``baseline``: a run measured before this one that its report keeps first (the
        single-GPU run a data-parallel run is compared with, core.report.scaling). ``facts``:
        the machine as the doctor read it (without PyTorch), for a data-parallel run's GPUs
        (:func:`rank_gpus`); read here when such a run needs them and none are given."""
        problems = request.problems()
        if problems:
            raise OperationError("; ".join(problems), status=2)
        self.request = request
        self.baseline = baseline
        self.system = system or LiveSystem()
        env = self.system.env()
        self.python = request.python or default_python(self.system)
        card = applied(self.system, self.python)
        self.variables: dict[str, str] = dict(card.variables)
        """The variables rocmate wrote for the card (e.g. HSA_OVERRIDE_GFX_VERSION), which the
        worker gets; a value the user's own environment has wins and is not listed, unless
        the file forces its own."""
        self.removed: tuple[str, ...] = card.removed
        """The user's exported variables the file unsets (a stale HIP_VISIBLE_DEVICES the plan
        commented out of ~/.bashrc, still in this shell until a new login): not the worker's."""
        self.variables_file = card.script
        self.facts = facts
        if facts is None and takes_rank_gpus(request.options):
            self.facts = machine_facts(self.system, self.python)
        self.ranks = (rank_gpus(request.options, self.facts, card.over(env))
                      if self.facts is not None else RankGpus())
        """Where a data-parallel run's ranks go: HIP_VISIBLE_DEVICES for the worker when
        rocmate chose the GPUs (:attr:`RankGpus.said` tells the user)."""
        if self.ranks.problem:
            raise OperationError(self.ranks.problem, status=2)
        self.run_file = request.run_file or default_run_file(env, request.options.suite)
        self.runner = BenchRunner(
            request.options, python=self.python, env={**card.for_run(), **self.ranks.variables},
            run_file=self.run_file,
            watchdog_s=request.watchdog_s, startup_timeout_s=request.startup_timeout_s,
            telemetry=request.telemetry, on_event=on_event, system=self.system,
            run_record={"history": request.history})

    def cancel(self) -> None:
        self.runner.cancel()

    async def run(self) -> BenchmarkResult:
        outcome = await self.runner.run()
        # the report is built and stored off the event loop (a window may be drawing on it)
        return await asyncio.to_thread(self.keep, outcome)

    def keep(self, outcome: RunOutcome) -> BenchmarkResult:
        """The report of ``outcome``, scrubbed before it is written anywhere (no user, host or
        home path leaves the machine), to the request's file and the history. A report that
        cannot be made is an error with the run file named: every event is in it."""
        try:
            report = report_of(outcome, self.system, before=self.baseline)
            text = to_json(report)
        except ReportError as exc:
            from core.report.formatting import status_word

            raise OperationError(t(
                "ops.bench.no-report", "the run ended ({status}) but its report could not be "
                "made: {error}; every event is in the run file {path}",
                status=status_word(outcome.status), error=exc, path=self.run_file)) from exc
        result = BenchmarkResult(outcome, report, text, self.run_file)
        request = self.request
        if request.out is not None:
            result.out_error = _write_report(request.out, text)
        if request.history:
            path = request.history_path or default_path(self.system.env())
            try:
                with History(path) as history:
                    result.history_ids = history.insert(report)
            except (HistoryError, OSError) as exc:
                result.history_error = str(exc)
        return result


VISIBILITY = ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES",
              "GPU_DEVICE_ORDINAL")
"""The variables that choose which GPUs a ROCm program sees: where the user set one, the
user chose the GPUs."""


@dataclass(frozen=True)
class RankGpus:
    """Where a data-parallel run's ranks go (:func:`rank_gpus`)."""

    variables: dict[str, str] = field(default_factory=dict)
    """``HIP_VISIBLE_DEVICES`` for the worker where rocmate chose the GPUs; empty otherwise."""
    said: str | None = None
    """The line that tells the user which GPUs take the ranks and which are left out."""
    problem: str | None = None
    """Why the run cannot start: more ranks asked for than the machine has GPUs for."""


def takes_rank_gpus(options: BenchOptions) -> bool:
    """A run through PyTorch's launcher on GPUs (``--gpus``, also the single-GPU run a
    data-parallel run is compared with): its ranks take ``cuda:LOCAL_RANK``."""
    return options.gpus is not None and options.device != "cpu"


def rank_gpus(options: BenchOptions, facts: Facts, env: Mapping[str, str] | None = None
              ) -> RankGpus:
    """The GPUs a data-parallel run may put a rank on, made the only ones its worker sees.

    The ranks take ``cuda:0`` .. ``cuda:N-1`` (``--gpus all``: every device PyTorch counts) in
    ROCm's order, the KFD nodes' order, where an integrated GPU or a card ROCm PyTorch does not
    support may come first (the doctor's ``igpu-first``) and where RCCL meets every GPU it is
    shown. So where ROCm sees an AMD GPU besides the doctor's data-parallel cards
    (:func:`core.diagnose.context.data_parallel_gpus`), the worker gets
    ``HIP_VISIBLE_DEVICES`` = those cards' ROCm indexes, said in one line. ``--gpus N`` above
    the number of those cards is a ``problem``: the run does not start.

    Nothing is chosen where the user chose (one of :data:`VISIBILITY` set in ``facts``' or in
    ``env``, the variables the worker gets), for a run on the CPU or without ``--gpus``, where
    KFD's nodes are not known (WSL, no driver), or on NVIDIA cards (CUDA numbers them as
    PyTorch does). ``facts``: the doctor's, without the PyTorch probe."""
    from core.diagnose.context import Context, data_parallel_gpus
    from core.knowledge.loader import load_knowledge

    if not takes_rank_gpus(options):
        return RankGpus()
    given = env or {}
    if any(facts.environment.get(name) is not None or name in given for name in VISIBILITY):
        return RankGpus()
    ctx = Context(facts, load_knowledge())
    gpus = data_parallel_gpus(facts.gpus.gpus, ctx.supports)
    if not gpus:  # one NVIDIA card: the same count, said the same way
        gpus = [g for g in facts.gpus.gpus if g.vendor == "nvidia" and not g.integrated]
    nodes = [n.node for n in facts.gpus.kfd_nodes]
    seen = [g for g, _ in ctx.amd if g.kfd_node in nodes]
    ranks = [g for g in gpus if g in seen]
    others = [g for g in seen if g not in ranks]
    usable = ranks if nodes and gpus and gpus[0].is_amd else gpus  # KFD known: what ROCm sees
    asked = int(options.gpus) if options.gpus and options.gpus.isdigit() else 0
    if asked >= 2 and asked > len(usable) and facts.gpus.gpus:
        return RankGpus(problem=_too_many(asked, usable, others))
    if not ranks or not others:
        return RankGpus()
    indexes = ",".join(str(i) for i in sorted(ctx.rocm_index(g) or 0 for g in ranks))
    left = t("doctor.list-separator", "; ").join(_left_out(g) for g in others)
    said = (t("ops.bench.rank-gpus", "data-parallel ranks on GPUs {indexes} "
              "(HIP_VISIBLE_DEVICES={indexes}); left out: {others}", indexes=indexes, others=left)
            if len(ranks) > 1 else
            t("ops.bench.rank-gpu", "the rank on GPU {index} (HIP_VISIBLE_DEVICES={index}); left "
              "out: {others}", index=indexes, others=left))
    return RankGpus({"HIP_VISIBLE_DEVICES": indexes}, said)


def _left_out(gpu: Gpu) -> str:
    """A GPU no rank goes on, and why, in a few words."""
    if gpu.integrated:
        return t("ops.bench.left-out.integrated", "the integrated {gpu}", gpu=gpu.name)
    return t("ops.bench.left-out.unusable", "{gpu} ({gfx}, not usable with ROCm PyTorch)",
             gpu=gpu.name, gfx=gpu.gfx or "?")


def _too_many(asked: int, gpus: list[Gpu], others: list[Gpu]) -> str:
    """The refusal of ``--gpus N`` above the GPUs a data-parallel run can use here."""
    counts: dict[str, int] = {}
    for gpu in gpus:
        counts[gpu.name] = counts.get(gpu.name, 0) + 1
    cards = ", ".join(f"{n} × {name}" if n > 1 else name for name, n in counts.items()) or t(
        "ops.bench.no-card", "none")
    text = t("ops.bench.too-many-ranks", "--gpus {asked}: this machine has {count} GPU(s) a "
             "data-parallel run can use ({cards})", asked=asked, count=len(gpus), cards=cards)
    if others:
        text += t("ops.bench.too-many-ranks.left", "; not {others}", others=t(
            "doctor.list-separator", "; ").join(_left_out(g) for g in others))
    if len(gpus) >= 2:
        return text + t("ops.bench.too-many-ranks.fewer", "; give --gpus {count} or fewer, or "
                        "--gpus all", count=len(gpus))
    return text + t("ops.bench.too-many-ranks.one", "; leave --gpus out to run on one GPU")


def machine_facts(system: System | None = None, python: str | None = None) -> Facts | None:
    """The machine as the doctor reads it without PyTorch (PCI, KFD, the variables); None when
    it cannot be read (a benchmark never fails for that)."""
    from core.probe.facts import gather

    try:
        return gather(system or LiveSystem(), python=python, probe_torch=False)
    except Exception:  # the run goes on as before: no GPUs chosen
        return None


def report_of(outcome: RunOutcome, system: System, created: str | None = None,
              before: RunOutcome | None = None) -> Report:
    """The report of one run (after ``before``, when given), scrubbed before it is written
    anywhere (no user, host or home path leaves the machine); ``created`` instead of now when
    given."""
    report = build_report([before, outcome] if before else [outcome], system)
    if created:
        report.created = created
    return scrub_report(report)


def recover_interrupted(history_path: Path | None = None, runs_dir: Path | None = None,
                        system: System | None = None) -> list[int]:
    """Add to the history every run that rocmate stopped before it ended (it crashed, its
    window was closed or killed, the power went): a run file in ``runs_dir`` (default
    ``$XDG_DATA_HOME/rocmate/runs``) without an ``end`` that no live rocmate holds and whose
    worker is gone. Each is added once, as ``interrupted`` with the steps it had (or as the
    ``ok``/``error`` run it was, when the worker had already sent its result or error), and
    its run file is marked. Returns the new history ids (empty when there was nothing to do).

    Call it where the history is shown (``rocmate report list``; the app, at start). A run of
    a live rocmate is left alone; a run started with ``--no-history`` is marked, not added.
    Raises :class:`OperationError` when the history cannot be written (the runs stay for the
    next call)."""
    system = system or LiveSystem()
    env = system.env()
    runs = runs_dir or default_runs_dir(env)
    path = history_path or default_path(env)
    history: History | None = None

    def keep(outcome: RunOutcome) -> list[int]:
        nonlocal history
        report = report_of(outcome, system, created=outcome.started or None)
        to_json(report)  # refuses (ReportError) what the history could not hold
        if history is None:
            history = History(path)
        ids, _new = history.insert_new(report)
        return ids

    try:
        found = recover(runs, keep, system)
    except (HistoryError, OSError) as exc:
        raise OperationError(t("ops.bench.recover-failed", "the runs rocmate stopped before "
                               "they ended could not be added to the history: {error}",
                               error=exc)) from exc
    finally:
        if history is not None:
            history.close()
    return [i for item in found for i in item.history_ids]


def known_bad_warnings(system: System | None = None) -> list[str]:
    """What to say before a long benchmark starts: the kernel, linux-firmware or ROCm release
    here is one public reports show hanging or crashing this machine's card
    (resources/data/known_bad.toml), one line each in the current language; [] when none is, or
    when the machine cannot be read. Reads the machine as the doctor does, without PyTorch."""
    from core.probe.facts import gather

    try:
        facts = gather(system or LiveSystem(), probe_torch=False)
    except Exception:  # a warning must never keep a run from starting
        return []
    return known_bad_from(facts)


def known_bad_from(facts: Facts) -> list[str]:
    """:func:`known_bad_warnings` from facts the doctor gathered already (the app's System check
    holds them): no second look at the machine."""
    from core.diagnose.known_bad import stack_warnings
    from core.knowledge.loader import load_knowledge

    try:
        return stack_warnings(facts, load_knowledge().known_bad)
    except Exception:  # a warning must never keep a run from starting
        return []


def baseline_request(request: BenchmarkRequest) -> BenchmarkRequest | None:
    """For a data-parallel run on more than one GPU, the same suite on one GPU through the same
    launcher (``--gpus 1``), run first and kept in the report beside it (not on its own in the
    history, nor in ``out``); None for any other run."""
    if request.options.gpus in (None, "1"):
        return None
    return replace(request, options=replace(request.options, gpus="1"), run_file=None,
                   out=None, history=False)


def run_benchmark(request: BenchmarkRequest, on_event: EventCallback | None = None,
                  system: System | None = None, *, interrupt_cancels: bool = True
                  ) -> BenchmarkResult:
    """Run to the end from synchronous code; with ``interrupt_cancels`` Ctrl-C (SIGINT) cancels
    the worker and the run ends as cancelled."""
    run = BenchmarkRun(request, on_event, system)
    return run_to_end(run, interrupt_cancels=interrupt_cancels)


def run_to_end(run: BenchmarkRun, *, interrupt_cancels: bool = True) -> BenchmarkResult:
    """``await run.run()`` in a fresh event loop (see :func:`run_benchmark`)."""

    async def main() -> BenchmarkResult:
        loop = asyncio.get_running_loop()
        if interrupt_cancels:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(signal.SIGINT, run.cancel)
        try:
            return await run.run()
        finally:
            if interrupt_cancels:
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.remove_signal_handler(signal.SIGINT)

    return asyncio.run(main())


def _cannot_write(path: Path) -> str | None:
    """Why the report could not be written to ``path``, found before the run rather than after
    it: a folder there, or a folder that cannot be written (tried for real with a file made and
    removed at once in the nearest folder that exists)."""
    if path.is_dir():
        return t("ops.bench.out-is-folder", "{option} {path} is a folder: name the report file",
                 option="--out", path=path)
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".rocmate-", suffix=".probe"):
            pass
    except OSError as exc:
        return t("ops.bench.out-unwritable", "{option} {path}: the report could not be written "
                 "there ({error}); choose a folder you can write to", option="--out", path=path,
                 error=exc.strerror or exc)
    return None


def _write_report(path: Path, text: str) -> str | None:
    """Write the report (its folder created); the reason when that failed."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        return t("ops.bench.report-not-written", "the report could not be written to {path}: "
                 "{error}", path=path, error=exc.strerror or exc)
    return None
