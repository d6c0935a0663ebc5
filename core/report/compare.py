"""Two reports side by side: the ratio of every figure (B / A, "better" or "worse" by the
figure's ``higher_is_better``), and every setting, software version and machine fact that
differs between them.

Runs are paired by suite; two single-run reports of different suites are still paired, with a
note and no ratios (their figures measure different things).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.i18n import t
from core.report import formatting as fmt
from core.report.model import Report, SuiteRun
from core.report.references import verdict
from core.report.steadiness import STEADY_CV, cautions

SAME_BAND = 0.03  # within ±3 %: "about the same"

# Units that are multiples of one another: unit -> (quantity, factor to the quantity's base).
UNIT_SCALES: dict[str, tuple[str, float]] = {
    "PFLOP/s": ("flop/s", 1e15), "TFLOP/s": ("flop/s", 1e12), "GFLOP/s": ("flop/s", 1e9),
    "MFLOP/s": ("flop/s", 1e6),
    "TB/s": ("byte/s", 1e12), "GB/s": ("byte/s", 1e9), "MB/s": ("byte/s", 1e6),
    "KB/s": ("byte/s", 1e3), "kB/s": ("byte/s", 1e3),
    "TiB/s": ("byte/s", 2.0**40), "GiB/s": ("byte/s", 2.0**30), "MiB/s": ("byte/s", 2.0**20),
    "s": ("time", 1.0), "ms": ("time", 1e-3), "us": ("time", 1e-6), "µs": ("time", 1e-6),
    "ns": ("time", 1e-9),
}


@dataclass
class FigureDelta:
    name: str
    unit: str
    a: float | None
    b: float | None
    higher_is_better: bool
    ratio: float | None = None  # b / a
    verdict: str | None = None  # better | worse | about the same
    # B's own unit when it is not ``unit`` and cannot be converted to it (then no ratio);
    # None when ``b`` is in ``unit`` (converted when B measured in a multiple of it)
    b_unit: str | None = None
    b_converted_from: str | None = None  # "9,000 GFLOP/s": what B measured, when converted
    noise: float | None = None
    """How much the figure's steps varied in the unsteadier run (its CV, 0.13 = 13 %), where
    that is more than a steady run's (steadiness.STEADY_CV); None for two steady runs."""

    @property
    def within_noise(self) -> bool:
        """Whether B differs from A by less than the steps varied: "better" or "worse" may then
        be noise (the comparison's note says so)."""
        return (self.ratio is not None and self.noise is not None
                and abs(self.ratio - 1.0) < self.noise)

    @property
    def shown_verdict(self) -> str | None:
        """The verdict as every writer shows it: "better" or "worse" by less than the steps
        varied reads "within the noise" (``verdict`` keeps the measured direction)."""
        if self.within_noise and self.verdict in ("better", "worse"):
            return "within the noise"
        return self.verdict

    @property
    def unit_text(self) -> str:
        """The unit column: ``TFLOP/s``, ``TFLOP/s (B: 9,000 GFLOP/s)`` or ``A in s, B in it/s``."""
        if self.b_unit is not None:
            return t("report.compare.unit.each", "A in {unit}, B in {b_unit}", unit=self.unit,
                     b_unit=self.b_unit)
        if self.b_converted_from is not None:
            return t("report.compare.unit.converted", "{unit} (B: {converted})", unit=self.unit,
                     converted=self.b_converted_from)
        return self.unit


@dataclass
class Difference:
    key: str
    a: str
    b: str


@dataclass
class RunComparison:
    suite_a: str
    suite_b: str
    status_a: str
    status_b: str
    device_a: str
    device_b: str
    figures: list[FigureDelta] = field(default_factory=list)
    settings: list[Difference] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def same_suite(self) -> bool:
        return self.suite_a == self.suite_b


@dataclass
class Comparison:
    a_label: str
    b_label: str
    runs: list[RunComparison]
    software: list[Difference]
    machine: list[Difference]
    unpaired: list[str] = field(default_factory=list)  # runs with no partner, "A: gemm"


def compare(a: Report, b: Report, a_label: str = "A", b_label: str = "B") -> Comparison:
    """Compare report ``b`` against ``a`` (the baseline)."""
    pairs, unpaired = _pair(a, b)
    return Comparison(
        a_label=a_label, b_label=b_label,
        runs=[compare_runs(ra, rb) for ra, rb in pairs],
        software=_software(a, b),
        machine=_machine(a, b, pairs),
        unpaired=unpaired,
    )


def _pair(a: Report, b: Report) -> tuple[list[tuple[SuiteRun, SuiteRun]], list[str]]:
    if len(a.runs) == 1 and len(b.runs) == 1:
        return [(a.runs[0], b.runs[0])], []
    pairs: list[tuple[SuiteRun, SuiteRun]] = []
    left = list(b.runs)
    unpaired: list[str] = []
    for ra in a.runs:
        rb = next((r for r in left if r.suite == ra.suite), None)
        if rb is None:
            unpaired.append(f"A: {ra.suite}")
            continue
        left.remove(rb)
        pairs.append((ra, rb))
    unpaired += [f"B: {r.suite}" for r in left]
    return pairs, unpaired


def compare_runs(a: SuiteRun, b: SuiteRun) -> RunComparison:
    out = RunComparison(suite_a=a.suite, suite_b=b.suite, status_a=a.status, status_b=b.status,
                        device_a=fmt.device_label(a), device_b=fmt.device_label(b))
    if a.suite != b.suite:
        out.notes.append(t("report.compare.note.different-suites",
                           "different suites ({a} and {b}): their figures measure different "
                           "things, so no ratios", a=a.suite, b=b.suite))
    else:
        out.figures = _figures(a, b)
    for run, label in ((a, "A"), (b, "B")):
        if run.result is None and run.status == "interrupted":
            out.notes.append(t("report.compare.note.unfinished",
                               "{label} did not finish ({headline}: rocmate stopped before the "
                               "run ended)", label=label, headline=fmt.headline(run)))
        elif run.result is None:
            kind = run.error.kind if run.error else run.status
            out.notes.append(t("report.compare.note.no-measurement",
                               "{label} did not measure ({status}: {kind})", label=label,
                               status=fmt.status_word(run.status), kind=kind))
        elif run.settings.get("size") == "tiny":
            out.notes.append(t("report.compare.note.tiny", "{label} used tiny shapes (a smoke "
                               "test)", label=label))
        out.notes += [t("report.compare.note.caution", "{label}: {caution}", label=label,
                        caution=c.short) for c in cautions(run)
                      if c.kind in ("unsteady", "cpu-bound", "clock-drop")]
    out.settings = _differences(_settings_view(a), _settings_view(b))
    return out


def _figures(a: SuiteRun, b: SuiteRun) -> list[FigureDelta]:
    fa = a.result.figures if a.result else {}
    fb = b.result.figures if b.result else {}
    names = list(fa) + [n for n in fb if n not in fa]
    out: list[FigureDelta] = []
    for name in names:
        x, y = fa.get(name), fb.get(name)
        ref = x or y
        assert ref is not None
        d = FigureDelta(name=name, unit=ref.unit, a=x.median if x else None,
                        b=y.median if y else None, higher_is_better=ref.higher_is_better,
                        noise=_noise(x.cv if x else None, y.cv if y else None))
        if x and y and x.unit != y.unit:
            factor = convert(1.0, y.unit, x.unit)
            if factor is None:  # each in its own unit, and no ratio
                d.b_unit = y.unit
            else:
                d.b = y.median * factor
                d.b_converted_from = f"{fmt.num(y.median)} {y.unit}"
        if x and y and d.b_unit is None and x.median and d.b is not None:
            d.ratio = d.b / x.median
            word = verdict(d.ratio, d.higher_is_better)
            d.verdict = {"faster": "better", "slower": "worse"}.get(word or "", word)
        out.append(d)
    return out


def _noise(*cvs: float | None) -> float | None:
    """The larger CV of a figure in the two runs, where it is more than a steady run's."""
    known = [cv for cv in cvs if cv is not None]
    return max(known) if known and max(known) > STEADY_CV else None


def convert(value: float, unit: str, to: str) -> float | None:
    """``value`` in ``unit`` expressed in ``to``; None when they are not multiples of one
    another (``GFLOP/s`` -> ``TFLOP/s``: / 1000; ``images/s`` -> ``s``: None)."""
    if unit == to:
        return value
    a, b = UNIT_SCALES.get(unit.strip()), UNIT_SCALES.get(to.strip())
    if a is None or b is None or a[0] != b[0]:
        return None
    return value * a[1] / b[1]


def _settings_view(run: SuiteRun) -> dict[str, Any]:
    view = {k: v for k, v in run.settings.items() if k != "suite"}
    details = run.result.details if run.result else {}
    for k, v in details.items():
        if isinstance(v, (str, int, float, bool)) or v is None:
            view[f"details.{k}"] = v
    return view


def _differences(a: dict[str, Any], b: dict[str, Any]) -> list[Difference]:
    keys = list(a) + [k for k in b if k not in a]
    return [Difference(k, fmt.value(a.get(k)), fmt.value(b.get(k))) for k in keys
            if fmt.value(a.get(k)) != fmt.value(b.get(k))]


def _software(a: Report, b: Report) -> list[Difference]:
    def view(r: Report) -> dict[str, Any]:
        s = r.software
        v: dict[str, Any] = {"python": s.python, "torch": s.torch, "hip": s.hip, "cuda": s.cuda,
                             "rocm": s.rocm, "driver": fmt.driver_text(s.driver),
                             "rocmate": r.tool_version}
        v.update({f"packages.{k}": x for k, x in s.packages.items()})
        v.update({f"env.{k}": x for k, x in s.env.items()})
        return v

    return _differences(view(a), view(b))


def _machine(a: Report, b: Report, pairs: list[tuple[SuiteRun, SuiteRun]]) -> list[Difference]:
    def view(r: Report, run: SuiteRun | None) -> dict[str, Any]:
        p = r.machine.platform
        v: dict[str, Any] = {k: p.get(k) for k in ("distro_name", "distro_version", "kernel",
                                                    "wsl")}
        v.update({k: x for k, x in p.items() if "driver" in k})
        v["gpus_in_machine"] = ", ".join(str(g.get("name")) for g in r.machine.gpus) or None
        if run is not None and run.device is not None:
            d = run.device
            v.update({"device": d.name, "backend": d.backend, "arch": d.arch,
                      "device memory": fmt.gib(d.total_memory_bytes)
                      if d.total_memory_bytes else None})
        return v

    ra, rb = pairs[0] if pairs else (None, None)
    return _differences(view(a, ra), view(b, rb))
