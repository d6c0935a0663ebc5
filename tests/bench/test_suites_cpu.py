"""Every suite, run for real on the CPU at tiny sizes through the real runner: the event stream,
the statistics and the report built from it."""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

import pytest

from core.bench.peaks import reference
from core.bench.run_report import build_report
from core.bench.runner import RunOutcome
from core.report import formatting as fmt
from core.report.model import Machine, Report, Software, from_json, to_json
from core.report.text import run_text
from core.report.writers import render
from core.system import LiveSystem
from tests.bench.helpers import run_worker, tiny

MACHINE = Machine(platform={"distro_id": "test"}, gpus=[])


def check_stream(events: list[dict[str, Any]], steps: int, warmup: int,
                 parts: int = 1) -> None:
    """setup phases (importing PyTorch before hello, the suite's own after it), all before the
    first step; hello, then per part: warmup phase, its steps, measure phase, its steps; then
    result and phase done; framed by the runner's run/end lines."""
    kinds = [e["event"] for e in events]
    assert kinds[0] == "run" and kinds[-1] == "end"
    worker = [e for e in events if e["event"] in ("hello", "phase", "step", "result", "error")]
    setups = [i for i, e in enumerate(worker) if e.get("phase") == "setup"]
    first_step = next(i for i, e in enumerate(worker) if e["event"] == "step")
    assert setups and max(setups) < first_step
    assert worker[0]["what"] == "importing PyTorch"
    hello = next(i for i, e in enumerate(worker) if e["event"] == "hello")
    assert [i for i in setups if i > hello], "the suite says what it prepares after hello"
    for i in setups:
        assert worker[i]["what"] and worker[i]["t"] >= 0
    assert worker[-2]["event"] == "result"
    assert worker[-1] == {**worker[-1], "event": "phase", "phase": "done"}
    phases = [e["phase"] for e in worker if e["event"] == "phase" and e["phase"] != "setup"]
    assert phases == ["warmup", "measure"] * parts + ["done"]
    steps_seen = [e for e in worker if e["event"] == "step"]
    assert len([s for s in steps_seen if s["phase"] == "warmup"]) == warmup * parts
    measured = [s for s in steps_seen if s["phase"] == "measure"]
    assert len(measured) == steps * parts
    for s in steps_seen:
        assert s["seconds"] > 0 and s["items"] >= 1
        assert s["throughput"] == pytest.approx(s["items"] / s["seconds"])
    rx = [e["rx_t"] for e in events]
    assert rx == sorted(rx)
    assert not [e for e in events if e["event"] == "error"]


def check_report(out: RunOutcome) -> None:
    report = build_report([out], LiveSystem(), machine_facts=MACHINE)
    again = from_json(to_json(report))
    assert again == report
    run = again.runs[0]
    assert run.status == "ok" and run.result is not None
    assert run.device is not None and run.device.backend == "cpu"
    assert run.reference is None  # no datasheet for a CPU


def measured_steps(events: list[dict[str, Any]], part: str | None = None) -> list[dict[str, Any]]:
    return [e for e in events if e["event"] == "step" and e["phase"] == "measure"
            and e.get("part") == part]


def test_resnet50_train(tmp_path: Path) -> None:
    out, events = run_worker(tiny("resnet50-train", steps=4), tmp_path)
    assert out.status == "ok", out.error
    check_stream(events, steps=4, warmup=1)
    res = out.result
    assert res is not None and res["headline"] == "throughput"
    times = [s["seconds"] for s in measured_steps(events)]
    fig = res["figures"]["step_time"]
    assert fig["median"] == pytest.approx(statistics.median(times))
    assert fig["min"] == pytest.approx(min(times)) and fig["n"] == 4
    tput = res["figures"]["throughput"]
    assert tput["median"] == pytest.approx(statistics.median(4 / t for t in times))
    assert tput["p10"] <= tput["median"] <= tput["p90"]
    assert res["figures"]["tflops"]["median"] > 0
    assert res["details"]["flops_per_item"] > 0
    assert res["settings"]["precision"] == "fp32" and res["settings"]["batch_size"] == 4
    assert res["warmup"] == {**res["warmup"], "steps": 1, "forced": True, "settled": None}
    assert res["measure"]["items"] == 16
    assert res["peak_memory_bytes"] > 0
    check_report(out)


def test_resnet50_amp_bf16_channels_last_warms_up_until_settled(tmp_path: Path) -> None:
    opts = tiny("resnet50-train", precision="amp-bf16", channels_last=True, warmup_steps=None,
                batch_size=2)
    out, _ = run_worker(opts, tmp_path)
    assert out.status == "ok", out.error
    assert out.result is not None
    w = out.result["warmup"]
    assert w["forced"] is False and isinstance(w["settled"], bool)
    assert 3 <= w["steps"] <= 12
    assert out.result["details"]["memory_format"] == "channels_last"
    assert out.result["settings"]["precision"] == "amp-bf16"


def test_sd15_infer(tmp_path: Path) -> None:
    out, events = run_worker(tiny("sd15-infer", inference_steps=3, steps=2), tmp_path)
    assert out.status == "ok", out.error
    check_stream(events, steps=2, warmup=1)
    res = out.result
    assert res is not None and res["headline"] == "seconds_per_image"
    assert res["details"]["weights"].startswith("random")
    figs = res["figures"]
    for name in ("unet_it_s", "text_encoder_s", "unet_loop_s", "vae_decode_s", "unet_tflops"):
        assert figs[name]["median"] > 0, name
    assert res["details"]["pipeline"] == "StableDiffusionPipeline"
    assert res["details"]["output_type"] == "np"
    steps = measured_steps(events)
    assert figs["unet_it_s"]["median"] == pytest.approx(
        statistics.median(s["unet_it_s"] for s in steps))
    for s in steps:
        assert s["unet_it_s"] == pytest.approx(3 / s["unet_loop_s"])
        # the split is contiguous from the call's start to its return: it adds up to the image,
        # less only the harness's own stamps and the final (CPU: no-op) synchronisation
        parts = s["text_encoder_s"] + s["unet_loop_s"] + s["vae_decode_s"]
        assert 0.95 * s["seconds"] <= parts <= s["seconds"] * 1.01
    check_report(out)


def test_sd15_with_a_local_model_folder(tmp_path: Path) -> None:
    import torch
    from diffusers import StableDiffusionPipeline

    from core.bench.worker.suites.sd15 import build_random

    c = build_random(True, torch.device("cpu"), torch.float32, str(tmp_path))
    pipe = StableDiffusionPipeline(vae=c.vae, text_encoder=c.text_encoder, tokenizer=c.tokenizer,
                                   unet=c.unet, scheduler=c.scheduler, safety_checker=None,
                                   feature_extractor=None, requires_safety_checker=False)
    folder = tmp_path / "my-sd-model"
    pipe.save_pretrained(folder)
    out, _ = run_worker(tiny("sd15-infer", inference_steps=2, steps=1, model=str(folder)),
                        tmp_path)
    assert out.status == "ok", out.error
    assert out.result is not None
    assert out.result["details"]["weights"] == "local folder my-sd-model"
    assert out.result["details"]["resolution"] == 32


def test_llm_train(tmp_path: Path) -> None:
    out, events = run_worker(tiny("llm-train"), tmp_path)
    assert out.status == "ok", out.error
    check_stream(events, steps=3, warmup=1)
    res = out.result
    assert res is not None
    assert res["settings"]["preset"] == "tiny" and res["settings"]["seq_len"] == 32
    assert res["details"]["tokens_per_step"] == 64
    assert all(s["items"] == 64 for s in measured_steps(events))
    assert res["figures"]["throughput"]["unit"] == "tokens/s"
    assert res["figures"]["tflops"]["median"] > 0
    check_report(out)


def best_four_or_all(rates: list[float]) -> tuple[int, int]:
    """The window a forced short warm-up's peak must be, by the rule (read here on its own,
    not through core.bench.worker.stats.best_window): the 4 steps in a row with the highest
    median, the first of equals; all of them where that median is below the series' median
    (on a loaded CPU the fast steps can sit at both ends)."""
    medians = [statistics.median(rates[i:i + 4]) for i in range(len(rates) - 3)]
    if not medians or max(medians) < statistics.median(rates):
        return 0, len(rates)
    start = medians.index(max(medians))
    return start, start + 4


def test_gemm(tmp_path: Path) -> None:
    out, events = run_worker(tiny("gemm", steps=12), tmp_path)
    assert out.status == "ok", out.error
    check_stream(events, steps=12, warmup=1, parts=3)
    res = out.result
    assert res is not None and res["headline"] == "tflops_bf16"
    assert res["settings"]["precision"] is None
    assert res["details"]["shape"] == "256x256x256" and res["details"]["size_choice"]
    assert "size_trial" not in res["details"]  # no trial at --size tiny
    for dt in ("fp32", "fp16", "bf16"):
        steps = measured_steps(events, dt)
        n = res["details"]["parts"][dt]["n"]
        reps = res["details"]["parts"][dt]["products_per_step"]
        rates = [2 * n**3 * reps / s["seconds"] / 1e12 for s in steps]
        sustained = res["figures"][f"tflops_{dt}"]
        assert sustained["median"] == pytest.approx(statistics.median(rates))
        # a warm-up forced to one step leaves no burst: the best 4 measured steps in a row,
        # or all 12 where no 4 in a row reach the median (which these step times decide)
        peak = res["figures"][f"tflops_{dt}_peak"]
        start, stop = best_four_or_all(rates)
        assert peak["median"] == pytest.approx(statistics.median(rates[start:stop]))
        assert peak["n"] == stop - start and peak["unit"] == "TFLOP/s"
        assert peak["median"] >= sustained["median"]
        assert res["details"]["parts"][dt]["burst_measured_steps"] == [start, stop - 1]
        assert res["details"]["parts"][dt]["peak"] == (
            f"the best {stop - start} measured steps in a row (the warm-up was too short for "
            "a burst)")
    assert list(res["figures"])[:2] == ["tflops_bf16", "tflops_bf16_peak"]
    check_report(out)


def test_gemm_burst_is_the_first_warmup_steps(tmp_path: Path) -> None:
    """Issue 39: the peak is one method, a burst: warm-up steps 1-4 after three untimed
    products (what the burst-timed reference results measured), never a window picked from
    the measured phase; the sustained figure is the measured phase's median."""
    out, events = run_worker(tiny("gemm", warmup_steps=None, steps=6), tmp_path)
    assert out.status == "ok", out.error
    res = out.result
    assert res is not None
    for dt in ("fp32", "fp16", "bf16"):
        part = res["details"]["parts"][dt]
        n, reps = part["n"], part["products_per_step"]
        warm = [e for e in events if e["event"] == "step" and e["phase"] == "warmup"
                and e.get("part") == dt]
        assert len(warm) >= 5 and part["burst_warmup_steps"] == [1, 4]
        burst = [2 * n**3 * reps / s["seconds"] / 1e12 for s in warm[1:5]]
        peak = res["figures"][f"tflops_{dt}_peak"]
        assert peak["n"] == 4 and peak["median"] == pytest.approx(statistics.median(burst))
        measured = [2 * n**3 * reps / s["seconds"] / 1e12 for s in measured_steps(events, dt)]
        assert res["figures"][f"tflops_{dt}"]["median"] == pytest.approx(
            statistics.median(measured))
        assert part["peak"].startswith("the burst: warm-up steps 1-4")
    assert res["details"]["peak"] == res["details"]["parts"]["bf16"]["peak"]
    assert "rested" not in res["details"]["peak"]  # the CPU does not rest between dtypes


def test_gemm_peak_is_the_datasheet_comparison_and_the_headline(tmp_path: Path) -> None:
    """The CPU run's figures set against the H200 datasheet (as the parent does on that card):
    the comparison quotes the peak, the sustained fraction beside it; every writer shows
    "peak X, sustained Y"."""
    out, _ = run_worker(tiny("gemm", steps=8), tmp_path)
    assert out.status == "ok", out.error
    run = build_report([out], LiveSystem(), machine_facts=MACHINE).runs[0]
    assert run.result is not None
    peak = run.result.figures["tflops_bf16_peak"].median
    sustained = run.result.figures["tflops_bf16"].median
    ref = reference("gemm", run.settings, run.result.figures, "10de:2335", None, "NVIDIA H200")
    assert ref is not None and ref.peaks["tflops_bf16_peak"] == 989.4
    assert ref.fractions["tflops_bf16_peak"] == pytest.approx(peak / 989.4)
    assert ref.fractions["tflops_bf16"] == pytest.approx(sustained / 989.4)
    run.reference = ref
    both = f"peak {fmt.num(peak)}, sustained {fmt.num(sustained)} TFLOP/s"
    assert fmt.headline(run) == both
    text = "\n".join(run_text(run))
    assert f"bf16: {both}" in text  # the figure's name in words (issue 31/16)
    share = (f"bf16 peak {fmt.pct(peak / 989.4, 0)}, sustained "
             f"{fmt.pct(sustained / 989.4, 0)} of 989.4")
    assert share in text and "tflops_bf16_peak " not in text.split("vs datasheet")[1]
    report = Report(tool_version="t", created="2026-12-01T00:00:00+00:00", machine=MACHINE,
                    software=Software(), runs=[run])
    assert both in render(report, "md").splitlines()[0]
    html = render(report, "html")
    assert f'<data value="{peak!r}">' in html and "sustained" in html


def test_a_burst_peak_is_named_as_one_where_it_is_quoted(tmp_path: Path) -> None:
    """Issue 39: a report says how its peak was measured. A burst (warm-up steps 1-4) is
    called one in the HTML headline and beside a reference; a peak from a warm-up forced short
    (the best measured steps in a row), as in every report before, keeps its old words."""
    from core.report.references import your_value

    burst_out, _ = run_worker(tiny("gemm", warmup_steps=None, steps=6), tmp_path / "burst")
    window_out, window_events = run_worker(tiny("gemm", steps=6), tmp_path / "window")
    said = {}
    for name, out in (("burst", burst_out), ("window", window_out)):
        assert out.status == "ok", out.error
        run = build_report([out], LiveSystem(), machine_facts=MACHINE).runs[0]
        assert run.result is not None
        assert run.result.peak_is_burst("tflops_bf16") is (name == "burst")
        value, words, _ = your_value(run, "tflops_bf16", "TFLOP/s")
        assert value == run.result.figures["tflops_bf16_peak"].median
        report = Report(tool_version="t", created="2026-12-01T00:00:00+00:00", machine=MACHINE,
                        software=Software(), runs=[run])
        said[name] = (words or "", render(report, "html"))
    assert said["burst"][0].startswith("your burst (the first 4 steps on a rested card")
    assert "a burst: the first 4 steps on a rested card" in said["burst"][1]
    # the best 4 measured steps in a row, or all 6 where no 4 reach the series' median: which
    # one, these step times decide (the rule read on its own, best_four_or_all)
    assert window_out.result is not None
    part = window_out.result["details"]["parts"]["bf16"]
    flops = 2 * part["n"] ** 3 * part["products_per_step"] / 1e12
    rates = [flops / s["seconds"] for s in measured_steps(window_events, "bf16")]
    start, stop = best_four_or_all(rates)
    assert said["window"][0].startswith(f"your peak (the best {stop - start} steps in a row")
    assert f"peak (best {stop - start} steps)" in said["window"][1]


def test_bandwidth(tmp_path: Path) -> None:
    out, events = run_worker(tiny("bandwidth"), tmp_path)
    assert out.status == "ok", out.error
    check_stream(events, steps=3, warmup=1, parts=1)  # the CPU has no bus copies
    res = out.result
    assert res is not None and set(res["figures"]) == {"d2d_gbs"}
    assert res["figures"]["d2d_gbs"]["median"] > 0
    check_report(out)


def test_the_worker_imports_core_from_its_own_folder_only(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # a PYTHONPATH in the caller's environment (e.g. rocmate's own packages) must not reach it
    fake = tmp_path / "leak"
    (fake / "core").mkdir(parents=True)
    (fake / "core" / "__init__.py").write_text("raise ImportError('the app path leaked')\n")
    monkeypatch.setenv("PYTHONPATH", str(fake))
    out, _ = run_worker(tiny("gemm", steps=1, warmup_steps=0), tmp_path)
    assert out.status == "ok", out.error
    assert out.hello is not None
    root = Path(out.hello["worker_root"])
    assert root.name.startswith("rocmate-worker-")
    assert not root.exists()  # the runner removed its temporary folder


def test_the_gemm_size_trial_times_a_short_burst() -> None:
    import torch

    from core.bench.worker.suites.gemm import trial_rate

    t0 = time.perf_counter()
    assert trial_rate(128, torch.float32, torch.device("cpu"), lambda: None) > 0
    assert time.perf_counter() - t0 < 10
