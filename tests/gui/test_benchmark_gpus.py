"""The Benchmark page where several GPUs are usable: the data-parallel choice (offered only
there), a real run through it (two gloo ranks on the CPU: the same launcher and worker as on
GPUs), one throughput line per rank beside the total in the live graphs, and the scaling run
first."""

from __future__ import annotations

from typing import Any

from core.operations.machine import check_machine
from core.operations.suites import options_for
from core.report.scaling import scaling
from gui.pages.benchmark import about
from gui.session import Session
from tests.gui.support import MACHINES
from tests.gui.test_benchmark import choose, make_page, run_files, session, wait_done

__all__ = ["session"]  # the fixture, shared with test_benchmark

TWO_CARDS = MACHINES / "rx9070xt-x2-ubuntu2404-rocm711"


def test_offered_only_where_several_gpus_are_usable(qtbot: Any, session: Session) -> None:
    session.report = check_machine(str(MACHINES / "rx6700xt-ubuntu2204-needs-override"))
    page = make_page(qtbot, session)
    advanced = page.advanced
    assert not advanced.form.isRowVisible(advanced.gpus)
    assert advanced.settings().gpus is None

    session.report = check_machine(str(TWO_CARDS))
    page = make_page(qtbot, session)
    advanced = page.advanced
    assert advanced.form.isRowVisible(advanced.gpus)
    assert [advanced.gpus.itemText(i) for i in range(advanced.gpus.count())] == [
        "One GPU", "2 GPUs, data-parallel (ResNet-50 and LLM; one GPU first, for the scaling)"]
    before = {card.plan.choice.key: card.plan.estimate_s for card in page.cards}
    advanced.gpus.setCurrentIndex(1)
    plans = {card.plan.choice.key: card.plan for card in page.cards}
    # the data-parallel suites run twice (one GPU first), and their cards say so
    assert plans["resnet50-train"].estimate_s == 2 * before["resnet50-train"]
    assert plans["llm-train"].estimate_s == 2 * before["llm-train"]
    assert plans["health"].estimate_s == before["health"]
    card = next(c for c in page.cards if c.plan.choice.key == "resnet50-train")
    assert card.facts.text().startswith(about(2 * before["resnet50-train"]))
    settings = advanced.settings()
    assert [o.gpus for o in options_for(plans["resnet50-train"], settings)] == ["1", "2"]
    assert [o.gpus for o in options_for(plans["llm-train"], settings)] == ["1", "2"]
    # the suites without the mode run as they are
    assert [o.gpus for o in options_for(plans["health"], settings)] == [None, None]


def test_a_data_parallel_run_feeds_a_line_per_gpu(qtbot: Any, aloop: Any,
                                                  session: Session) -> None:
    session.report = check_machine(str(TWO_CARDS))
    page = make_page(qtbot, session)
    choose(page, "resnet50-train", steps=3)
    page.advanced.gpus.setCurrentIndex(page.advanced.gpus.findData("2"))
    page.start_button.click()
    wait_done(qtbot, page)
    assert page.result is not None and page.result.status == "ok", page.message.text()
    report = session.bench_report
    assert report is not None
    assert [r.settings["gpus"] for r in report.runs] == ["1", "2"]
    [found] = scaling(report)
    assert found.gpus == 2 and not found.on_gpu
    # the graphs show the last run: the total and a line per rank, named in the legend
    last = [e for e in run_files(session)[-1] if e["event"] == "step"]
    assert page.plots.steps_seen == len(last)
    series = page.plots._series
    assert series["throughput"].name == "all GPUs"
    assert {k for k in series if k.startswith("rank:")} == {"rank:0", "rank:1"}
    assert len(series["rank:1"].ring) == len(last)
    assert [s.name for k, s in series.items() if k.startswith("rank:")] == ["GPU 0", "GPU 1"]
