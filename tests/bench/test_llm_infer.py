"""``llm-infer`` on the CPU at tiny sizes, for real: the worker through the runner (event stream,
parts, figures, report), the greedy decode loop against transformers' own ``generate``, the
SDPA backend it reads from the profiler, the preset choice by free memory and its options."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from transformers import DynamicCache

from core.bench.run_report import build_report
from core.bench.worker.options import BenchOptions
from core.bench.worker.suites import llm, llm_infer
from core.i18n import set_language
from core.report import formatting as fmt
from core.report.markdown import render_markdown
from core.report.model import from_json, to_json
from core.report.privacy import scrub_report
from core.report.text import run_text
from core.system import LiveSystem
from tests.bench.helpers import run_worker, tiny
from tests.bench.test_suites_cpu import MACHINE, check_report, check_stream, measured_steps

GB = 10**9


def test_llm_infer_tiny_streams_prefill_then_decode(tmp_path: Path) -> None:
    out, events = run_worker(tiny("llm-infer"), tmp_path)
    assert out.status == "ok", out.error
    check_stream(events, steps=3, warmup=1, parts=2)
    parts = [e["part"] for e in events if e["event"] == "phase" and e["phase"] == "measure"]
    assert parts == ["prefill", "decode"]
    res = out.result
    assert res is not None and res["headline"] == "decode_throughput"
    assert res["settings"]["preset"] == "tiny" and res["settings"]["seq_len"] == 32
    assert res["settings"]["precision"] == "fp32" and res["settings"]["batch_size"] == 1
    prefill = measured_steps(events, "prefill")
    decode = measured_steps(events, "decode")
    assert all(s["items"] == 32 for s in prefill) and all(s["items"] == 8 for s in decode)
    figs = res["figures"]
    assert list(figs) == ["prefill_throughput", "ttft", "decode_throughput",
                          "decode_token_time"]
    assert figs["ttft"]["median"] == pytest.approx(
        statistics.median(s["seconds"] for s in prefill))
    assert figs["prefill_throughput"]["median"] == pytest.approx(
        statistics.median(32 / s["seconds"] for s in prefill))
    assert figs["decode_throughput"]["median"] == pytest.approx(
        statistics.median(8 / s["seconds"] for s in decode))
    assert figs["decode_token_time"]["median"] == pytest.approx(
        statistics.median(s["seconds"] / 8 for s in decode))
    assert not figs["ttft"]["higher_is_better"] and figs["ttft"]["unit"] == "s"
    d = res["details"]
    assert d["prompt_tokens"] == 32 and d["decode_tokens"] == 8 and d["dtype"] == "float32"
    # the CPU build runs SDPA's flash kernel for CPU in both passes; no CUDA switches on a CPU
    assert d["sdpa"] == {"prefill": ["flash (cpu)"], "decode": ["flash (cpu)"]}
    assert "aotriton_experimental" not in d  # a ROCm-only fact
    assert "llama.cpp" in d["comparison"]
    assert res["peak_memory_bytes"] > 0
    check_report(out)


def test_llm_infer_report_keeps_every_figure_and_says_llama_cpp_is_not_comparable(
        tmp_path: Path) -> None:
    out, _ = run_worker(tiny("llm-infer", steps=2), tmp_path)
    assert out.status == "ok", out.error
    # the privacy scrubber drops keys that end in "token" (secrets): every figure must survive
    report = scrub_report(build_report([out], LiveSystem(), machine_facts=MACHINE))
    report = from_json(to_json(report))
    run = report.runs[0]
    assert run.result is not None
    assert set(run.result.figures) == {"prefill_throughput", "ttft", "decode_throughput",
                                       "decode_token_time"}
    text = "\n".join(run_text(run))
    assert text.startswith("LLM inference on ")
    assert "not comparable" in text and "llama.cpp" in text
    markdown = render_markdown(report)  # figures by their words there
    assert "time to first token" in markdown and "llama.cpp" in markdown
    set_language("zh_CN")
    try:
        assert fmt.suite_title("llm-infer") == "LLM推理"
        assert fmt.figure_label("ttft") != "time to first token"
        assert "llama.cpp" in fmt.suite_notes("llm-infer")[0]
    finally:
        set_language(None)
    assert fmt.suite_notes("llm-train") == []


def test_the_decode_loop_is_greedy_generation_with_the_cache() -> None:
    """The suite's prefill + decode produce the tokens transformers' generate() produces with
    do_sample=False, and rewinding the cache replays them exactly."""
    model = llm_infer.build("tiny", torch.float32, torch.device("cpu"), 64, seed=3)
    kw = llm_infer.cache_keyword(model)
    prompt = torch.randint(0, model.config.vocab_size, (1, 16), generator=torch.Generator()
                           .manual_seed(1))
    with torch.inference_mode():
        want = model.generate(prompt, max_new_tokens=6, do_sample=False,
                              min_new_tokens=6)[0, 16:].tolist()
    cache = DynamicCache(config=model.config)
    token = llm_infer.prefill(model, prompt, cache, kw)
    got = [int(token)]
    for _ in range(5):
        token = llm_infer.decode(model, cache, token, 1, kw)
        got.append(int(token))
    assert got == want
    assert cache.get_seq_length() == 16 + 5
    llm_infer.rewind(cache, 16)
    assert cache.get_seq_length() == 16
    again = llm_infer.decode(model, cache, llm_infer.prefill(model, prompt,
                                                             DynamicCache(config=model.config),
                                                             kw), 5, kw)
    assert int(again) == want[-1]


def test_sdpa_backend_is_read_from_the_operators_that_ran() -> None:
    q = torch.randn(1, 4, 16, 8)
    with sdpa_kernel(SDPBackend.MATH):
        used = llm_infer.sdpa_used(
            lambda: torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True))
    assert used == ["math"]
    assert llm_infer.sdpa_used(lambda: torch.ones(3) + 1) == []


@pytest.mark.parametrize(("free_gb", "preset"), [
    (140, "8b"), (23, "8b"), (20, "3b"), (10, "3b"), (8, "1b"), (3, "1b"), (1, "1b")])
def test_the_preset_is_the_largest_that_fits_free_memory(free_gb: int, preset: str) -> None:
    got, why = llm_infer.choose(None, free_gb * GB, 1, 640, tiny=False, dtype_bytes=2)
    assert got == preset
    assert ("may not fit" in why) == (free_gb == 1)


def test_preset_choices_and_shapes() -> None:
    assert llm_infer.choose("3b", 1, 1, 640, tiny=False, dtype_bytes=2) == ("3b", "--preset")
    assert llm_infer.choose(None, None, 1, 640, tiny=False, dtype_bytes=4)[0] == "1b"
    assert llm_infer.choose("8b", None, 1, 640, tiny=True, dtype_bytes=4)[0] == "tiny"
    with pytest.raises(ValueError, match="unknown --preset"):
        llm_infer.choose("tiny", None, 1, 640, tiny=False, dtype_bytes=2)
    # Llama-3.1-8B's published size: 8.03 B parameters
    assert llm.param_count("8b") == pytest.approx(8.03e9, rel=0.001)
    # the 8B model's bf16 weights alone are 16 GB; cache, activations and margin stay small
    assert 16 * GB < llm_infer.estimate_bytes("8b", 1, 640) < 20 * GB


def test_llm_infer_options() -> None:
    ok = BenchOptions(suite="llm-infer", preset="8b", seq_len=128, precision="amp-fp16",
                      batch_size=2, seed=3)
    assert ok.problems() == []
    assert "--preset" in ok.to_argv() and "8b" in ok.to_argv()
    for bad in ({"compile": True}, {"channels_last": True}, {"inference_steps": 4}):
        problems = BenchOptions(suite="llm-infer", **bad).problems()
        assert len(problems) == 1 and "llm-infer does not take it" in problems[0], bad
    assert BenchOptions(suite="llm-infer", gpus="2").problems() == [
        "--gpus: only resnet50-train and llm-train have a data-parallel mode"]


FIXTURE = Path(__file__).resolve().parents[1] / "fixtures/reports/llm/cpu-tiny-llm-infer.json"


def test_the_recorded_report_loads_and_every_form_carries_the_note() -> None:
    """A real report of the suite (rocmate's development machine, tiny on the CPU) reads with
    today's reader, and the text, Markdown and HTML forms all say that GGUF runners' tokens/s
    are not comparable."""
    from core.report.html import render_html

    report = from_json(FIXTURE.read_text())
    run = report.runs[0]
    assert run.suite == "llm-infer" and run.result is not None
    assert run.result.headline == "decode_throughput"
    assert run.result.details["sdpa"]["decode"] == ["flash (cpu)"]
    assert [s.part for s in run.steps if s.phase == "measure"] == ["prefill"] * 20 + [
        "decode"] * 20
    note = fmt.suite_notes("llm-infer")[0]
    assert note in "\n".join(run_text(run))
    assert "llama.cpp" in render_markdown(report)
    assert "llama.cpp" in render_html(report)
