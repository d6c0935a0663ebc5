"""Issue 39: the clocks and power beside gemm's burst and sustained figures, from the run's own
telemetry (a real H200 health check, its NVML samples every 0.5 s)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.report import gemm_windows
from core.report.model import from_json
from core.report.text import run_text

REPORT = Path(__file__).resolve().parents[1] / "fixtures/reports/gpu/h200-health-resnet50-page.json"


def _gemm(burst: bool = False):  # type: ignore[no-untyped-def]
    """The recorded gemm run; ``burst``: its parts marked as measured with a burst (the report
    predates it: warm-up steps 1-4 are then its burst, the figures stay the real ones)."""
    data = json.loads(REPORT.read_text())
    if burst:
        for part in data["runs"][0]["result"]["details"]["parts"].values():
            part["burst_warmup_steps"] = [1, 4]
    return from_json(json.dumps(data)).runs[0]


def test_the_sustained_phase_gets_the_median_of_its_samples() -> None:
    run = _gemm()
    found = {(c.part, c.window): c for c in gemm_windows.of_run(run)}
    assert set(found) == {("bf16", "sustained"), ("fp16", "sustained"), ("fp32", "sustained")}
    bf16 = found[("bf16", "sustained")]
    inside = [s for s in run.telemetry if bf16.start <= s.t <= bf16.end]
    assert bf16.samples == len(inside) == 4
    assert bf16.clock_mhz == pytest.approx(1462.5)  # the H200 under its 700 W limit
    assert bf16.power_w == pytest.approx(667.3115)
    text = run_text(run)
    assert "  bf16 sustained: 1,462 MHz, 667.3 W (median of 4 samples)" in text


def test_a_burst_between_samples_takes_the_first_sample_after_it_began() -> None:
    run = _gemm(burst=True)
    burst = next(c for c in gemm_windows.of_run(run) if c.window == "burst" and c.part == "bf16")
    later = min((s for s in run.telemetry if s.t > burst.end), key=lambda s: s.t)
    assert burst.samples == 0 and burst.after_s == pytest.approx(later.t - burst.end)
    assert burst.power_w == later.power_w and burst.clock_mhz == later.clocks_mhz["sm"]
    line = next(x for x in run_text(run) if x.startswith("  bf16 burst:"))
    assert f"{burst.after_s:.1f} s after its end" in line


def test_no_telemetry_or_another_suite_says_nothing() -> None:
    run = _gemm()
    run.telemetry = []
    assert gemm_windows.of_run(run) == []
    other = from_json(REPORT.read_text()).runs[2]
    assert other.suite == "resnet50-train" and gemm_windows.of_run(other) == []
