"""Issue 36: the H200's llm-infer run (tests/fixtures/reports/gpu/h200-llm-infer-8b.json) on the
Benchmark page and the Results page, as scripts/replay_run_screens.py streams it in for the
screenshots (docs/screenshots/gpu-run-h200/llm-infer-*.png).

What the first screenshots showed: the prompt's 20,000 tokens/s and the decode's 36 on one linear
axis (the decode a flat line on zero), the two parts' names written over each other at the foot
of their lines (they begin 3 s apart), and the Results card saying the cold start took "374x a
steady step" (the decode's first step against the prompt's steps) without the attention kernel or
the note that llama.cpp's figures are another harness."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from gui import i18n
from gui.bridge import Bridge
from gui.widgets.live_plots import LivePlots
from gui.widgets.results_view import ResultsView
from scripts.replay_run_screens import mid_run, run_events
from tests.gui.test_live_plots import _plots, assert_star_inside
from tests.gui.test_live_plots_painted import painted_share

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "tests" / "fixtures" / "reports"
LLM = REPORTS / "gpu" / "h200-llm-infer-8b.json"
PAGE = REPORTS / "gpu" / "h200-health-resnet50-page.json"  # gemm, bandwidth, resnet50-train


def _load(path: Path) -> Any:
    from core.report.model import from_json

    return from_json(path.read_text(encoding="utf-8"))


def _stream(qtbot: Any, plots: LivePlots, events: list[dict[str, Any]]) -> None:
    plots.reset()
    for i, event in enumerate(events):
        plots.add_event(event)
        if i % 7 == 0:
            qtbot.wait(5)  # the timer ticks between events, as in a live run
    plots.finish()
    qtbot.waitUntil(lambda: plots.settled, timeout=5000)
    # a resize of a plot the layout posted (it marks the labels to be placed anew) may come
    # after the timer rested: its redraw is waited for too
    qtbot.wait(100)
    qtbot.waitUntil(lambda: plots.settled, timeout=5000)


def _y_range(plots: LivePlots, key: str) -> tuple[float, float]:
    bottom, top = plots.plot(key).getPlotItem().getViewBox().viewRange()[1]
    return bottom, top


def test_the_events_rebuilt_carry_each_steps_part_and_unit() -> None:
    run = _load(LLM).runs[0]
    events = run_events(run)
    steps = [e for e in events if e["event"] == "step"]
    assert len(steps) == len(run.steps) == 150
    assert {e["part"] for e in steps} == {"prefill", "decode"}
    assert {e["unit"] for e in steps} == {"tokens/s"}
    phases = [(e.get("part"), e["phase"]) for e in events if e["event"] == "phase"]
    assert phases == [("prefill", "warmup"), ("prefill", "measure"), ("decode", "warmup"),
                      ("decode", "measure"), (None, "done")]
    assert [e["rx_t"] for e in events] == sorted(e["rx_t"] for e in events)
    # the live picture: prefill done, the decode's measured steps half taken
    at = mid_run(run)
    decode = [s.t for s in run.steps if s.part == "decode" and s.phase == "measure"]
    assert decode[0] < at < decode[-1]


def test_parts_far_apart_go_on_a_log_scale_and_the_decode_is_seen(qtbot: Any) -> None:
    run = _load(LLM).runs[0]
    plots = _plots(qtbot, fps=25.0)
    _stream(qtbot, plots, run_events(run))
    assert plots.plot("throughput").getPlotItem().getAxis("left").logMode
    bottom, top = _y_range(plots, "throughput")
    assert run.result is not None
    decode = math.log10(run.result.figures["decode_throughput"].median)
    prefill = math.log10(run.result.figures["prefill_throughput"].median)
    # on a linear axis to 29,000 the decode's 36 tokens/s sat 0.1 % above zero
    assert (decode - bottom) / (top - bottom) > 0.1
    assert (prefill - bottom) / (top - bottom) < 0.8  # room above for the medians' labels
    # each median line at its part's height on that scale
    medians = {m.part: m for m in plots.run.median_lines}
    assert set(medians) == {"prefill", "decode"}
    for n, m in enumerate(plots.run.median_lines):
        _, y = plots._deco[("throughput", f"median{n}")].getData()
        assert list(y) == [math.log10(m.value)] * 2
    assert painted_share(plots, "throughput") > 0.02


def test_parts_within_20x_stay_linear_and_a_new_run_starts_linear(qtbot: Any) -> None:
    plots = _plots(qtbot)
    plots.show_run(_load(LLM).runs[0])
    assert plots.plot("throughput").getPlotItem().getAxis("left").logMode
    gemm = _load(PAGE).runs[0]  # bf16 664, fp16 699, fp32 46.5 TFLOPS: 15x
    assert gemm.suite == "gemm"
    plots.show_run(gemm)
    assert not plots.plot("throughput").getPlotItem().getAxis("left").logMode
    bottom, top = _y_range(plots, "throughput")
    assert bottom < 0 < 700 < top  # from zero, as every linear throughput plot


def test_the_parts_names_do_not_overlap(qtbot: Any) -> None:
    run = _load(LLM).runs[0]
    plots = _plots(qtbot, fps=25.0)
    _stream(qtbot, plots, run_events(run))
    for key in ("throughput", "step_time"):
        labels = [plots._deco[(key, f"part{n}")].label for n in range(2)]
        assert [label.toPlainText() for label in labels] == ["prefill", "decode"]
        screen = plots.plot(key).viewportTransform()  # where each is painted, in pixels
        first, second = (label.deviceTransform(screen).mapRect(label.rect())
                         for label in labels)
        assert first.width() > 0 and not first.intersects(second), key
        # side by side where there is room: a gemm run's parts, seconds apart
    gemm = _load(PAGE).runs[0]
    plots.show_run(gemm)
    rows = [plots._deco[("throughput", f"part{n}")].label.row for n in range(3)]
    assert rows == [0, 0, 0]


def _view(qtbot: Any, bridge: Bridge) -> ResultsView:
    view = ResultsView(bridge)
    qtbot.addWidget(view)
    view.resize(900, 720)
    view.show_report(_load(LLM))
    return view


def test_the_results_card(qtbot: Any, bridge: Bridge) -> None:
    view = _view(qtbot, bridge)
    card = view.cards[0]
    assert card.facts["cold-start"].text() == (
        "the first step took 9.3 s, 2.59× a steady step (3.587 s)")
    assert card.facts["attention"].text() == "SDPA, prefill and decode: cudnn"
    note = card.facts["note"].text()
    assert "llama.cpp" in note and "not comparable with these" in note
    lines = card.facts["per-watt"].text().split("\n")
    assert lines[0].startswith("decode: 0.1966 tokens/s per W, 5.38 J/token at 181 W (NVML")
    assert lines[1].startswith("prefill: 44.3 tokens/s per W")
    # each part's warm-up, a line each: the result's is the decode's alone
    assert card.facts["warm-up"].text().split("\n") == [
        "prefill: 29 steps in 1.04 s, first step 0.0267 s (settled)",
        "decode: 11 steps in 42.0 s, first step 9.3 s (settled)"]
    # and each part's measured phase (it said decode's alone)
    assert card.facts["measured"].text().split("\n") == [
        "prefill: 105 steps in 3 s, 53,760 items", "decode: 5 steps in 19.0 s, 640 items"]


def test_the_results_card_in_chinese(qtbot: Any, bridge: Bridge) -> None:
    assert i18n.switch("zh_CN")
    view = _view(qtbot, bridge)
    card = view.cards[0]
    assert card.facts["cold-start"].text() == "第一步用了9.3 s，是一个稳态步（3.587 s）的2.59×"
    # the parts by the words of their figures in the table below (提示词处理, 生成)
    assert card.facts["attention"].text() == "SDPA，提示词处理和生成：cudnn"
    lines = card.facts["per-watt"].text().split("\n")
    assert lines[0].startswith("生成：每瓦 0.1966 tokens/s") and lines[1].startswith("提示词处理：")
    assert card.facts["warm-up"].text().split("\n") == [
        "提示词处理：29步，用时1.04 s，第一步0.0267 s（已稳定）",
        "生成：11步，用时42.0 s，第一步9.3 s（已稳定）"]
    assert card.facts["measured"].text().split("\n") == [
        "提示词处理：105步，用时3 s，共53,760项", "生成：5步，用时19.0 s，共640项"]
    assert "不可比" in card.facts["note"].text()
    keys = {label.text() for label in card.findChildren(type(card.facts["note"]))}
    assert {"注意力内核", "注"} <= keys
    assert "Attention" not in keys and "Note" not in keys


def _decode_first(run: Any) -> Any:
    return next(s for s in run.steps if s.part == "decode")


def test_the_cold_start_star_is_the_decodes_first_step(qtbot: Any) -> None:
    """The star marked the prefill's first step (0.0267 s, no slower than its other steps)
    while the run's cold start, the one the Results card and ``report show`` name, is the
    decode's (9.3 s): for a run of several parts it is the slowest part's first step, and once
    the result is in its warm-up's first step, as core's cold_start() takes it."""
    from core.operations.reports import cold_start

    run = _load(LLM).runs[0]
    first = _decode_first(run)
    start = cold_start(run)
    assert start is not None and first.seconds == start.first_step_s
    plots = _plots(qtbot, fps=25.0)
    events = run_events(run)
    # live, before the result: the decode's first step is already the cold start
    upto = [e for e in events if e["rx_t"] <= first.t + 1.0]
    plots.reset()
    for event in upto:
        plots.add_event(event)
    assert plots.run.cold is not None and plots.run.cold[1] == first.seconds
    for streamed in (True, False):
        if streamed:
            _stream(qtbot, plots, events)
        else:
            plots.show_run(run)
        assert plots.run.cold is not None
        t, seconds, throughput = plots.run.cold
        assert (t, seconds) == (first.t, first.seconds)
        assert throughput == pytest.approx(first.items / first.seconds)
        assert plots._deco[("step_time", "cold")].pos().x() == first.t
        assert plots._deco[("throughput", "cold")].pos().y() == pytest.approx(
            math.log10(first.items / first.seconds))
        label = plots._deco[("step_time", "cold-label")].toPlainText()
        assert label.startswith("cold start 9.301 s")
        # off the scale above the decode's later steps (3-4.5 s): drawn at the top edge
        assert plots.run.cold_capped() == first.seconds
        _, top = _y_range(plots, "step_time")
        assert max(s.seconds for s in run.steps if s is not first) < top < first.seconds
        for key in ("throughput", "step_time"):
            assert_star_inside(plots, key)


def test_no_parts_name_covers_the_star(qtbot: Any) -> None:
    """On the throughput plot the decode's first step (13.8 tokens/s) is the lowest point,
    just right of the prefill's line: its name at the foot of that line covered the star (the
    longer Chinese name more so); the name goes a row up instead."""
    run = _load(LLM).runs[0]
    for lang in ("en", "zh_CN"):
        assert i18n.switch(lang)
        plots = _plots(qtbot, fps=25.0)
        _stream(qtbot, plots, run_events(run))
        screen = plots.plot("throughput").viewportTransform()
        star = plots._deco[("throughput", "cold")]
        drawn = star.deviceTransform(screen).mapRect(star.boundingRect())
        for n in range(2):
            label = plots._deco[("throughput", f"part{n}")].label
            box = label.deviceTransform(screen).mapRect(label.rect())
            assert not box.intersects(drawn), (lang, n, box, drawn)


def test_the_parts_names_on_the_plots_in_chinese(qtbot: Any) -> None:
    assert i18n.switch("zh_CN")
    run = _load(LLM).runs[0]
    plots = _plots(qtbot, fps=25.0)
    _stream(qtbot, plots, run_events(run))
    for key in ("throughput", "step_time"):
        names = [plots._deco[(key, f"part{n}")].label.toPlainText() for n in range(2)]
        assert names == ["提示词处理", "生成"], key
    medians = [plots._deco[("throughput", f"median{n}-label")].toPlainText()
               for n in range(2)]
    assert [m.split()[-2] for m in medians] == ["提示词处理", "生成"]
    # and back in English once the language changes again
    assert i18n.switch("en")
    qtbot.waitUntil(lambda: plots._deco[("throughput", "part0")].label.toPlainText()
                    == "prefill", timeout=5000)
