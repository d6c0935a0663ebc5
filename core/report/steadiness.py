"""How far a run's median can be trusted: cautions worked out from what the report already holds
(the headline's spread, the warm-up, the GPU telemetry of the measured phase). Nothing is stored:
an old report gets the same cautions as a new one, and every writer shows the same words.

The thresholds are the harness's own: a warm-up settles when the CV of its window is at most
5 %, so a measured phase above that moved more than a settled warm-up may. A GPU busy under 70 %
of the measured phase waits for the CPU (small batches: on the H200 SD 1.5 at batch 1 kept it
30-55 % busy, and single runs there moved by ±25 % with the host's load, docs/bench.md)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from core.i18n import t
from core.report import formatting as fmt
from core.report.model import SuiteRun, TelemetrySample

STEADY_CV = 0.05  # the harness's settle criterion (core.bench.worker.stats.SettleRule.max_cv)
CPU_BOUND_BUSY_PCT = 70.0
CLOCK_DROP = 0.10  # the GPU clock's lowest sample this far under its highest
MIN_SAMPLES = 3  # fewer telemetry samples in the measured phase say nothing
MIN_RESULT_STEPS = 6
"""The fewest measured steps the result of a run cut short is made of (core.bench.partial):
the harness's settle window (core.bench.worker.stats.SettleRule.window), the fewest steps it
judges step times by. A run stopped before has no result, only its steps."""
BATCHED_SUITES = ("resnet50-train", "sd15-infer", "llm-train")  # those a batch size changes


@dataclass(frozen=True)
class Caution:
    kind: str  # unsteady | not-settled | cpu-bound | clock-drop (a contract: never translated)
    text: str  # the whole caution, for a run's page, in the current language
    short: str  # a clause for a comparison: "steps varied by CV 18 %" (current language)


def cautions(run: SuiteRun) -> list[Caution]:
    """What a reader should know before quoting this run's figures; empty for a steady run."""
    r = run.result
    if r is None:
        return []
    out: list[Caution] = []
    f = r.headline_figure
    if f.cv is not None and f.cv > STEADY_CV:
        out.append(Caution("unsteady", t(
            "report.caution.unsteady",
            "The steps varied: CV {cv} (p10–p90 {spread} {unit}), over {limit}. Something else "
            "may have used the CPU or the card, or its clocks moved; run it again before reading "
            "much into a small difference.",
            cv=fmt.cv(f), spread=fmt.spread(f), unit=f.unit, limit=fmt.pct(STEADY_CV, 0)),
            t("report.caution.unsteady.short",
              "its steps varied (CV {cv}): a difference smaller than that may be noise",
              cv=fmt.cv(f))))
    w = r.warmup
    if not w.forced and w.settled is False:
        out.append(Caution("not-settled", t(
            "report.caution.not-settled",
            "The warm-up did not settle in {steps} steps: the measured phase may still include "
            "tuning, compilation or clocks coming up.", steps=w.steps),
            t("report.caution.not-settled.short", "its warm-up did not settle")))
    if run.device is not None and run.device.backend == "cpu":
        return out
    samples = measured_samples(run)
    busy = [s.busy_pct for s in samples if s.busy_pct is not None]
    if len(busy) >= MIN_SAMPLES and statistics.fmean(busy) < CPU_BOUND_BUSY_PCT:
        pct = f"{statistics.fmean(busy):.0f} %"
        batch = t("report.caution.cpu-bound.batch",
                  " A larger batch ({option}) measures more of the card.",
                  option="--batch-size") if run.suite in BATCHED_SUITES else ""
        out.append(Caution("cpu-bound", t(
            "report.caution.cpu-bound",
            "The GPU was busy only {pct} of the measured phase: most likely the CPU could not "
            "hand it work fast enough, so the host's speed and load move this result more than "
            "the card does.{batch}", pct=pct, batch=batch),
            t("report.caution.cpu-bound.short",
              "its GPU was busy only {pct}, so the host's CPU most likely set the pace", pct=pct)))
    clocks = [s.clocks_mhz[k] for s in samples for k in ("sclk", "sm") if k in s.clocks_mhz]
    if len(clocks) >= MIN_SAMPLES and min(clocks) < (1 - CLOCK_DROP) * max(clocks):
        span = f"{min(clocks):,.0f}-{max(clocks):,.0f} MHz"
        out.append(Caution("clock-drop", t(
            "report.caution.clock-drop",
            "The GPU clock ranged {span} during the measured phase: a power or temperature limit, "
            "or the card clocking down while it waited; see the telemetry.", span=span),
            t("report.caution.clock-drop.short", "its GPU clock ranged {span}", span=span)))
    return out


def measured_samples(run: SuiteRun) -> list[TelemetrySample]:
    """The telemetry samples taken while the measured phase ran (from its first step's start to
    its last step's end, on the parent's clock); none when the steps carry no times. A suite of
    several parts (gemm's dtypes, bandwidth's copies) counts its first part only: the one the
    headline and the result's warm-up and measure describe (host copies run on copy engines,
    which GPU busy does not count)."""
    measured = [s for s in run.steps if s.phase == "measure"]
    if not measured:
        return []
    part = measured[0].part
    spans = [(s.t - s.seconds, s.t) for s in measured if s.part == part and s.t is not None]
    if not spans:
        return []
    start, end = min(a for a, _ in spans), max(b for _, b in spans)
    return [s for s in run.telemetry if start <= s.t <= end]
