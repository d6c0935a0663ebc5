"""Issue 31/16: a figure reads as words, not the worker's id (``tflops_bf16_peak``, ``d2d_gbs``),
in English and Chinese; a CPU run's peak memory is the machine's (内存), not the GPU's (显存)."""

from __future__ import annotations

from core.report import formatting as fmt
from core.report.html import render_html
from core.report.markdown import render_markdown
from core.report.text import report_text
from tests.report.support import CPU, load


def test_the_figures_read_as_words() -> None:
    assert fmt.figure_label("tflops_bf16_peak") == "bf16 peak"
    assert fmt.figure_label("tflops_fp32") == "fp32"
    assert fmt.figure_label("step_time") == "step time"
    assert fmt.figure_label("d2h_gbs") == "device to host"
    assert fmt.figure_label("a_new_figure") == "a new figure"  # a newer worker's, as before


def test_the_figures_read_as_words_in_chinese(chinese: None) -> None:
    assert fmt.figure_label("throughput") == "吞吐量"
    assert fmt.figure_label("tflops_bf16_peak") == "bf16 峰值"
    assert fmt.figure_label("h2d_gbs") == "主机到设备"


def test_a_cpu_runs_peak_memory_is_the_machines(chinese: None) -> None:
    report = load(CPU)
    assert report.runs[0].device is not None and report.runs[0].device.backend == "cpu"
    for text in (report_text(report), render_markdown(report), render_html(report)):
        assert "内存峰值" in text and "显存峰值" not in text
