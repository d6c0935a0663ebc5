"""The measuring loop every suite shares: warm-up until step times settle, then a measured phase.

Each step is timed between device synchronisations, so a step's time is the device's time for
that step. Every step, warm-up included, is reported as a ``step`` event as it ends.

Worker side: standard library, torch (through :mod:`core.bench.worker.device`) and core.bench only.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from core.bench.worker.device import Device
from core.bench.worker.options import BenchOptions
from core.bench.worker.parallel import Ranks
from core.bench.worker.protocol import Emitter
from core.bench.worker.stats import PerStep, SettleRule, figure, step_figures, summarize

__all__ = ["Harness", "Options", "PartResult", "PerStep", "Workload", "figure"]


@dataclass(frozen=True)
class Options(BenchOptions):
    """The options after the suite's defaults were filled in: the fields of
    :class:`BenchOptions` (narrowed where a default is now known), and whether the user chose the
    batch (suites may lower a default one)."""

    precision: str | None = "fp32"  # None where it does not apply (gemm, bandwidth)
    batch_size: int = 1
    seed: int = 0
    batch_size_given: bool = False

    @classmethod
    def resolve(cls, given: BenchOptions, *, precision: str | None, batch_size: int,
                device: str) -> Options:
        """``given`` with the suite's defaults and the resolved device filled in."""
        values = {**given.settings(), "precision": precision, "batch_size": batch_size,
                  "device": device, "seed": given.seed or 0}
        return cls(**values, batch_size_given=given.batch_size is not None)

    @property
    def tiny(self) -> bool:
        return self.size == "tiny"

    def settings(self) -> dict[str, Any]:
        """The options as reported in ``hello`` and ``result``."""
        d = asdict(self)
        d.pop("batch_size_given")
        return d


StepFn = Callable[[], "dict[str, float] | None"]


@dataclass
class Workload:
    """One thing to time: a step function and what a step produces."""

    step: StepFn
    items: int  # items (images, tokens, bytes, FLOPs ...) per step
    unit: str  # throughput unit, e.g. "images/s"
    part: str | None = None  # sub-benchmark name (gemm dtype, copy direction)
    settle: SettleRule = field(default_factory=SettleRule)
    min_warmup_steps: int = 3
    max_warmup_steps: int = 50
    max_warmup_s: float = 300.0  # after this, measure anyway and report "not settled"
    min_steps: int = 10
    default_seconds: float = 10.0
    max_steps: int = 100_000
    first_step: str | None = None
    """What the first step does beyond a step, in words ("compiling the model
    (torch.compile)"): sent as the warm-up phase's ``what``."""
    figures: dict[str, PerStep] = field(default_factory=dict)
    """The figures made of each measured step (default: ``throughput`` in ``unit``), sent on
    the measure phase: a run cut short gets its result from its steps the same way
    (core.bench.partial)."""
    headline: str | None = None
    """The figure to quote (default: the first of ``figures``)."""

    def specs(self, world: int = 1) -> dict[str, PerStep]:
        """The per-step figures, ``throughput`` of every rank's items when none is named."""
        return self.figures or {"throughput": PerStep(self.unit, float(self.items * world))}


@dataclass
class PartResult:
    """What the harness measured for one workload. In a data-parallel run ``times`` are the
    slowest rank's and ``items`` all ranks' together; ``rank_times`` has each rank's times."""

    times: list[float]
    items: int
    series: dict[str, list[float]]
    warmup: dict[str, Any]
    measure: dict[str, Any]
    rank_times: list[list[float]] = field(default_factory=list)

    specs: dict[str, PerStep] = field(default_factory=dict)
    warmup_times: list[float] = field(default_factory=list)
    """The warm-up steps' times, in order (gemm's burst is its first steps on a rested card)."""

    def throughputs(self) -> list[float]:
        return [self.items / t for t in self.times if t > 0]

    def figures(self) -> dict[str, dict[str, Any]]:
        """The workload's per-step figures of the measured steps (:func:`step_figures`, which
        the parent uses for a run cut short)."""
        return step_figures(self.specs, self.times, self.series)

    def per_gpu_throughputs(self) -> list[float]:
        """Each rank's own items per second, every rank's steps together."""
        world = len(self.rank_times) or 1
        per_rank = self.items / world
        return [per_rank / t for times in self.rank_times for t in times if t > 0]


class Harness:
    """Runs workloads with the warm-up rule and emits ``phase`` and ``step`` events."""

    def __init__(self, emitter: Emitter, device: Device, options: Options,
                 ranks: Ranks | None = None) -> None:
        self.emitter = emitter
        self.device = device
        self.options = options
        self.ranks = ranks
        self.started = time.perf_counter()
        self._clock = 0.0  # a data-parallel phase's elapsed seconds, as every rank agreed
        self._rank_dts: list[float] = []  # each rank's time of the last step
        self.rank_times: list[list[float]] = []  # each rank's measured step times
        self.warmup_times: list[float] = []  # the last warm-up's step times

    @property
    def world(self) -> int:
        return self.ranks.world if self.ranks else 1

    def data_parallel(self, model: Any) -> Any:
        """``model`` under DistributedDataParallel in a data-parallel run of two ranks or more,
        else itself: one rank has no gradients to average, and DDP's buckets and all-reduce
        would cost it about 5 % (measured on an H200), so ``--gpus 1``, the baseline of the
        scaling, is the card's own speed."""
        if self.ranks is None or self.ranks.world < 2:
            return model
        from core.bench.worker import parallel

        return parallel.wrap(model, self.device.torch_device)

    def parallel_part(self, part: PartResult, unit: str) -> tuple[dict[str, Any],
                                                                    dict[str, Any]]:
        """The figures and details a data-parallel run adds to its suite's result: the
        throughput of each GPU (every rank's steps) beside the total, and each rank's median;
        nothing for a plain run."""
        if not self.ranks or not part.rank_times:
            return {}, {}
        per_rank = part.items / self.world
        medians = [summarize([per_rank / t for t in times if t > 0]).median
                   for times in part.rank_times]
        return ({"throughput_per_gpu": figure(part.per_gpu_throughputs(), unit)},
                {"data_parallel": "DistributedDataParallel" if self.world > 1
                 else "one rank: no DistributedDataParallel", "world_size": self.world,
                 "rank_throughput": medians})

    def _elapsed(self, t_start: float) -> float:
        """Seconds since ``t_start``; in a data-parallel run the slowest rank's, as of the last
        step, so that every rank ends its phases after the same step."""
        return self._clock if self.ranks else time.perf_counter() - t_start

    def _step(self, w: Workload, t_start: float) -> tuple[float, dict[str, float]]:
        """One timed step; in a data-parallel run the slowest rank's time (every rank gets
        every rank's, after the timing)."""
        dt, extra = self.timed_step(w.step)
        if self.ranks:
            from core.bench.worker import parallel

            agreed = parallel.agree([dt, time.perf_counter() - t_start],
                                    self.device.torch_device)
            self._rank_dts = [values[0] for values in agreed]
            dt, self._clock = max(self._rank_dts), max(values[1] for values in agreed)
            parallel.stepped()
        return dt, extra

    def setup(self, what: str, part: str | None = None) -> None:
        """Say what the suite prepares before its first step, in plain words ("building the
        model", "allocating the matrices"): a ``phase`` ``setup`` event."""
        self.emitter.setup(what, part=part)

    def timed_step(self, fn: StepFn) -> tuple[float, dict[str, float]]:
        """One step: its seconds up to the device synchronisation after it, and its figures."""
        t0 = time.perf_counter()
        extra = fn() or {}
        self.device.sync()
        return time.perf_counter() - t0, extra

    def _emit_step(self, w: Workload, phase: str, index: int, dt: float,
                   extra: dict[str, float]) -> None:
        items = w.items * self.world
        fields: dict[str, Any] = {
            "phase": phase,
            "index": index,
            "seconds": dt,
            "items": items,
            "throughput": items / dt if dt > 0 else None,
            "unit": w.unit,
            "t": time.perf_counter() - self.started,
        }
        if w.part:
            fields["part"] = w.part
        fields.update(extra)
        if self.ranks:  # each rank's own step time: rank0_s, rank1_s, ...
            fields.update({f"rank{i}_s": t for i, t in enumerate(self._rank_dts)})
        self.emitter.emit("step", **fields)

    def _phase(self, phase: str, w: Workload, **fields: Any) -> None:
        if w.part:
            fields["part"] = w.part
        self.emitter.emit("phase", phase=phase, t=time.perf_counter() - self.started, **fields)

    def warmup(self, w: Workload) -> dict[str, Any]:
        """Warm up: a fixed number of steps if asked, else until step times settle."""
        if w.first_step:
            self._phase("warmup", w, what=w.first_step)
        else:
            self._phase("warmup", w)
        self.device.sync()
        forced = self.options.warmup_steps is not None
        times: list[float] = []
        t_start = time.perf_counter()
        self._clock = 0.0
        settled = False
        while True:
            if forced:
                if len(times) >= (self.options.warmup_steps or 0):
                    break
            else:
                if len(times) >= w.min_warmup_steps and w.settle.settled(times):
                    settled = True
                    break
                elapsed = self._elapsed(t_start)
                if len(times) >= w.max_warmup_steps or (
                    len(times) >= 2 and elapsed >= w.max_warmup_s
                ):
                    break
            dt, extra = self._step(w, t_start)
            times.append(dt)
            self._emit_step(w, "warmup", len(times) - 1, dt, extra)
        self.warmup_times = times
        return {
            "steps": len(times),
            "seconds": time.perf_counter() - t_start,
            "first_step_s": times[0] if times else None,
            "settled": settled if not forced else None,
            "forced": forced,
        }

    def measure(self, w: Workload) -> tuple[list[float], dict[str, list[float]], float]:
        """The measured phase: exactly ``--steps`` steps, else ``--seconds`` (at least
        ``min_steps``)."""
        fixed = self.options.steps
        seconds = self.options.seconds if self.options.seconds is not None else w.default_seconds
        times: list[float] = []
        series: dict[str, list[float]] = {}
        t_start = time.perf_counter()
        self._clock = 0.0
        self.rank_times = [[] for _ in range(self.world)] if self.ranks else []
        while True:
            n = len(times)
            if fixed is not None:
                if n >= fixed:
                    break
            elif n >= w.max_steps or (
                n >= w.min_steps and self._elapsed(t_start) >= seconds
            ):
                break
            dt, extra = self._step(w, t_start)
            times.append(dt)
            for rank, rank_dt in enumerate(self._rank_dts if self.ranks else []):
                self.rank_times[rank].append(rank_dt)
            for k, v in extra.items():
                if isinstance(v, (int, float)):
                    series.setdefault(k, []).append(float(v))
            self._emit_step(w, "measure", n, dt, extra)
        return times, series, time.perf_counter() - t_start

    def run(self, w: Workload) -> PartResult:
        """Warm up, then measure one workload."""
        warm = self.warmup(w)
        specs = w.specs(self.world)
        self._phase("measure", w, warmup=warm, headline=w.headline or next(iter(specs)),
                    figures={name: spec.to_json() for name, spec in specs.items()})
        times, series, wall = self.measure(w)
        if not times:
            raise ValueError("the measured phase needs at least one step (--steps >= 1)")
        items = w.items * self.world
        return PartResult(
            times=times,
            items=items,
            series=series,
            warmup=warm,
            measure={"steps": len(times), "seconds": wall, "items": items * len(times)},
            rank_times=self.rank_times if self.ranks else [],
            specs=specs,
            warmup_times=list(self.warmup_times),
        )
