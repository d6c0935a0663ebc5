"""Issue 36: the first GPU run of ``llm-infer`` (gpu/h200-llm-infer-8b.json, the NVIDIA H200 of
the device machine, 2026-12-05; tests/fixtures/reports/README.md) as its reader meets it: the
text of ``rocmate report show`` in English and Chinese and the HTML page hold both parts'
figures, a figure per watt for each part with NVML named, the attention kernel PyTorch ran
(cuDNN's SDPA here) and the note that llama.cpp's figures are another harness; the cold start is
the decode part's first step against the decode part's own steps."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.operations.reports import cold_start
from core.report import formatting as fmt
from core.report.efficiency import of_run
from core.report.html import render_html
from core.report.markdown import render_markdown
from core.report.model import Report, from_json, to_json
from core.report.text import report_text

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "tests" / "fixtures" / "reports" / "gpu" / "h200-llm-infer-8b.json"
CPU_TINY = ROOT / "tests" / "fixtures" / "reports" / "llm" / "cpu-tiny-llm-infer.json"


def load(path: Path = REPORT) -> Report:
    return from_json(path.read_text(encoding="utf-8"))



def _block(text: str, label: str) -> list[str]:
    """The lines under ``label`` (a line of its own) that are indented deeper than it."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip() == label)
    indent = len(lines[at]) - len(lines[at].lstrip())
    below = []
    for line in lines[at + 1:]:
        if len(line) - len(line.lstrip()) <= indent:
            break
        below.append(line.strip())
    return below


def _line(text: str, start: str) -> str:
    """The one line of ``text`` that starts (after its indent) with ``start``."""
    found = [line.strip() for line in text.splitlines() if line.strip().startswith(start)]
    assert len(found) == 1, f"{start!r}: {found}"
    return found[0]


def test_the_recorded_run_is_what_the_h200_measured() -> None:
    report = load()
    [run] = report.runs
    assert run.result is not None and run.device is not None
    assert (run.suite, run.status, run.device.name) == ("llm-infer", "ok", "NVIDIA H200")
    assert (run.settings["preset"], run.settings["precision"], run.settings["batch_size"],
            run.settings["seq_len"]) == ("8b", "amp-bf16", 1, 512)
    figures = run.result.figures
    assert round(figures["prefill_throughput"].median) == 20609
    assert figures["ttft"].median == pytest.approx(0.02484, abs=5e-6)
    assert figures["decode_throughput"].median == pytest.approx(35.68, abs=0.005)
    assert run.result.headline == "decode_throughput"
    assert run.result.details["sdpa"]["prefill"] == run.result.details["sdpa"]["decode"] == [
        "cudnn"]
    assert {s.part for s in run.steps} == {"prefill", "decode"}
    assert from_json(to_json(report)) == report  # it reads back as it was written


def test_report_show_holds_both_parts_their_per_watt_and_the_kernel() -> None:
    text = report_text(load())
    # the figures by their words, as the HTML and the app name them
    assert re.search(r"prompt processing +20,609 +12,538–21,658 +19\.0 % +tokens/s", text)
    assert re.search(r"time to first token +0\.02484 ", text)
    assert re.search(r"\*generation +35\.68 +29\.47–38\.11 +12\.6 % +tokens/s", text)
    assert re.search(r"time per generated token +0\.02803 ", text)
    assert "prefill_throughput" not in text
    # each part's measured phase, not the headline part's alone
    assert _block(text, "measured:") == ["prefill: 105 steps in 3 s, 53,760 items",
                                         "decode: 5 steps in 19.0 s, 640 items"]
    decode = _line(text, "per watt: decode:")
    assert decode.startswith("per watt: decode: 0.1966 tokens/s per W, 5.38 J/token at 181 W")
    assert "NVML (nvmlDeviceGetTotalEnergyConsumption), energy counter" in decode
    assert "the measured 19.0 s (warm-up left out), 39 samples" in decode
    prefill = _line(text, "per watt: prefill:")
    assert prefill.startswith("per watt: prefill: 44.3 tokens/s per W")
    assert "NVML (nvmlDeviceGetTotalEnergyConsumption)" in prefill
    assert _line(text, "attention:") == "attention: SDPA, prefill and decode: cudnn"
    note = _line(text, "note:")
    assert "llama.cpp" in note and "not comparable with these" in note


def test_report_show_in_chinese(chinese: None) -> None:
    text = report_text(load())
    assert "NVIDIA H200 (cuda, sm_90)上的LLM推理" in text
    assert re.search(r"提示词处理 +20,609 ", text)
    assert re.search(r"\*生成 +35\.68 ", text)
    # the parts by the words of their figures (提示词处理, 生成), not the worker's ids
    decode = _line(text, "每瓦性能：生成：")
    assert decode.startswith("每瓦性能：生成：每瓦 0.1966 tokens/s，5.38 J/token，功率 181 W")
    assert "NVML (nvmlDeviceGetTotalEnergyConsumption)，能量计数器" in decode
    assert _line(text, "每瓦性能：提示词处理：").startswith(
        "每瓦性能：提示词处理：每瓦 44.3 tokens/s")
    assert _line(text, "注意力内核：") == "注意力内核：SDPA，提示词处理和生成：cudnn"
    assert _block(text, "预热：") == ["提示词处理：29步，用时1.04 s，第一步0.0267 s（已稳定）",
                                    "生成：11步，用时42.0 s，第一步9.3 s（已稳定）"]
    # the ids stay only in the figures' own names (prefill_throughput, decode_token_time)
    words = re.sub(r"\b(prefill|decode)_\w+", "", text)
    assert "prefill" not in words and "decode" not in words
    note = _line(text, "注：")
    assert "llama.cpp" in note and "不可比" in note
    # every line rocmate writes itself is in Chinese: none of the English labels is left
    for english in ("per watt:", "attention:", "note:", "warm-up:", "measured:",
                    "peak memory:", "energy counter"):
        assert english not in text, english


def test_the_html_page_shows_them_too() -> None:
    page = render_html(load())
    plain = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)).replace("&#x27;", "'")
    assert "prompt processing 20,609 tokens/s" in plain
    assert "generation (median) 35.68 tokens/s" in plain
    assert "time to first token 0.02484 s" in plain
    assert ("decode: 0.1966 tokens/s per W, 5.38 J/token at 181 W (NVML "
            "(nvmlDeviceGetTotalEnergyConsumption), energy counter") in plain
    assert "prefill: 44.3 tokens/s per W" in plain
    assert "attention SDPA, prefill and decode: cudnn" in plain
    assert "their tokens per second are not comparable with these" in plain
    assert "llama.cpp" in plain


def test_the_html_page_in_chinese(chinese: None) -> None:
    plain = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", render_html(load())))
    assert "注意力内核 SDPA，提示词处理和生成：cudnn" in plain
    assert "生成：每瓦 0.1966 tokens/s" in plain and "提示词处理：每瓦 44.3 tokens/s" in plain
    assert "预热 提示词处理：29步" in plain
    assert "不可比" in plain


def test_markdown_names_the_kernel() -> None:
    assert "| attention | SDPA, prefill and decode: cudnn |" in render_markdown(load())


def test_each_part_has_its_own_figure_per_watt() -> None:
    run = load().runs[0]
    by_part = {e.part: e for e in of_run(run)}
    assert set(by_part) == {"decode", "prefill"}
    assert by_part["decode"].per_watt == pytest.approx(0.1966, abs=5e-5)
    assert by_part["decode"].per_item_j == pytest.approx(5.38, abs=0.005)
    assert by_part["prefill"].per_watt == pytest.approx(44.3, abs=0.05)
    assert {e.source for e in by_part.values()} == {"nvml"}


def test_the_kernel_where_the_parts_differ_and_where_none_was_recorded() -> None:
    run = load().runs[0]
    assert run.result is not None
    run.result.details["sdpa"] = {"prefill": ["flash"], "decode": ["efficient"]}
    assert fmt.attention_text(run) == "SDPA, prefill: flash; decode: efficient"
    run.result.details["aotriton_experimental"] = "1"
    assert fmt.attention_text(run) == ("SDPA, prefill: flash; decode: efficient; AOTriton "
                                       "experimental kernels on "
                                       "(TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL=1)")
    del run.result.details["sdpa"]
    assert fmt.attention_text(run) is None
    assert "attention:" not in report_text(load(ROOT / "tests" / "fixtures" / "reports"
                                                / "cpu-tiny-resnet50-train.json"))
    assert "attention: SDPA, prefill and decode: flash (cpu)" in report_text(load(CPU_TINY))


def test_the_cold_start_is_the_decode_parts_first_step_against_its_own_steps() -> None:
    """The result's warm-up is the decode part's (its first step: 9.3 s, the whole 128-token
    loop run cold); it was set against the prompt's steps (0.0248 s) and read 374x."""
    run = load().runs[0]
    start = cold_start(run)
    assert start is not None and run.result is not None
    assert start.first_step_s == pytest.approx(9.3008, abs=1e-4)
    decode = sorted(s.seconds for s in run.steps if s.phase == "measure" and s.part == "decode")
    assert start.steady_step_s == decode[len(decode) // 2]
    assert start.ratio == pytest.approx(2.59, abs=0.01)


def test_report_show_says_each_parts_warm_up() -> None:
    """The result's warm-up is the decode's alone (11 steps in 42 s): the prefill's (29 steps in
    1 s) was not said. Each part's, from ``details.parts.<part>.warmup``."""
    text = report_text(load())
    # a line a part under the label, in the terminal (not one line of 130 characters)
    assert _block(text, "warm-up:") == [
        "prefill: 29 steps in 1.04 s, first step 0.0267 s (settled)",
        "decode: 11 steps in 42.0 s, first step 9.3 s (settled)"]
    assert fmt.warmup_lines(load().runs[0]) == [
        "prefill: 29 steps in 1.04 s, first step 0.0267 s (settled)",
        "decode: 11 steps in 42.0 s, first step 9.3 s (settled)"]
    assert ("| warm-up | prefill: 29 steps in 1.04 s, first step 0.0267 s (settled); decode: 11 "
            "steps in 42.0 s") in render_markdown(load())


def test_a_run_of_one_part_or_with_odd_parts_says_the_results_warm_up() -> None:
    run = load().runs[0]
    assert run.result is not None
    del run.result.details["parts"]["prefill"]
    assert fmt.warmup_lines(run) == ["11 steps in 42.0 s, first step 9.3 s (settled)"]
    run.result.details["parts"]["prefill"] = {"warmup": {"steps": "29", "seconds": None}}
    assert fmt.warmup_lines(run) == ["11 steps in 42.0 s, first step 9.3 s (settled)"]
    run.result.details["parts"] = ["not", "a", "mapping"]
    assert fmt.warmup_text(run) == "11 steps in 42.0 s, first step 9.3 s (settled)"
