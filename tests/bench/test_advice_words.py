"""A failed run's message and advice, written in English into the run, read in the user's
language: made again from what the run records where rocmate can tell which of its texts they
were; anything else as written; the report itself (and its JSON) unchanged."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from core.bench import runner
from core.bench.advice import advice_text, message_text, reworded
from core.bench.worker import errors
from core.operations.reports import render_report, show_text
from core.report.model import DeviceInfo, ErrorInfo, Report, SuiteRun, from_json

REPORTS = Path(__file__).resolve().parents[1] / "fixtures" / "reports"


def _cjk(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text)



def _run(kind: str, message: str, advice: str, batch: int = 64) -> SuiteRun:
    return SuiteRun("resnet50-train", "error", "2026-12-01T00:00:00Z", 3.0,
                    {"batch_size": batch}, device=DeviceInfo("RX 6600", "hip", "gfx1032"),
                    error=ErrorInfo(kind, message, advice))


CTX = errors.Context(suite="resnet50-train", backend="hip", arch="gfx1032", batch_size=64)


@pytest.mark.parametrize(("kind", "advice"), [
    ("oom", errors.advice_for("oom", CTX)),
    ("no-binary-for-gpu", errors.advice_for("no-binary-for-gpu", CTX)),
    ("no-gpu", errors.advice_for("no-gpu", CTX)),
    ("interrupted", errors.advice_for("interrupted", CTX)),
    ("other", errors.advice_for("other", CTX)),
    ("oom", runner.killed_advice(errors.advice_for("oom", CTX))),
    ("other", runner.hung_advice()),
    ("other", runner.start_advice()),
    ("missing-package", errors.advice_for("missing-package", replace(CTX, python="/v/bin/python"),
                                          package="torch")),
    ("missing-package", errors.advice_for("missing-package", replace(CTX, python="/usr/bin/py"),
                                          package="diffusers")),
    ("missing-package", errors.advice_for("missing-package", replace(
        CTX, python="/usr/bin/python3", externally_managed=True), package="torch")),
])
def test_rocmates_own_advice_reads_in_chinese(chinese: None, kind: str, advice: str) -> None:
    run = _run(kind, "HIP out of memory", advice)
    said = advice_text(run)
    assert _cjk(said) and said != advice
    assert message_text(run) == "HIP out of memory"  # PyTorch's words, as they came


def test_a_runners_message_reads_in_chinese(chinese: None) -> None:
    run = _run("other", "the worker was killed by SIGSEGV", runner.hung_advice())
    assert message_text(run) == "工作进程被 SIGSEGV 杀掉了"


def test_advice_rocmate_did_not_write_stays_as_written(chinese: None) -> None:
    run = _run("oom", "x", "Buy a bigger card.")
    assert advice_text(run) == "Buy a bigger card."


def test_english_is_the_advice_as_written() -> None:
    advice = errors.advice_for("oom", CTX)
    assert advice_text(_run("oom", "x", advice)) == advice


def test_a_report_reads_in_chinese_and_its_json_stays_english(chinese: None) -> None:
    text = (REPORTS / "failed" / "cpu-tiny-resnet50-train-cancelled.json").read_text()
    report = from_json(text)
    before = replace(report)
    assert reworded(report) is not report and report == before  # a copy; the report as it was
    shown = show_text(report)
    assert "运行已取消" in shown and "the run was cancelled" not in shown
    data = json.loads(render_report(report, "json"))
    assert data["runs"][0]["error"]["message"] == "the run was cancelled"
    assert "运行已取消" in render_report(report, "html")
    assert "运行已取消" in render_report(report, "md")


def test_a_report_without_errors_is_itself() -> None:
    report = Report.__new__(Report)
    report.runs = []
    assert reworded(report) is report
