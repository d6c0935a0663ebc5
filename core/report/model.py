"""The ``rocmate.report/1`` model: dataclasses, ``to_json``/``from_json`` and validation.

A report holds the tool version, the time, the machine (doctor's platform and GPUs, without user
or host names), the software, and for each suite run its settings, result, raw step series and
telemetry series. HTML and Markdown are rendered from this JSON and hold nothing that is not in it.

Readers accept unknown keys (later 1.x writers may add some) but refuse other schemas with an
error that says what the file is.

A report may be a stranger's file, so reading one refuses (with :class:`ReportError`, saying
where) anything a renderer could not take: ``NaN``/``Infinity``, a number beyond ±1e15 (see
``MAX_NUMBER``), an object key given twice, nesting deeper than ``MAX_DEPTH``, a ``created`` or
``started`` that is not an ISO 8601 time between 1970 and 9999; and in a file (``from_json``)
more than ``MAX_STEPS`` steps or ``MAX_SAMPLES`` telemetry samples in a run.
"""

from __future__ import annotations

import copy
import datetime as _dt
import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, TypeVar

from core.i18n import t
from core.report.columns import build, look, looks_kept
from core.report.pause import collector_paused

SCHEMA_FAMILY = "rocmate.report"
SCHEMA_VERSION = 1
SCHEMA = f"{SCHEMA_FAMILY}/{SCHEMA_VERSION}"

STATUSES = ("ok", "error", "cancelled", "interrupted")
"""A run's status: ``ok`` measured; ``error`` failed; ``cancelled`` stopped by the user;
``interrupted`` (added in 1.x) rocmate itself stopped before the run ended (a crash, a closed
window): rebuilt later from its run file, with the steps it had (core.bench.recover)."""

PEAK_SUFFIX = "_peak"
"""A figure named ``<name>_peak`` is the peak rate (the first burst) beside the sustained
``<name>``: gemm's ``tflops_bf16_peak`` beside ``tflops_bf16`` (added in 1.x)."""

# Limits on what a report may hold (a real one is far inside each):
MAX_NUMBER = 1e15  # |v| of every number: bytes of memory (~1e11), FLOPs per item (~1e11),
#                    a cumulative energy counter in J (~1e10) all fit; 1e16 loses unit steps
MAX_DEPTH = 32  # objects and lists nested in one another, counted from the top (a real one: 8)
# per run, in a report file read from elsewhere (from_json):
MAX_STEPS = 200_000  # the harness stops a timed phase at 100,000 measured steps
MAX_SAMPLES = 200_000  # telemetry samples: 27 hours at the runner's 0.5 s
_MAX_INT_DIGITS = 20  # a longer integer literal is refused before Python parses it

T = TypeVar("T")


class ReportError(ValueError):
    """A file that is not a readable rocmate.report/1 (the message says why and where)."""


@dataclass
class Figure:
    """A measured figure: the summary of a per-step series (``median`` is the value to quote)."""

    unit: str
    median: float
    p10: float | None = None
    p90: float | None = None
    mean: float | None = None
    min: float | None = None
    max: float | None = None
    cv: float | None = None
    n: int = 1
    higher_is_better: bool = True


@dataclass
class Warmup:
    steps: int
    seconds: float
    first_step_s: float | None = None
    settled: bool | None = None  # None when the warm-up length was forced
    forced: bool = False


@dataclass
class Measure:
    steps: int
    seconds: float
    items: int


@dataclass
class Interruption:
    """A result made of the measured steps of a run cut short (added in 1.x; absent from a
    run that ended): its run's status says how it ended, its error why."""

    measured_steps: int  # the measured steps of the part the headline describes
    planned_steps: int | None = None  # --steps; None when the phase was timed (--seconds)


@dataclass
class SuiteResult:
    headline: str  # key into figures
    figures: dict[str, Figure]
    warmup: Warmup
    measure: Measure
    peak_memory_bytes: int | None = None
    peak_memory_reserved_bytes: int | None = None
    details: dict[str, Any] = field(default_factory=dict)
    interrupted: Interruption | None = None  # written only when set: older reports unchanged

    @property
    def headline_figure(self) -> Figure:
        return self.figures[self.headline]

    def peak_of(self, name: str) -> Figure | None:
        """The peak (first-burst) figure measured beside figure ``name``, if any."""
        return self.figures.get(name + PEAK_SUFFIX)

    def peak_is_burst(self, name: str) -> bool:
        """Whether the peak beside ``name`` is a burst on a rested card (gemm since issue 39:
        warm-up steps 1-4, ``details.parts.<dtype>.burst_warmup_steps``) rather than the best
        steps in a row of the measured phase (older reports, or a warm-up forced short)."""
        parts = self.details.get("parts")
        info = parts.get(name.removeprefix("tflops_")) if isinstance(parts, dict) else None
        return isinstance(info, dict) and "burst_warmup_steps" in info


@dataclass
class Step:
    phase: str  # warmup | measure
    index: int
    seconds: float
    items: int
    t: float | None = None  # seconds since the run started (the parent's clock, as telemetry)
    part: str | None = None
    figures: dict[str, float] = field(default_factory=dict)


@dataclass
class TelemetrySample:
    t: float  # seconds since the run started
    busy_pct: float | None = None
    vram_used_bytes: int | None = None
    vram_total_bytes: int | None = None
    power_w: float | None = None
    temps_c: dict[str, float] = field(default_factory=dict)
    clocks_mhz: dict[str, float] = field(default_factory=dict)
    energy_j: float | None = None  # a cumulative energy counter where the driver has one


@dataclass
class ErrorInfo:
    kind: str  # oom | no-gpu | no-binary-for-gpu | missing-package | interrupted | other
    message: str
    advice: str
    detail: str = ""
    source: str = "worker"  # worker | parent (the worker died without saying why)


@dataclass
class Energy:
    joules: float
    per_item_j: float
    item_unit: str  # image | token | ...
    mean_power_w: float | None
    method: str  # energy-counter | power-integral


@dataclass
class PowerSource:
    """What the run's power was read from (added in 1.x; absent from older reports)."""

    sampler: str  # amdgpu-sysfs | nvml (core.bench.telemetry's sampler kinds)
    power: str | None = None  # "hwmon power1_average", "nvmlDeviceGetPowerUsage"
    energy: str | None = None  # a cumulative counter: "nvmlDeviceGetTotalEnergyConsumption"
    inferred: bool = False  # not recorded: the sampler rocmate opens for the run's backend


@dataclass
class Efficiency:
    """A figure per watt over the measured window of its part (core.report.efficiency)."""

    figure: str  # the rate divided: throughput | decode_throughput | tflops_bf16 | ...
    part: str | None  # the part of the run measured (decode, prefill, bf16), None = all steps
    per_watt: float  # the figure's median / mean_power_w
    unit: str  # "images/s/W", "tokens/s/W", "TFLOP/s/W"
    mean_power_w: float
    joules: float  # the energy of the window
    window_s: float  # the measured steps' seconds
    samples: int  # telemetry samples used
    coverage: float  # the share of the window the samples span
    method: str  # energy-counter | power-samples
    source: str  # the sampler: amdgpu-sysfs | nvml | unknown
    reading: str | None = None  # what it read: "hwmon power1_average", NVML's counter
    items: int | None = None  # images or tokens in the window
    per_item_j: float | None = None  # joules per image / token
    item_unit: str | None = None  # image | token


@dataclass
class Reference:
    """The card's datasheet peaks and how close the run came (gemm/bandwidth health check)."""

    name: str | None = None
    source: str | None = None
    peaks: dict[str, float] = field(default_factory=dict)  # figure -> peak, same unit
    fractions: dict[str, float] = field(default_factory=dict)  # figure -> measured / peak
    note: str | None = None  # e.g. why no peak is known


@dataclass
class DeviceInfo:
    name: str
    backend: str  # hip | cuda | cpu
    arch: str | None = None
    pci_bus_id: str | None = None
    pci_id: str | None = None  # vendor:device, "10de:2335"
    total_memory_bytes: int | None = None


@dataclass
class SuiteRun:
    suite: str
    status: str  # ok | error | cancelled | interrupted (see STATUSES)
    started: str  # ISO 8601, UTC
    duration_s: float
    settings: dict[str, Any]
    device: DeviceInfo | None = None
    result: SuiteResult | None = None
    error: ErrorInfo | None = None
    energy: Energy | None = None
    reference: Reference | None = None
    steps: list[Step] = field(default_factory=list)
    telemetry: list[TelemetrySample] = field(default_factory=list)
    efficiency: list[Efficiency] = field(default_factory=list)  # written only when known
    power_source: PowerSource | None = None  # written only when known


@dataclass
class Machine:
    platform: dict[str, Any] = field(default_factory=dict)
    gpus: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Driver:
    """The GPU kernel driver of the machine's run device (absent from older reports)."""

    name: str  # amdgpu | nvidia
    version: str | None = None  # "6.10.5" (amdgpu-dkms), "580.159.03"; None for in-tree amdgpu
    source: str | None = None  # dkms | in-tree | nvidia (NVIDIA's own module)
    kernel: str | None = None  # the kernel release it runs under, "6.8.0-45-generic"


@dataclass
class Software:
    python: str | None = None
    torch: str | None = None
    hip: str | None = None
    cuda: str | None = None
    rocm: str | None = None
    packages: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    driver: Driver | None = None  # written only when known: older reports stay byte-identical


@dataclass
class Report:
    tool_version: str
    created: str  # ISO 8601, UTC
    machine: Machine
    software: Software
    runs: list[SuiteRun]
    tool: str = "rocmate"
    schema: str = SCHEMA
    scrubbed_for: object = field(default=None, repr=False, compare=False)
    """Set by core.report.privacy on a report it scrubbed: the names it was scrubbed of. Not
    part of the report's JSON."""


# --- writing ------------------------------------------------------------------------------------


def to_dict(report: Report) -> dict[str, Any]:
    d = _plain(report)
    d.pop("scrubbed_for", None)  # privacy's own note, not the report's
    if d["software"].get("driver") is None:  # an optional 1.x addition: absent, not null
        d["software"].pop("driver", None)
    for run in d["runs"]:  # the same for a result's interruption
        if run.get("result") is not None and run["result"].get("interrupted") is None:
            run["result"].pop("interrupted", None)
        if not run.get("efficiency"):  # 1.x additions: absent, not empty or null
            run.pop("efficiency", None)
        if run.get("power_source") is None:
            run.pop("power_source", None)
    return {"schema": d.pop("schema"), **d}


def _plain(value: Any) -> Any:
    """``dataclasses.asdict`` for a report, without its deep copy of every number: containers
    are new, the strings and numbers in them are shared (they cannot change)."""
    kind = type(value)
    if kind is list or kind is tuple:
        flat = _plain_series(value)
        if flat is not None:
            return flat
        return [v if type(v) in _LEAVES else _plain(v) for v in value]
    if kind is dict:
        return {k: v if type(v) in _LEAVES else _plain(v) for k, v in value.items()}
    if kind in _LEAVES:
        return value
    names = _FIELD_NAMES.get(kind)
    if names is None and is_dataclass(value) and not isinstance(value, type):
        names = _FIELD_NAMES[kind] = tuple(f.name for f in fields(value))
    if names is not None:
        out = {}
        for name in names:
            v = getattr(value, name)
            out[name] = v if type(v) in _LEAVES else _plain(v)
        return out
    return copy.deepcopy(value)


_LEAVES = (str, int, float, bool, type(None))
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _plain_series(items: list[Any] | tuple[Any, ...]) -> list[dict[str, Any]] | None:
    """A run's steps or telemetry (150,000 of them in a long run) from their ``__dict__``:
    their fields are strings and numbers (left as they are) and dicts (made plain); None for
    any other list."""
    if not items or type(items[0]) not in _SERIES:
        return None
    kind = type(items[0])
    count, maps = _SERIES[kind]
    out = []
    for item in items:
        if type(item) is not kind:
            return None
        d = item.__dict__.copy()
        if len(d) != count:  # an attribute a caller added
            return None
        for name in maps:
            v = d[name]
            d[name] = {} if type(v) is dict and not v else _plain(v)
        out.append(d)
    return out


_SERIES: dict[type, tuple[int, tuple[str, ...]]] = {
    cls: (len(fields(cls)), tuple(f.name for f in fields(cls) if f.default_factory is dict))
    for cls in (Step, TelemetrySample)
}
"""The series dataclasses: how many fields, and which are dicts."""


def to_json(report: Report, *, indent: int | None = 2) -> str:
    validate(report)
    with collector_paused():  # to_dict's copies form a tree: no cycles to look for
        return data_to_json(to_dict(report), indent=indent)


def data_to_json(data: dict[str, Any], *, indent: int | None = 2) -> str:
    """A validated report's :func:`to_dict` as the JSON text :func:`to_json` writes."""
    return json.dumps(data, indent=indent, allow_nan=False, ensure_ascii=False,
                      check_circular=False)


def validate(report: Report) -> None:
    """Checks a writer can get wrong; raises ReportError."""
    if report.schema != SCHEMA:
        raise ReportError(f"report.schema is {report.schema!r}, this writer writes {SCHEMA}")
    for i, run in enumerate(report.runs):
        where = f"report.runs[{i}]"
        if run.status not in STATUSES:
            raise ReportError(f"{where}.status: {run.status!r} is not one of {STATUSES}")
        if run.status == "ok" and run.result is None:
            raise ReportError(f"{where}: status ok needs a result")
        if run.status != "ok" and run.error is None:
            raise ReportError(f"{where}: status {run.status} needs an error")
        if run.result and run.result.headline not in run.result.figures:
            raise ReportError(f"{where}.result.headline {run.result.headline!r} is not a figure")


# --- reading ------------------------------------------------------------------------------------


class _R:
    """Typed access to one JSON object, with the path in every error."""

    def __init__(self, data: Any, path: str) -> None:
        if not isinstance(data, dict):
            raise ReportError(f"{path}: expected an object, got {type(data).__name__}")
        self.d = data
        self.path = path

    def _get(self, key: str, types: tuple[type, ...], required: bool, what: str) -> Any:
        if key not in self.d or self.d[key] is None:
            if required:
                raise ReportError(f"{self.path}.{key}: missing")
            return None
        v = self.d[key]
        if isinstance(v, bool) and bool not in types:
            raise ReportError(f"{self.path}.{key}: expected {what}, got {v!r}")
        if not isinstance(v, types):
            raise ReportError(f"{self.path}.{key}: expected {what}, got {v!r:.60}")
        return v

    def text(self, key: str) -> str:
        return self._get(key, (str,), True, "a string")

    def otext(self, key: str) -> str | None:
        return self._get(key, (str,), False, "a string")

    def num(self, key: str) -> float:
        return float(self._get(key, (int, float), True, "a number"))

    def onum(self, key: str) -> float | None:
        v = self._get(key, (int, float), False, "a number")
        return None if v is None else float(v)

    def time(self, key: str) -> str:
        """An ISO 8601 time (kept as written) that every writer can show in UTC."""
        v = self.text(key)
        try:
            t = _dt.datetime.fromisoformat(v)
            if t.tzinfo is not None:
                t = t.astimezone(_dt.timezone.utc)  # OverflowError near year 1 and 9999
            ok = 1970 <= t.year <= 9999
        except (ValueError, OverflowError):
            ok = False
        if not ok:
            raise ReportError(f"{self.path}.{key}: {v!r:.60} is not an ISO 8601 time between "
                              "1970 and 9999")
        return v

    def integer(self, key: str) -> int:
        v = self._get(key, (int, float), True, "an integer")
        if float(v) != int(v):
            raise ReportError(f"{self.path}.{key}: expected an integer, got {v!r}")
        return int(v)

    def ointeger(self, key: str) -> int | None:
        return None if self.d.get(key) is None else self.integer(key)

    def flag(self, key: str, default: bool | None = None) -> bool | None:
        v = self._get(key, (bool,), False, "true or false")
        return default if v is None else bool(v)

    def mapping(self, key: str) -> dict[str, Any]:
        return self._get(key, (dict,), False, "an object") or {}

    def seq(self, key: str) -> list[Any]:
        return self._get(key, (list,), False, "a list") or []

    def sub(self, key: str) -> _R:
        return _R(self.d.get(key), f"{self.path}.{key}")

    def osub(self, key: str, fn: Callable[[_R], T]) -> T | None:
        if self.d.get(key) is None:
            return None
        return fn(self.sub(key))

    def items(self, key: str, fn: Callable[[_R], T]) -> list[T]:
        return [fn(_R(v, f"{self.path}.{key}[{i}]")) for i, v in enumerate(self.seq(key))]

    def num_map(self, key: str) -> dict[str, float]:
        out: dict[str, float] = {}
        for k, v in self.mapping(key).items():
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise ReportError(f"{self.path}.{key}.{k}: expected a number, got {v!r:.60}")
            out[str(k)] = float(v)
        return out

    def str_map(self, key: str) -> dict[str, str]:
        return {str(k): str(v) for k, v in self.mapping(key).items() if v is not None}


def _figure(r: _R) -> Figure:
    return Figure(unit=r.text("unit"), median=r.num("median"), p10=r.onum("p10"),
                  p90=r.onum("p90"), mean=r.onum("mean"), min=r.onum("min"), max=r.onum("max"),
                  cv=r.onum("cv"), n=r.ointeger("n") or 1,
                  higher_is_better=bool(r.flag("higher_is_better", True)))


def _result(r: _R) -> SuiteResult:
    figs = r.mapping("figures")
    figures = {str(k): _figure(_R(v, f"{r.path}.figures.{k}")) for k, v in figs.items()}
    w = r.sub("warmup")
    m = r.sub("measure")
    res = SuiteResult(
        headline=r.text("headline"),
        figures=figures,
        warmup=Warmup(steps=w.integer("steps"), seconds=w.num("seconds"),
                      first_step_s=w.onum("first_step_s"), settled=w.flag("settled"),
                      forced=bool(w.flag("forced", False))),
        measure=Measure(steps=m.integer("steps"), seconds=m.num("seconds"),
                        items=m.integer("items")),
        peak_memory_bytes=r.ointeger("peak_memory_bytes"),
        peak_memory_reserved_bytes=r.ointeger("peak_memory_reserved_bytes"),
        details=r.mapping("details"),
        interrupted=r.osub("interrupted", lambda i: Interruption(
            measured_steps=i.integer("measured_steps"),
            planned_steps=i.ointeger("planned_steps"))),
    )
    if res.headline not in figures:
        raise ReportError(f"{r.path}.headline: {res.headline!r} is not one of the figures")
    return res


def _driver(r: _R) -> Driver:
    return Driver(name=r.text("name"), version=r.otext("version"), source=r.otext("source"),
                  kernel=r.otext("kernel"))


def _step(r: _R) -> Step:
    d: dict[str, Any] = r.d
    phase, index, items, t, part = d.get("phase"), d.get("index"), d.get("items"), d.get("t"), \
        d.get("part")
    seconds: Any = d.get("seconds")
    figures: Any = d.get("figures")
    # the usual step, checked in one expression (150,000 of them in a long run)
    if (type(phase) is str and type(index) is int and type(seconds) in _NUMBER
            and type(items) is int and (t is None or type(t) in _NUMBER)
            and (part is None or type(part) is str)
            and (not figures or (type(figures) is dict
                                 and all(type(v) in _NUMBER for v in figures.values())))):
        return Step(phase, index, float(seconds), items, None if t is None else float(t), part,
                    {str(k): float(v) for k, v in figures.items()} if figures else {})
    return Step(phase=r.text("phase"), index=r.integer("index"), seconds=r.num("seconds"),
                items=r.integer("items"), t=r.onum("t"), part=r.otext("part"),
                figures=r.num_map("figures"))


_NUMBER = (int, float)


def _telemetry(r: _R) -> TelemetrySample:
    return TelemetrySample(t=r.num("t"), busy_pct=r.onum("busy_pct"),
                           vram_used_bytes=r.ointeger("vram_used_bytes"),
                           vram_total_bytes=r.ointeger("vram_total_bytes"),
                           power_w=r.onum("power_w"),
                           temps_c=r.num_map("temps_c"), clocks_mhz=r.num_map("clocks_mhz"),
                           energy_j=r.onum("energy_j"))


def _efficiency(r: _R) -> Efficiency:
    return Efficiency(
        figure=r.text("figure"), part=r.otext("part"), per_watt=r.num("per_watt"),
        unit=r.text("unit"), mean_power_w=r.num("mean_power_w"), joules=r.num("joules"),
        window_s=r.num("window_s"), samples=r.integer("samples"), coverage=r.num("coverage"),
        method=r.text("method"), source=r.text("source"), reading=r.otext("reading"),
        items=r.ointeger("items"), per_item_j=r.onum("per_item_j"),
        item_unit=r.otext("item_unit"))


_STEP_FIELDS = (("phase", "text"), ("index", "integer"), ("seconds", "num"),
                ("items", "integer"), ("t", "onum"), ("part", "otext"), ("figures", "num_map"))
_SAMPLE_FIELDS = (("t", "num"), ("busy_pct", "onum"), ("vram_used_bytes", "ointeger"),
                  ("vram_total_bytes", "ointeger"), ("power_w", "onum"),
                  ("temps_c", "num_map"), ("clocks_mhz", "num_map"), ("energy_j", "onum"))


def _series(r: _R, key: str, spec: tuple[tuple[str, str], ...], cls: Callable[..., T],
            one: Callable[[_R], T]) -> list[T]:
    """A run's steps or telemetry: the usual list built a column at a time, any other read
    item by item (which names what is wrong)."""
    quick = build(r.seq(key), spec, cls)
    return quick if quick is not None else r.items(key, one)


def _run(r: _R) -> SuiteRun:
    status = r.text("status")
    if status not in STATUSES:
        raise ReportError(f"{r.path}.status: {status!r} is not one of {', '.join(STATUSES)}")
    run = SuiteRun(
        suite=r.text("suite"),
        status=status,
        started=r.time("started"),
        duration_s=r.num("duration_s"),
        settings=r.mapping("settings"),
        device=r.osub("device", lambda d: DeviceInfo(
            name=d.text("name"), backend=d.text("backend"), arch=d.otext("arch"),
            pci_bus_id=d.otext("pci_bus_id"), pci_id=d.otext("pci_id"),
            total_memory_bytes=d.ointeger("total_memory_bytes"))),
        result=r.osub("result", _result),
        error=r.osub("error", lambda e: ErrorInfo(
            kind=e.text("kind"), message=e.text("message"), advice=e.text("advice"),
            detail=e.otext("detail") or "", source=e.otext("source") or "worker")),
        energy=r.osub("energy", lambda e: Energy(
            joules=e.num("joules"), per_item_j=e.num("per_item_j"), item_unit=e.text("item_unit"),
            mean_power_w=e.onum("mean_power_w"), method=e.text("method"))),
        reference=r.osub("reference", lambda e: Reference(
            name=e.otext("name"), source=e.otext("source"), peaks=e.num_map("peaks"),
            fractions=e.num_map("fractions"), note=e.otext("note"))),
        steps=_series(r, "steps", _STEP_FIELDS, Step, _step),
        telemetry=_series(r, "telemetry", _SAMPLE_FIELDS, TelemetrySample, _telemetry),
        efficiency=r.items("efficiency", _efficiency),
        power_source=r.osub("power_source", lambda e: PowerSource(
            sampler=e.text("sampler"), power=e.otext("power"), energy=e.otext("energy"),
            inferred=bool(e.flag("inferred", False)))),
    )
    if status == "ok" and run.result is None:
        raise ReportError(f"{r.path}: status ok but no result")
    if status != "ok" and run.error is None:
        raise ReportError(f"{r.path}: status {status} but no error")
    return run


def check_schema(data: Any) -> None:
    """Refuse anything but rocmate.report/1, saying what the file is instead."""
    if not isinstance(data, dict):
        raise ReportError(f"not a rocmate report: the JSON is a {type(data).__name__}, "
                          "not an object")
    schema = data.get("schema")
    if schema is None:
        raise ReportError("not a rocmate report: no 'schema' field")
    if not isinstance(schema, str):
        raise ReportError(f"not a rocmate report: 'schema' is {schema!r:.60}")
    family, _, version = schema.partition("/")
    if family != SCHEMA_FAMILY:
        if family.startswith("rocmate."):
            raise ReportError(f"this is a {schema:.60} file, not a report ({SCHEMA})")
        raise ReportError(f"foreign schema {schema!r:.60}: this reads {SCHEMA}")
    if not re.fullmatch(r"[0-9]{1,4}", version):  # ASCII digits only: "²" is a digit to isdigit
        raise ReportError(f"unknown report schema {schema!r:.60}: this reads {SCHEMA}")
    if int(version) > SCHEMA_VERSION:
        raise ReportError(f"the report was written by a newer rocmate ({schema}); this version "
                          f"reads {SCHEMA}: update rocmate to open it")
    if int(version) < SCHEMA_VERSION:
        raise ReportError(f"report schema {schema} is older than any this version reads "
                          f"({SCHEMA})")


def check_values(data: Any) -> None:
    """Refuse numbers a writer cannot take (not finite, or beyond ±MAX_NUMBER) and nesting
    deeper than MAX_DEPTH, anywhere in a report's JSON data, naming where. A quick look first
    (a column at a time: a report holds a few hundred thousand values); only data it finds
    wrong is walked again to name the place."""
    if not look(data, max_depth=MAX_DEPTH, max_number=MAX_NUMBER).fine:
        _check_node(data, ["report"], 0)


def _check_node(node: Any, path: list[str], depth: int) -> None:
    if depth >= MAX_DEPTH:
        raise ReportError(f"{''.join(path)}: nested more than {MAX_DEPTH} levels deep")
    pairs = node.items() if isinstance(node, dict) else enumerate(node)
    for k, v in pairs:
        t = type(v)
        if t is dict or t is list:
            path.append(f".{k:.40}" if isinstance(k, str) else f"[{k}]")
            _check_node(v, path, depth + 1)
            path.pop()
        elif (t is float or t is int) and not -MAX_NUMBER <= v <= MAX_NUMBER:  # NaN fails too
            where = "".join(path) + (f".{k:.40}" if isinstance(k, str) else f"[{k}]")
            shown = (f"{v:.3e}" if t is float
                     else f"an integer of about {int(v.bit_length() * 0.30103) + 1} digits")
            raise ReportError(f"{where}: {shown} is out of range (numbers in a report are "
                              "finite and at most 1e15 in size)")
        elif isinstance(v, (dict, list)):  # a subclass, from a caller's own data
            _check_node(v, [*path, f".{k}" if isinstance(k, str) else f"[{k}]"], depth + 1)


def from_dict(data: Any) -> Report:
    check_schema(data)
    check_values(data)
    r = _R(data, "report")
    m = r.sub("machine") if r.d.get("machine") is not None else _R({}, "report.machine")
    s = r.sub("software") if r.d.get("software") is not None else _R({}, "report.software")
    return Report(
        tool=r.otext("tool") or "rocmate",
        tool_version=r.text("tool_version"),
        created=r.time("created"),
        machine=Machine(platform=m.mapping("platform"), gpus=[
            g for g in m.seq("gpus") if isinstance(g, dict)]),
        software=Software(python=s.otext("python"), torch=s.otext("torch"), hip=s.otext("hip"),
                          cuda=s.otext("cuda"), rocm=s.otext("rocm"),
                          packages=s.str_map("packages"), env=s.str_map("env"),
                          driver=s.osub("driver", _driver)),
        runs=r.items("runs", _run),
        schema=SCHEMA,
    )


def _constant(name: str) -> Any:
    raise ReportError(f"not a rocmate report: {name} is not a number JSON allows")


def _int(text: str) -> int:
    if len(text.lstrip("-")) > _MAX_INT_DIGITS:
        raise ReportError(f"not a rocmate report: an integer of {len(text.lstrip('-'))} digits "
                          "(numbers in a report are at most 1e15 in size)")
    return int(text)


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise ReportError(f"not a rocmate report: the key {k!r:.60} appears twice in "
                                  "one object")
            seen.add(k)
    return out


def check_series(data: Any) -> None:
    """Refuse a run with more than MAX_STEPS steps or MAX_SAMPLES telemetry samples."""
    runs = data.get("runs") if isinstance(data, dict) else None
    for i, run in enumerate(runs if isinstance(runs, list) else []):
        for key, limit, what in (("steps", MAX_STEPS, "steps"),
                                 ("telemetry", MAX_SAMPLES, "telemetry samples")):
            seq = run.get(key) if isinstance(run, dict) else None
            if isinstance(seq, list) and len(seq) > limit:
                raise ReportError(f"report.runs[{i}].{key}: {len(seq):,} {what}, more than the "
                                  f"{limit:,} a report may hold")


def from_json(text: str | bytes, *, series_limits: bool = True) -> Report:
    """Parse and validate a report; raises ReportError with the reason. ``series_limits``
    (MAX_STEPS, MAX_SAMPLES) is for a file from elsewhere; the history reads back what this
    machine measured without them."""
    with reading():
        return from_dict(parse_json(text, series_limits=series_limits))


@contextmanager
def reading() -> Iterator[None]:
    """Around reading a report: the cycle collector held back (a big report is two million
    new objects) and each look at its data taken once (core.report.columns)."""
    with collector_paused(), looks_kept():
        yield


@dataclass(frozen=True)
class Source:
    """A report file as it was read: its text and the JSON data parsed from it (the history
    keeps the text itself when the report is the data unchanged, instead of writing it anew)."""

    text: str
    data: Any


def parse_json(text: str | bytes, *, series_limits: bool = True) -> Any:
    """A report's JSON data, parsed strictly (no NaN, no duplicate keys, no huge integers, not
    too deep) and, with ``series_limits``, its schema and series sizes checked; from_dict
    checks the rest."""
    data = _plain_parse(text)
    if data is _UNSURE:
        data = _strict_parse(text)
    if series_limits:
        check_schema(data)  # what the file is comes first
        check_series(data)
    return data


_UNSURE = object()
_SPACED_KEY = re.compile(r'"[ \t\r\n]+:')


def _plain_parse(text: str | bytes) -> Any:
    """``text`` parsed by the plain (C) parser where that is provably as strict, else
    ``_UNSURE``. Plain parsing takes NaN, long integers and duplicate keys: a look at the
    data refuses the first two; for the third the keys parsed are counted against the keys
    in the text: ``":`` is a key's end where no string holds an escaped quote (inside a
    string a quote is escaped) and none starts with a colon (an opening quote before it)."""
    if not isinstance(text, str):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            return _UNSURE
    if '\\"' in text or _SPACED_KEY.search(text):
        return _UNSURE
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return _UNSURE  # the strict parser says what is wrong
    found = look(data, max_depth=MAX_DEPTH, max_number=MAX_NUMBER)
    if not found.fine or any(name.startswith(":") for name in found.names) or any(
            text.startswith(":") for text, _, _ in found.texts):
        return _UNSURE
    return data if found.keys == text.count('":') else _UNSURE


def _strict_parse(text: str | bytes) -> Any:
    try:
        return json.loads(text, parse_constant=_constant, parse_int=_int,
                          object_pairs_hook=_object)
    except ReportError:
        raise
    except RecursionError:
        raise ReportError("not a rocmate report: the JSON is nested too deeply") from None
    except ValueError as exc:
        head = (text[:200].decode("utf-8", "replace") if isinstance(text, bytes)
                else text[:200]).lstrip().lower()
        if head.startswith(("<!doctype html", "<html")):  # the page "Open in the browser" wrote
            raise ReportError(t("report.format.is-html", "this is a report's web page (HTML), "
                                "not the report: import its JSON file, which {save} in the app "
                                "or {export} writes", save="Save report...",
                                export="rocmate report export ID -o FILE.json")) from None
        raise ReportError(f"not a rocmate report: not JSON ({exc})") from None
