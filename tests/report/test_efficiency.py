"""Figures per watt (core.report.efficiency) over recorded runs: the NVIDIA H200 reports under
tests/fixtures/reports (their telemetry is what NVML gave while they ran: power and the energy
counter, every sample with its time on the run's clock). The warm-up is left out, the figure is
absent where power is unknown or too thin, it survives a JSON round trip, and the writers say
where the power came from."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

import pytest

from core.bench.run_report import suite_run
from core.bench.runner import RunOutcome
from core.bench.worker.options import BenchOptions
from core.report import efficiency as eff
from core.report.model import PowerSource, Report, SuiteRun, TelemetrySample, from_json, to_json
from core.report.text import efficiency_lines, report_text
from core.report.writers import render

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "tests" / "fixtures" / "reports"
RESNET = REPORTS / "h200-resnet50-train-amp-bf16-cl-bs256.json"
SD15 = REPORTS / "h200-sd15-infer-eager-bs1-unsteady.json"
PAGE = REPORTS / "gpu" / "h200-health-resnet50-page.json"  # gemm, bandwidth, resnet50-train
LLM = REPORTS / "llm" / "cpu-tiny-llm-infer.json"


def load(path: Path) -> Report:
    return from_json(path.read_text(encoding="utf-8"))


def _window(run: SuiteRun) -> tuple[float, float]:
    measured = [s for s in run.steps if s.phase == "measure" and s.t is not None]
    return measured[0].t - measured[0].seconds, measured[-1].t  # type: ignore[operator]


def test_resnet_per_watt_is_the_median_over_the_mean_power_of_the_measured_steps() -> None:
    run = load(RESNET).runs[0]
    [e] = eff.efficiencies(run)
    assert run.result is not None
    assert e.figure == "throughput" and e.unit == "images/s/W" and e.item_unit == "image"
    assert e.per_watt == pytest.approx(run.result.figures["throughput"].median / e.mean_power_w)
    assert e.method == "energy-counter" and e.source == "nvml"
    assert e.reading == "nvmlDeviceGetTotalEnergyConsumption"
    # the counter's energy over the window agrees with the parent's own J/image within 2 %
    assert run.energy is not None
    assert e.per_item_j == pytest.approx(run.energy.per_item_j, rel=0.02)
    assert e.items == run.result.measure.items
    assert 0.8 <= e.coverage <= 1.0


def test_the_warm_up_is_left_out() -> None:
    run = load(SD15).runs[0]
    before = eff.efficiencies(run)[0]
    start, _ = _window(run)
    # the warm-up (and the set-up before it) drew ten times the power: nothing changes
    # (the sample just before the first measured step starts the pair that covers it)
    run.telemetry = [replace(s, power_w=(s.power_w or 0) * 10,
                             energy_j=(s.energy_j or 0) * 10) if s.t < start - 0.6 else s
                     for s in run.telemetry]
    after = eff.efficiencies(run)[0]
    assert after.mean_power_w == pytest.approx(before.mean_power_w)
    assert after.per_watt == pytest.approx(before.per_watt)
    # the measured steps drawing more do change it
    hot = copy.deepcopy(run)
    hot.telemetry = [replace(s, power_w=(s.power_w or 0) * 2, energy_j=None)
                     for s in hot.telemetry]
    assert eff.efficiencies(hot)[0].mean_power_w > 1.8 * before.mean_power_w


def test_power_samples_without_a_counter_give_the_same_power() -> None:
    """amdgpu's hwmon has no energy counter: the mean of the sampled power is used."""
    run = load(RESNET).runs[0]
    counter = eff.efficiencies(run)[0]
    run.telemetry = [replace(s, energy_j=None) for s in run.telemetry]
    run.power_source = PowerSource(sampler="amdgpu-sysfs", power="hwmon power1_average")
    sampled = eff.efficiencies(run)[0]
    assert sampled.method == "power-samples"
    # NVML's power reading is a lagging average (about a second): within 10 % of the counter
    assert sampled.mean_power_w == pytest.approx(counter.mean_power_w, rel=0.10)
    assert eff.source_text(sampled) == "amdgpu hwmon (hwmon power1_average)"


def test_absent_where_power_is_unknown_or_too_thin() -> None:
    run = load(RESNET).runs[0]
    start, end = _window(run)
    no_power = copy.deepcopy(run)
    no_power.telemetry = [TelemetrySample(t=s.t, busy_pct=s.busy_pct) for s in run.telemetry]
    assert eff.efficiencies(no_power) == [] and eff.why_not(no_power) == "no-power"
    thin = copy.deepcopy(run)
    inside = [s for s in run.telemetry if start <= s.t <= end]
    thin.telemetry = inside[:2]
    assert eff.efficiencies(thin) == [] and eff.why_not(thin) == "too-few-samples"
    half = copy.deepcopy(run)
    half.telemetry = [s for s in run.telemetry if s.t <= (start + end) / 2]
    assert eff.efficiencies(half) == [] and eff.why_not(half) == "not-covered"
    for r in (no_power, thin, half):  # absent, never zero or NaN, in every writer
        assert "per W" not in "\n".join(efficiency_lines(r))
        assert efficiency_lines(r)[0].startswith("not known")
    cpu = load(LLM).runs[0]
    assert eff.efficiencies(cpu) == [] and eff.why_not(cpu) == "cpu"
    assert efficiency_lines(cpu) == []


def test_gemm_is_per_watt_of_its_bf16_part_and_bandwidth_has_none() -> None:
    gemm, bandwidth, resnet = load(PAGE).runs
    [e] = eff.efficiencies(gemm)
    assert e.part == "bf16" and e.unit == "TFLOP/s/W" and e.per_item_j is None
    assert e.window_s < sum(s.seconds for s in gemm.steps if s.phase == "measure")
    assert eff.efficiencies(bandwidth) == [] and eff.why_not(bandwidth) == "no-figure"
    assert eff.efficiencies(resnet)[0].unit == "images/s/W"


def test_llm_infer_decode_and_prefill_each_over_their_own_steps() -> None:
    """The recorded CPU run's own steps, as if on a GPU (the test has no Radeon card): the
    power drawn during decode steps and during prefill steps is told apart."""
    run = load(LLM).runs[0]
    assert run.device is not None
    run.device = replace(run.device, backend="hip")
    samples = []
    t0 = min(s.t - s.seconds for s in run.steps if s.t is not None)  # type: ignore[operator]
    t1 = max(s.t for s in run.steps if s.t is not None)  # type: ignore[type-var]
    parts = [(s.t - s.seconds, s.t, s.part) for s in run.steps if s.t is not None]
    t = t0
    while t <= t1:
        part = next((p for a, b, p in parts if a <= t <= b), None)
        samples.append(TelemetrySample(t=t, power_w=300.0 if part == "decode" else 100.0))
        t += 0.00005
    run.telemetry = samples
    found = {e.part: e for e in eff.efficiencies(run)}
    assert set(found) == {"decode", "prefill"}
    assert run.result is not None
    assert found["decode"].unit == "tokens/s/W" and found["decode"].item_unit == "token"
    assert found["decode"].mean_power_w > 250 and found["prefill"].mean_power_w < 150
    decode_tokens = sum(s.items for s in run.steps if s.phase == "measure"
                        and s.part == "decode")
    assert found["decode"].items == decode_tokens
    assert found["decode"].source == "amdgpu-sysfs"


def test_round_trip_and_older_reports_unchanged() -> None:
    report = load(SD15)
    text = to_json(report)
    assert '"efficiency"' not in text and '"power_source"' not in text  # as it was written
    run = report.runs[0]
    run.power_source = PowerSource(sampler="nvml", power="nvmlDeviceGetPowerUsage",
                                   energy="nvmlDeviceGetTotalEnergyConsumption")
    run.efficiency = eff.efficiencies(run)
    again = from_json(to_json(report))
    assert again.runs[0].efficiency == run.efficiency
    assert again.runs[0].power_source == run.power_source
    assert eff.of_run(again.runs[0]) == run.efficiency
    data = json.loads(to_json(report))
    assert data["runs"][0]["efficiency"][0]["unit"] == "images/s/W"
    assert data["runs"][0]["efficiency"][0]["source"] == "nvml"


def test_a_run_report_records_its_power_source_and_efficiency() -> None:
    """core.bench.run_report over the outcome the runner had for the recorded run."""
    report = load(RESNET)
    run = report.runs[0]
    assert run.result is not None
    raw = json.loads(RESNET.read_text(encoding="utf-8"))["runs"][0]
    steps = [{"event": "step", **{k: v for k, v in s.items() if k not in ("t", "figures")},
              "rx_t": s["t"]} for s in raw["steps"]]
    first = next(s for s in raw["steps"] if s["phase"] == "measure")
    out = RunOutcome(suite=run.suite, python="python3", options=BenchOptions(suite=run.suite),
                     started=run.started, status="ok", hello={"backend": "cuda",
                                                              "device_name": "NVIDIA H200"},
                     result={"event": "result", **raw["result"], "settings": run.settings},
                     phases=[{"phase": "measure", "rx_t": first["t"] - first["seconds"]},
                             {"phase": "done"}],
                     steps=steps, telemetry=run.telemetry,
                     power_source={"sampler": "nvml", "power": "nvmlDeviceGetPowerUsage",
                                   "energy": "nvmlDeviceGetTotalEnergyConsumption"})
    built = suite_run(out)
    assert built.power_source == PowerSource("nvml", "nvmlDeviceGetPowerUsage",
                                             "nvmlDeviceGetTotalEnergyConsumption")
    assert [e.figure for e in built.efficiency] == ["throughput"]
    assert not built.power_source.inferred


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_writers_name_the_figure_and_its_source(fmt: str) -> None:
    report = load(SD15)
    text = report_text(report)
    assert "per watt: 0.005" in text and "images/s per W" in text
    assert "NVML (nvmlDeviceGetTotalEnergyConsumption)" in text and "warm-up left out" in text
    out = render(report, fmt)
    assert "images/s per W" in out and "NVML" in out


def test_the_recorded_per_watt_report_reads_back_as_it_was_worked_out() -> None:
    """gpu/h200-sd15-infer-per-watt.json: the real H200 run with the fields written (README)."""
    path = REPORTS / "gpu" / "h200-sd15-infer-per-watt.json"
    report = load(path)
    run = report.runs[0]
    assert run.power_source is not None and run.power_source.inferred
    assert run.efficiency == eff.efficiencies(replace(run, efficiency=[]))
    [e] = run.efficiency
    assert (round(e.per_watt, 6), round(e.per_item_j or 0, 1), e.samples) == (0.005333, 189.7, 18)
    assert to_json(report) + "\n" == path.read_text(encoding="utf-8")  # byte for byte
