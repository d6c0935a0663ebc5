"""The Benchmark page where several GPUs are usable: the data-parallel choice (offered only
there), a real run through it (two gloo ranks on the CPU: the same launcher and worker as on
GPUs), one throughput line per rank beside the total in the live graphs, and the scaling run
first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.operations.machine import check_machine
from core.operations.suites import options_for
from core.report.scaling import scaling
from gui.pages.benchmark import about
from gui.session import Session
from tests.gui.support import MACHINES
from tests.gui.test_benchmark import choose, make_page, run_files, session, wait_done
from tests.probe.test_nvidia_topo import desktop_with

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


def test_the_words_follow_the_device_and_the_choice(qtbot: Any, session: Session) -> None:
    """Two GPUs chosen: the device names both; on the CPU the same choice is processes (the
    check that the mode runs), never GPUs."""
    session.report = check_machine(str(TWO_CARDS))
    advanced = make_page(qtbot, session).advanced
    assert advanced.device.itemText(0) == "The GPU (cuda:0)"
    advanced.gpus.setCurrentIndex(advanced.gpus.findData("2"))
    assert advanced.device.itemText(0) == "The GPUs (cuda:0 to cuda:1)"
    assert advanced.labels["gpus"].text() == "GPUs"
    advanced.device.setCurrentIndex(advanced.device.findData("cpu"))
    assert advanced.labels["gpus"].text() == "Processes"
    assert [advanced.gpus.itemText(i) for i in range(advanced.gpus.count())] == [
        "One process", "2 processes on the CPU, data-parallel (a check that the mode runs)"]
    assert advanced.settings().gpus == "2" and advanced.settings().device == "cpu"
    advanced.gpus.setCurrentIndex(0)
    advanced.device.setCurrentIndex(0)
    assert advanced.device.itemText(0) == "The GPU (cuda:0)"
    assert advanced.gpus.itemText(0) == "One GPU" and advanced.settings().gpus is None


def test_offered_for_several_nvidia_cards(qtbot: Any, session: Session,
                                          tmp_path: Path) -> None:
    """The benchmarks run on CUDA too: four NVIDIA cards offer 2, 3 or 4 of them, as the doctor
    counts them (gpus-several); one NVIDIA card offers nothing."""
    session.report = check_machine(str(desktop_with(tmp_path, 4, "topo-m-4x-h100-nv6-nics.txt")))
    advanced = make_page(qtbot, session).advanced
    assert advanced.form.isRowVisible(advanced.gpus)
    assert [advanced.gpus.itemData(i) for i in range(advanced.gpus.count())] == [
        None, "2", "3", "4"]
    session.report = check_machine(str(MACHINES / "nvidia-only-desktop"))
    advanced = make_page(qtbot, session).advanced
    assert not advanced.form.isRowVisible(advanced.gpus)


@pytest.mark.slow  # a real worker or app process: not in make check
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
    series = page.plots.run.series
    assert {k for k in series if k.startswith("rank:")} == {"rank:0", "rank:1"}
    assert len(series["rank:1"].ring) == len(last)
    # ranks on the CPU are processes, not GPUs (issue 31/16)
    legend = [page.plots._legend_name("throughput", s.name or "")
              for k, s in series.items() if k == "throughput" or k.startswith("rank:")]
    assert legend == ["all processes", "process 0", "process 1"]
