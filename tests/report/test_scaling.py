"""Scaling efficiency (core.report.scaling): a data-parallel run against the single-GPU run of
the same invocation, derived from the report's runs and shown in text, Markdown and HTML."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.report.html import render_html
from core.report.markdown import render_markdown
from core.report.scaling import Scaling, scaling, scaling_text, world_size
from core.report.text import report_text
from tests.report.support import CPU, FIXTURES, load

SCALED = FIXTURES / "cpu-tiny-scaling-resnet50-train-gpus2.json"


def test_the_recorded_two_rank_run() -> None:
    report = load(SCALED)
    one, two = report.runs
    assert (world_size(one), world_size(two)) == (1, 2)
    assert one.settings["gpus"] == "1" and two.settings["gpus"] == "2"
    [found] = scaling(report)
    assert one.result is not None and two.result is not None
    assert found == Scaling("resnet50-train", 2, "images/s", one.result.headline_figure.median,
                            two.result.headline_figure.median, on_gpu=False)
    assert found.efficiency == pytest.approx(found.total / (2 * found.single))
    line = f"Scaling, resnet50-train: {scaling_text(found)}"
    assert line.startswith("Scaling, resnet50-train: 2 processes on the CPU: ")
    assert line in report_text(report)
    assert scaling_text(found) in render_markdown(report)
    assert scaling_text(found) in render_html(report)


def test_words_on_a_gpu() -> None:
    s = Scaling("resnet50-train", 2, "images/s", 1000.0, 1930.0)
    assert scaling_text(s) == ("2 GPUs: 1,930 images/s, 1.93 × one GPU (1,000 images/s), "
                               "96 % scaling efficiency")


def test_nothing_to_scale_against() -> None:
    assert scaling(load(CPU)) == []
    report = load(SCALED)
    assert scaling(replace(report, runs=report.runs[1:])) == []  # no single-GPU run
    failed = replace(report.runs[1], status="error")
    assert scaling(replace(report, runs=[report.runs[0], failed])) == []
    assert "scaling" not in report_text(load(CPU))


def test_in_chinese() -> None:
    from core.i18n import set_language

    set_language("zh_CN")
    try:
        text = scaling_text(Scaling("resnet50-train", 2, "images/s", 1000.0, 1930.0))
    finally:
        set_language(None)
    assert text == "2张GPU：1,930 images/s，是单张GPU（1,000 images/s）的1.93倍，扩展效率96%"
