"""Cautions on how far a run can be trusted, from real reports: an SD 1.5 run on the H200 that
landed in one of the host's slow stretches (CPU-bound, unsteady, warm-up not settled) and a
steady GPU-bound ResNet-50 run on the same card."""

from __future__ import annotations

import copy
import dataclasses

import pytest

from core.report.compare import compare
from core.report.html import render_html
from core.report.markdown import render_markdown
from core.report.model import Report, SuiteRun, TelemetrySample
from core.report.steadiness import STEADY_CV, cautions, measured_samples
from core.report.text import comparison_text, report_text
from tests.report.support import CPU, FIXTURES, GEMM, H200, load

SD_UNSTEADY = FIXTURES / "h200-sd15-infer-eager-bs1-unsteady.json"


def kinds(run: SuiteRun) -> list[str]:
    return [c.kind for c in cautions(run)]


def test_a_cpu_bound_sd_run_in_a_slow_stretch_gets_three_cautions() -> None:
    run = load(SD_UNSTEADY).runs[0]
    assert kinds(run) == ["unsteady", "not-settled", "cpu-bound"]
    text = {c.kind: c.text for c in cautions(run)}
    assert "CV 12.9 %" in text["unsteady"] and "0.7094–0.9269 s/image" in text["unsteady"]
    assert "did not settle in 15 steps" in text["not-settled"]
    assert "busy only 36 %" in text["cpu-bound"]  # NVML's utilisation over the measured phase
    assert "--batch-size" in text["cpu-bound"]  # sd15-infer has a batch to raise


def test_steady_and_cpu_runs_get_none() -> None:
    assert kinds(load(H200).runs[0]) == []  # bs 256, GPU-bound, CV 0.3 %
    assert kinds(load(CPU).runs[0]) == []  # the CPU: no GPU cautions at all


def test_the_measured_window_holds_only_the_measured_phase() -> None:
    run = load(SD_UNSTEADY).runs[0]
    samples = measured_samples(run)
    measure = [s for s in run.steps if s.phase == "measure"]
    assert samples and len(samples) < len(run.telemetry)
    assert measure[0].t is not None and measure[-1].t is not None
    assert all(measure[0].t - measure[0].seconds <= s.t <= measure[-1].t for s in samples)
    # the idle samples of the model build (busy 0 %) stay outside, else "busy" would read ~15 %
    assert min(s.busy_pct or 0 for s in samples) > 0


def _with_headline_cv(run: SuiteRun, cv: float) -> SuiteRun:
    out = copy.deepcopy(run)
    assert out.result is not None
    out.result.headline_figure.cv = cv
    return out


def test_the_cv_threshold_is_the_settle_criterion() -> None:
    run = load(H200).runs[0]
    assert "unsteady" not in kinds(_with_headline_cv(run, STEADY_CV))
    assert "unsteady" in kinds(_with_headline_cv(run, STEADY_CV + 0.001))
    assert "unsteady" not in kinds(_with_headline_cv(run, None))  # type: ignore[arg-type]


def test_a_forced_warm_up_never_counts_as_unsettled() -> None:
    run = copy.deepcopy(load(SD_UNSTEADY).runs[0])
    assert run.result is not None
    run.result.warmup = dataclasses.replace(run.result.warmup, forced=True, settled=None)
    assert "not-settled" not in kinds(run)


@pytest.mark.parametrize("key", ["sm", "sclk"])  # NVML's name and the amdgpu sysfs one
def test_a_falling_clock_is_named(key: str) -> None:
    run = copy.deepcopy(load(H200).runs[0])
    inside = measured_samples(run)
    assert len(inside) >= 3
    for i, s in enumerate(inside):
        s.clocks_mhz = {key: 1980.0 if i < len(inside) // 2 else 1425.0}
    found = {c.kind: c for c in cautions(run)}
    assert "1,425-1,980 MHz" in found["clock-drop"].text
    for s in inside:
        s.clocks_mhz = {key: 1980.0 - 150.0 * (s is inside[-1])}  # 7.6 %: boost wander
    assert "clock-drop" not in kinds(run)


def test_too_few_samples_or_no_step_times_say_nothing_about_the_gpu() -> None:
    run = copy.deepcopy(load(SD_UNSTEADY).runs[0])
    run.telemetry = [TelemetrySample(t=s.t, busy_pct=5.0) for s in measured_samples(run)[:2]]
    assert "cpu-bound" not in kinds(run)
    run = copy.deepcopy(load(SD_UNSTEADY).runs[0])
    for s in run.steps:
        s.t = None
    assert measured_samples(run) == [] and "cpu-bound" not in kinds(run)


def test_every_writer_shows_the_cautions() -> None:
    report = load(SD_UNSTEADY)
    text = report_text(report)
    assert "  ! The GPU was busy only 36 % of the measured phase" in text
    html = render_html(report)
    assert html.count('class="warnline caution"') == 3
    assert 'data-caution="cpu-bound"' in html
    md = render_markdown(report)
    assert "> **Note:** The steps varied: CV 12.9 %" in md


def test_a_comparison_says_which_side_was_unsteady() -> None:
    steady = load(H200)
    unsteady = load(SD_UNSTEADY)
    c = compare(steady, unsteady, "A", "B")
    notes = c.runs[0].notes
    assert "B: its steps varied (CV 12.9 %): a difference smaller than that may be noise" in notes
    assert "B: its GPU was busy only 36 %, so the host's CPU most likely set the pace" in notes
    assert not [n for n in notes if n.startswith("A:")]
    assert "note: B: its GPU was busy only 36 %" in comparison_text(c)


def _as_gpu_run_with_telemetry(busy: dict[str, float], clock: dict[str, float]) -> SuiteRun:
    """The recorded CPU gemm run (bf16, then fp16 and fp32 parts) as if on a GPU, with one
    telemetry sample every 0.05 s whose busy % and clock depend on the part running then."""
    run = _with_headline_cv(load(GEMM).runs[0], 0.01)  # steady: only the GPU cautions count
    assert run.device is not None
    run.device.backend = "cuda"
    spans = [(s.part or "", s.t - s.seconds, s.t) for s in run.steps if s.t is not None]
    end = max(b for _, _, b in spans)
    run.telemetry = []
    for i in range(int(end / 0.05) + 1):
        t = i * 0.05
        part = next((p for p, a, b in spans if a <= t <= b), "")
        run.telemetry.append(TelemetrySample(t=t, busy_pct=busy.get(part, 0.0),
                                             clocks_mhz={"sm": clock.get(part, 300.0)}))
    return run


def test_a_suite_of_parts_is_judged_on_its_headline_part() -> None:
    parts = [s.part for s in load(GEMM).runs[0].steps if s.phase == "measure"]
    assert parts[0] == "bf16" and {"fp16", "fp32"} <= set(parts)
    # bf16 busy at a steady clock; later parts (and the gaps) idle at a low clock: no caution
    run = _as_gpu_run_with_telemetry({"bf16": 99.0}, {"bf16": 1980.0})
    assert len(measured_samples(run)) >= 3
    assert kinds(run) == []
    run = _as_gpu_run_with_telemetry({"bf16": 40.0, "fp16": 99.0, "fp32": 99.0},
                                     {"bf16": 1980.0, "fp16": 1980.0, "fp32": 1980.0})
    found = {c.kind: c.text for c in cautions(run)}
    assert "cpu-bound" in found and "--batch-size" not in found["cpu-bound"]  # gemm has none


def _report_with(run: SuiteRun, base: Report) -> Report:
    return dataclasses.replace(base, runs=[run])


def test_a_failed_run_has_no_cautions() -> None:
    run = copy.deepcopy(load(SD_UNSTEADY).runs[0])
    run.result = None
    assert cautions(run) == []
    assert "  ! " not in report_text(_report_with(run, load(SD_UNSTEADY)))
