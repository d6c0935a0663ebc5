"""The rocmate.report/1 model: round trips, and clear refusals of what it cannot read."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.report.model import (
    SCHEMA,
    Figure,
    Machine,
    Measure,
    Report,
    ReportError,
    Software,
    SuiteResult,
    SuiteRun,
    Warmup,
    from_dict,
    from_json,
    to_dict,
    to_json,
)

REPORTS = Path(__file__).resolve().parents[1] / "fixtures" / "reports"
FIXTURES = sorted(REPORTS.glob("*.json"))


@pytest.fixture
def sample() -> dict[str, Any]:
    return json.loads((REPORTS / "cpu-tiny-resnet50-train.json").read_text())


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_recorded_reports_read_and_write_back_unchanged(path: Path) -> None:
    data = json.loads(path.read_text())
    report = from_json(path.read_text())
    assert report.schema == SCHEMA and report.runs
    assert json.loads(to_json(report)) == data


def test_the_fixtures_cover_a_cpu_and_a_gpu_run() -> None:
    names = [p.name for p in FIXTURES]
    assert any(n.startswith("cpu-tiny-") for n in names)
    assert any(n.startswith("h200-") for n in names)


def test_a_gpu_report_has_telemetry_and_a_datasheet_reference() -> None:
    for path in REPORTS.glob("h200-*.json"):
        report = from_json(path.read_text())
        run = report.runs[0]
        assert run.device is not None and run.device.backend == "cuda"
        assert run.telemetry and run.telemetry[0].power_w is not None
        assert run.reference is not None and run.reference.peaks


def _minimal(status: str = "ok") -> Report:
    result = SuiteResult(headline="throughput",
                         figures={"throughput": Figure(unit="images/s", median=10.0)},
                         warmup=Warmup(steps=1, seconds=1.0), measure=Measure(1, 1.0, 4))
    run = SuiteRun(suite="resnet50-train", status=status, started="2026-01-01T00:00:00+00:00",
                   duration_s=1.0, settings={}, result=result)
    return Report(tool_version="0.1.0", created="2026-01-01T00:00:00+00:00", machine=Machine(),
                  software=Software(), runs=[run])


def test_schema_comes_first_and_the_writer_validates() -> None:
    assert next(iter(to_dict(_minimal()))) == "schema"
    with pytest.raises(ReportError, match="status error needs an error"):
        to_json(_minimal("error"))
    bad = _minimal()
    assert bad.runs[0].result is not None
    bad.runs[0].result.headline = "nope"
    with pytest.raises(ReportError, match="headline 'nope' is not a figure"):
        to_json(bad)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("schema"), "no 'schema' field"),
        (lambda d: d.update(schema="rocmate.report/2"), "newer rocmate.*update rocmate"),
        (lambda d: d.update(schema="rocmate.doctor/1"), "a rocmate.doctor/1 file, not a report"),
        (lambda d: d.update(schema="ai.onnx/3"), "foreign schema 'ai.onnx/3'"),
        (lambda d: d.update(schema="rocmate.report/one"), "unknown report schema"),
        (lambda d: d.update(schema=7), "'schema' is 7"),
        (lambda d: d.pop("created"), r"report\.created: missing"),
        (lambda d: d["runs"][0].update(status="fine"), r"report\.runs\[0\]\.status: 'fine'"),
        (lambda d: d["runs"][0]["result"]["figures"]["throughput"].update(median="fast"),
         r"report\.runs\[0\]\.result\.figures\.throughput\.median: expected a number"),
        (lambda d: d["runs"][0]["result"]["measure"].update(steps=2.5),
         r"measure\.steps: expected an integer"),
        (lambda d: d["runs"][0].update(result=None), "status ok but no result"),
        (lambda d: d["runs"][0]["steps"][0].update(index=True), r"steps\[0\]\.index"),
        (lambda d: d["runs"][0].update(settings=[1]), r"runs\[0\]\.settings: expected an object"),
    ],
)
def test_refusals_say_what_and_where(sample: dict[str, Any], change: Any, message: str) -> None:
    data = copy.deepcopy(sample)
    change(data)
    with pytest.raises(ReportError, match=message):
        from_dict(data)


def test_not_json_and_not_an_object() -> None:
    with pytest.raises(ReportError, match="not JSON"):
        from_json("{nope")
    with pytest.raises(ReportError, match="is a list"):
        from_json("[]")


def test_unknown_keys_from_a_later_1x_writer_are_ignored(sample: dict[str, Any]) -> None:
    data = copy.deepcopy(sample)
    data["comment"] = "new in 1.1"
    data["runs"][0]["result"]["figures"]["throughput"]["stderr"] = 0.1
    assert from_dict(data).runs[0].result is not None


finite = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False)


@given(median=finite, p10=finite | st.none(), cv=st.floats(0, 10) | st.none(),
       n=st.integers(1, 10**6), unit=st.text(min_size=1, max_size=12))
def test_figures_round_trip(median: float, p10: float | None, cv: float | None, n: int,
                            unit: str) -> None:
    report = _minimal()
    assert report.runs[0].result is not None
    report.runs[0].result.figures["throughput"] = Figure(unit=unit, median=median, p10=p10,
                                                          cv=cv, n=n)
    assert from_json(to_json(report)) == report


def test_check_values_names_the_place_in_any_kind_of_mapping() -> None:
    """The quick walk hands anything it cannot vouch for to the walk that names the place: a
    number out of range deep in the data, and in a mapping that is not a plain dict."""
    from collections import OrderedDict

    from core.report.model import ReportError, check_values

    check_values({"runs": [{"steps": [{"t": 1.0, "ok": True, "n": 3}]}]})  # fine: no error
    for data, where in (({"runs": [{"steps": [{"t": float("inf")}]}]}, "report.runs[0].steps[0].t"),
                        (OrderedDict(a=OrderedDict(b=float("nan"))), "report.a.b"),
                        ({"x": [1, 2, 10**16]}, "report.x[2]")):
        with pytest.raises(ReportError, match=re.escape(where)):
            check_values(data)
