"""What the Benchmark page offers: the suite choices (resources/data/bench.toml) sized to the
card, how long each takes, and the worker options a choice with its settings runs.

A choice is one card on the page (the quick health check runs two suites: gemm, bandwidth). Its
default batch is the largest of a ladder whose memory estimate fits the card; its time is an
estimate from rocmate's own runs, said as "about"."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, replace

from core.bench.runner import EventCallback
from core.bench.worker.options import PARALLEL_SUITES, BenchOptions
from core.i18n import t
from core.knowledge.bench_choices import SuiteChoice, Table, load_table
from core.operations.benchmark import (
    BenchmarkRequest,
    BenchmarkResult,
    BenchmarkRun,
    rank_gpus,
)
from core.operations.errors import OperationError
from core.probe.facts import Facts
from core.report.history import History, HistoryError, default_path
from core.report.model import Report
from core.system import System

GB = 1e9  # the memory estimates' unit (PyTorch's peaks, measured)
GIB = 1 << 30  # a card's memory as its box says it ("24 GB")


@dataclass(frozen=True)
class SuitePlan:
    """A choice as sized for one card: the batch it starts with and why, and its time."""

    choice: SuiteChoice
    batch_size: int | None
    """None: the suite decides (gemm, bandwidth, the LLM's own fit)."""
    why: str
    estimate_s: float
    first_run_extra_s: float
    warning: str | None = None
    """A reason it may not fit (too little memory), or None."""


@dataclass(frozen=True)
class Settings:
    """The page's advanced settings (None: the suite's default)."""

    device: str = "cuda:0"
    size: str = "default"
    precision: str | None = None
    batch_size: int | None = None
    channels_last: bool = False
    compile: bool = False
    steps: int | None = None
    seconds: float | None = None
    model: str | None = None
    gpus: str | None = None
    """Data-parallel on this many GPUs (``all``) for the suites that have the mode; None: one."""


def size_choice(choice: SuiteChoice, memory_bytes: int | None, *, gpu: bool = True,
                tiny: bool = False, table: Table | None = None,
                shared: bool = False) -> SuitePlan:
    """``choice`` sized for a card with ``memory_bytes`` of VRAM (None: not known);
    ``shared``: an integrated GPU, whose memory is the system memory it may map (GTT,
    core.probe.gpus.work_memory)."""
    table = table or load_table()
    estimate = choice.seconds_tiny if tiny or not gpu else choice.seconds_gpu
    first = 0.0 if tiny or not gpu else choice.seconds_first
    batch, why, warning = choice.batch, t("ops.suites.why.default", "the suite's default"), None
    gb = memory_bytes / GB if memory_bytes else None
    # GiB, as the System check and every report say a card's memory (a "16 GB" card has 16 GiB)
    sold = f"{memory_bytes / GIB:.0f} GiB" if memory_bytes else ""
    if tiny:
        return SuitePlan(choice, None, t("ops.suites.why.tiny", "tiny shapes: the suite's own "
                                         "small batch"), estimate, 0.0)
    if not gpu:
        return SuitePlan(choice, None, t("ops.suites.why.cpu", "on the CPU: the suite's own small "
                                         "batch"), estimate, 0.0)
    if choice.per_item_gb is not None and choice.fixed_gb is not None:
        if gb is None:
            why = t("ops.suites.why.shared-unknown", "the suite's default (the GPU shares system "
                    "memory; how much it may use is not known)") if shared else t(
                "ops.suites.why.memory-unknown", "the suite's default (the card's memory is "
                "not known)")
        else:
            usable = gb * table.fit_fraction
            fits = [b for b in table.ladder
                    if choice.fixed_gb + choice.per_item_gb * b <= usable]
            if fits:
                batch = fits[-1]
                why = t("ops.suites.why.sized-shared", "sized to the {memory} of system "
                        "memory the GPU may use", memory=sold) if shared else t(
                    "ops.suites.why.sized", "sized to the card's {memory}", memory=sold)
            else:
                batch = table.ladder[0]
                warning = t("ops.suites.warning.too-little", "{memory} may be too little even for "
                            "batch {batch}; lower the batch in the settings if it runs out of "
                            "memory", memory=sold, batch=batch)
                why = t("ops.suites.why.smallest", "the smallest batch rocmate offers")
    if choice.min_gb is not None and gb is not None and gb < choice.min_gb:
        needed = f"{choice.min_gb * GB / GIB:.0f} GiB"
        warning = t("ops.suites.warning.needs-memory", "needs about {needed} of GPU memory; this "
                    "card has {memory} and may run out", needed=needed, memory=sold)
    return SuitePlan(choice, batch, why, estimate, first, warning)


def plan_choices(memory_bytes: int | None, *, gpu: bool = True, tiny: bool = False,
                 gpus: str | None = None, shared: bool = False) -> list[SuitePlan]:
    """Every choice of the page, sized for the card; ``gpus``: the data-parallel setting,
    whose suites run twice (one GPU first, for the scaling), which their time says;
    ``shared``: an integrated GPU (:func:`size_choice`)."""
    table = load_table()
    return [with_runs(size_choice(c, memory_bytes, gpu=gpu, tiny=tiny, table=table,
                                  shared=shared), gpus)
            for c in table.choices]


def with_runs(plan: SuitePlan, gpus: str | None) -> SuitePlan:
    """``plan`` with its time for ``gpus``: each data-parallel suite of the choice (with more
    than one GPU) runs once more, on one GPU, and takes its share of the estimate again."""
    suites = plan.choice.suites
    if gpus is None or gpus == "1" or not suites:
        return plan
    again = sum(suite in PARALLEL_SUITES for suite in suites)
    return replace(plan, estimate_s=plan.estimate_s * (len(suites) + again) / len(suites))


def options_for(plan: SuitePlan, settings: Settings) -> list[BenchOptions]:
    """The worker options of each suite the choice runs, with the page's settings."""
    batch = settings.batch_size or plan.batch_size
    out = []
    for suite in plan.choice.suites:
        base = BenchOptions(suite=suite, device=settings.device, size=settings.size,
                            steps=settings.steps, seconds=settings.seconds,
                            precision=settings.precision, batch_size=batch,
                            compile=settings.compile, model=settings.model,
                            channels_last=settings.channels_last and suite == "resnet50-train",
                            ).for_suite()  # only the options this suite takes
        if settings.gpus is not None and suite in PARALLEL_SUITES:
            if settings.gpus != "1":  # one GPU first, through the same launcher: the scaling
                out.append(replace(base, gpus="1"))
            base = replace(base, gpus=settings.gpus)
        out.append(base)
    return out



@dataclass
class SequenceResult:
    """What a sequence of suites left: each suite's result, in order (a cancelled or failed
    suite ends the sequence), and one report of every run for the results page."""

    results: list[BenchmarkResult]
    report: Report

    @property
    def status(self) -> str:
        """ok when every suite ran to its end, else the status of the one that did not."""
        for result in self.results:
            if result.status != "ok":
                return result.status
        return "ok"

    @property
    def history_ids(self) -> list[int]:
        return [i for r in self.results for i in r.history_ids]

    @property
    def problems(self) -> list[str]:
        """What could not be kept (report file, history), in words."""
        return [p for r in self.results for p in (r.out_error, r.history_error) if p]


class SuiteSequence:
    """Runs several suites one after the other (the health check: gemm, then bandwidth), each
    through :class:`BenchmarkRun`; ``cancel()`` stops the one running and the rest.

    ``on_start(index, run)`` is called as each suite's run starts; ``on_event`` gets every event
    of every run."""

    def __init__(self, requests: list[BenchmarkRequest], *,
                 on_event: EventCallback | None = None,
                 on_start: Callable[[int, BenchmarkRun], None] | None = None,
                 system: System | None = None, facts: Facts | None = None,
                 groups: list[int] | None = None) -> None:
        """``facts``: the machine as the doctor read it (the app's System check), for a
        data-parallel run's GPUs (core.operations.benchmark.rank_gpus); read when such a run
        needs them and none are given. ``groups``: how many requests in a row make one choice
        (the health check's two suites: 2; :func:`choice_requests`), each choice one row in
        the history (each run is stored as it ends, so none is lost, and the rows of one
        choice become one as the next of its runs ends); default: each request its own."""
        if not requests:
            raise OperationError(t("ops.suites.none-chosen", "choose at least one benchmark"),
                                 status=2)
        if groups is not None and (sum(groups) != len(requests) or min(groups) < 1):
            raise ValueError(f"groups {groups} do not cover {len(requests)} requests")
        self.groups = groups or [1] * len(requests)
        problems = [p for r in requests for p in r.problems()]
        if facts is not None:  # more ranks than GPUs: said before any suite starts
            problems += [p for r in requests if (p := rank_gpus(r.options, facts).problem)]
        if problems:
            raise OperationError("; ".join(dict.fromkeys(problems)), status=2)
        self.requests = requests
        self.on_event = on_event
        self.on_start = on_start
        self.system = system
        self.facts = facts
        self.current: BenchmarkRun | None = None
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True
        if self.current is not None:
            self.current.cancel()

    async def run(self) -> SequenceResult:
        results: list[BenchmarkResult] = []
        starts = [sum(self.groups[:i]) for i in range(len(self.groups))]
        for index, request in enumerate(self.requests):
            if self.cancelled:
                break
            run = BenchmarkRun(request, self.on_event, self.system, facts=self.facts)
            self.facts = run.facts  # read once for the sequence
            self.current = run
            if self.on_start is not None:
                self.on_start(index, run)
            result = await run.run()
            results.append(result)
            first = max(s for s in starts if s <= index)  # this choice's first request
            if index > first:
                await asyncio.to_thread(_one_row, results[first:], run)
            if result.status != "ok":
                break
        self.current = None
        if not results:
            raise OperationError(t("ops.suites.cancelled-before-start", "the benchmark was "
                                   "cancelled before it started"), status=130)
        return SequenceResult(results, combined([r.report for r in results]))


def _one_row(results: list[BenchmarkResult], run: BenchmarkRun) -> None:
    """The history rows of one choice's runs so far made one row of their combined report
    (the ids then on the last result alone). Where a run was not stored, or the rows cannot
    be merged, they stay as they are (nothing is lost) and the last result says why."""
    ids = [i for r in results for i in r.history_ids]
    request = run.request
    if not request.history or len(ids) < 2 or any(r.history_error for r in results):
        return
    path = request.history_path or default_path(run.system.env())
    try:
        with History(path) as history:
            merged = history.merge(ids, combined([r.report for r in results]))
    except (HistoryError, OSError, KeyError) as exc:
        results[-1].history_error = t(
            "ops.suites.rows-not-merged", "the runs of one choice stay as {count} rows in the "
            "history: {error}", count=len(ids), error=exc)
        return
    for r in results:
        r.history_ids = []
    results[-1].history_ids = [merged]


def choice_requests(plans: list[SuitePlan], settings: Settings,
                    request: Callable[[BenchOptions], BenchmarkRequest]
                    ) -> tuple[list[BenchmarkRequest], list[int]]:
    """The requests of the chosen cards, in order, and how many belong to each card (the
    ``groups`` of :class:`SuiteSequence`)."""
    per_plan = [[request(o) for o in options_for(plan, settings)] for plan in plans]
    return [r for rs in per_plan for r in rs], [len(rs) for rs in per_plan]


def combined(reports: list[Report]) -> Report:
    """One report of the runs of several (the machine and software of the first: the suites
    of one sequence ran in the same Python on the same machine)."""
    first = reports[0]
    if len(reports) == 1:
        return first
    return replace(first, runs=[run for report in reports for run in report.runs])


def prepare_reports() -> None:
    """Import and load, once, what making a run's report needs (the machine's probes, the
    knowledge base, the error texts handed to the worker): the first run and its report then
    do not pay for it while a window shows the run live. Cached: later calls cost nothing."""
    from core.bench.failures import failure_patterns
    from core.knowledge.vendors import load_vendors
    from core.probe import gpus, platform  # noqa: F401  (the modules a report's machine needs)

    failure_patterns()  # loads the knowledge base (cached)
    load_vendors()
