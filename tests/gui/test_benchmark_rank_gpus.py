"""The Benchmark page and a data-parallel run's GPUs (issue 32, item 3): the page hands its
System check's facts to the run (never a replayed machine's: the run is on this computer), and
the line that says which GPUs take the ranks stays under the progress while the run goes."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from core.bench.worker.options import BenchOptions
from core.operations.benchmark import BenchmarkRequest, BenchmarkRun
from core.operations.machine import check_machine
from core.system import open_system
from gui.session import Session
from tests.gui.support import MACHINES
from tests.gui.test_benchmark import make_page, session

__all__ = ["session"]  # the fixture, shared with test_benchmark

TWO_XTX_RAPHAEL = MACHINES / "k32-2x-rx7900xtx-raphael-igpu"  # ROCm/rccl#876


def test_the_ranks_line_under_the_progress(qtbot: Any, session: Session,
                                           tmp_path: Path) -> None:
    session.report = check_machine(str(TWO_XTX_RAPHAEL), probe_torch=False)
    page = make_page(qtbot, session)
    assert page._facts() is session.report.facts  # this computer's check (no replay)
    session.root = str(TWO_XTX_RAPHAEL)
    assert page._facts() is None  # a replayed machine's facts are not this computer's
    # the run as the sequence builds it, on the recorded machine (built, not started)
    request = BenchmarkRequest(BenchOptions("resnet50-train", gpus="2"), python=sys.executable,
                               run_file=tmp_path / "run.jsonl", history=False)
    run = BenchmarkRun(request, system=open_system(TWO_XTX_RAPHAEL))
    page._chosen = [c.plan for c in page.cards]
    page._runs, page._started, page._estimate_s = 2, time.monotonic(), 60.0
    page._doing = lambda: "setting up"
    page._run_started(1, run)
    lines = page._progress_text().split("\n")
    assert lines[1] == ("data-parallel ranks on GPUs 0,1 (HIP_VISIBLE_DEVICES=0,1); left out: "
                        "the integrated Radeon Graphics (Raphael)")
    plain = BenchmarkRequest(BenchOptions("gemm"), python=sys.executable,
                             run_file=tmp_path / "run2.jsonl", history=False)
    page._run_started(0, BenchmarkRun(plain, system=open_system(TWO_XTX_RAPHAEL)))
    assert "\n" not in page._progress_text()  # a suite on one GPU: nothing to say
