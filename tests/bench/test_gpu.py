"""The suites on a real GPU at tiny sizes (skipped without one): CUDA/HIP code paths, device
events, pinned copies, fused AdamW, torch.compile, and telemetry from the driver."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from core.bench.run_report import build_report
from core.report.model import Machine, from_json, to_json
from core.system import LiveSystem
from tests.bench.helpers import run_worker, tiny

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="no GPU: torch.cuda is unavailable"),
]


def gpu(suite: str, **kw: object) -> object:
    return tiny(suite, device="cuda:0", **kw)


@pytest.mark.parametrize(
    ("suite", "kw"),
    [
        ("resnet50-train", {"precision": "amp-fp16", "channels_last": True}),
        ("resnet50-train", {"precision": "amp-bf16", "compile": True, "warmup_steps": 2}),
        ("sd15-infer", {"inference_steps": 4}),
        ("llm-train", {}),
        ("llm-infer", {"precision": "amp-bf16"}),
        ("gemm", {}),
        ("bandwidth", {}),
    ],
)
def test_suite_on_the_gpu(suite: str, kw: dict[str, object], tmp_path: Path) -> None:
    out, _ = run_worker(gpu(suite, **kw), tmp_path, env={}, telemetry_interval_s=0.1)
    assert out.status == "ok", (out.error, out.stderr_tail[-2000:])
    warmup = next(p for p in out.phases if p["phase"] == "warmup")
    assert warmup.get("what") == ("compiling the model (torch.compile)" if kw.get("compile")
                                  else None)
    assert "starting the GPU runtime" in [p.get("what") for p in out.phases]
    assert out.hello is not None and out.hello["backend"] in ("cuda", "hip")
    assert out.hello["pci_bus_id"]
    report = build_report([out], LiveSystem(), machine_facts=Machine())
    run = from_json(to_json(report)).runs[0]
    assert run.result is not None and run.result.peak_memory_bytes
    if suite == "bandwidth":
        assert {"d2d_gbs", "h2d_gbs", "d2h_gbs"} <= set(run.result.figures)
    if suite in ("gemm", "bandwidth"):
        assert run.reference is not None


def test_telemetry_is_sampled_during_a_gpu_run(tmp_path: Path) -> None:
    pytest.importorskip("pynvml") if torch.version.cuda else None
    out, events = run_worker(gpu("resnet50-train", steps=None, seconds=2.0), tmp_path, env={},
                             telemetry_interval_s=0.1)
    assert out.status == "ok", out.error
    assert out.telemetry_source in ("nvml", "amdgpu-sysfs")
    assert len(out.telemetry) >= 5
    assert any(s.power_w for s in out.telemetry)
    assert [e for e in events if e["event"] == "telemetry"]
    assert out.device_ids is not None and out.device_ids.pci_id


def test_gemm_at_its_default_size_chooses_the_size_and_reports_the_peak(tmp_path: Path) -> None:
    """The health check as it runs (shorter): the size trial, the peak beside the sustained
    rate, and the datasheet comparison of the peak."""
    opts = gpu("gemm", size="default", steps=None, warmup_steps=None, seconds=0.5)
    out, events = run_worker(opts, tmp_path, env={})
    assert out.status == "ok", (out.error, out.stderr_tail[-2000:])
    setup = [e["what"] for e in events if e.get("phase") == "setup"]
    assert "choosing the matrix size (a quick bf16 trial)" in setup
    report = build_report([out], LiveSystem(), machine_facts=Machine())
    run = from_json(to_json(report)).runs[0]
    assert run.result is not None
    details = run.result.details
    assert details["shape"] in ("8192x8192x8192", "16384x16384x16384")
    assert "8192x8192x8192" in details["size_trial"] and details["size_choice"]
    for dt in ("bf16", "fp16", "fp32"):
        peak = run.result.figures[f"tflops_{dt}_peak"]
        assert peak.median >= run.result.figures[f"tflops_{dt}"].median and peak.n == 5
    ref = run.reference
    if ref is not None and "tflops_bf16" in ref.fractions:
        assert "tflops_bf16_peak" in ref.fractions
