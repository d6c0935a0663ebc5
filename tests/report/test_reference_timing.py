"""Issue 39: a gemm reference is compared only with a figure timed the same way.

The references table says how each gemm rate was timed (``timing``: a short burst, or a long
loop); the run's burst (gemm since issue 39: warm-up steps 1-4 on a rested card) is set against
burst rows, its sustained figure against loop rows, and a row timed another way, or not said, is
a hint that says why. Built on a real H200 health check recorded with the old peak (the best
steps of the measured phase); the burst case is that report with the parts' burst steps added
(the figures stay the real ones: only how the peak is labelled changes).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from core.report.model import from_json
from core.report.references import (
    ReferencesError,
    cards_like_mine,
    load_references,
    parse_references,
)

REPORT = Path(__file__).resolve().parents[1] / "fixtures/reports/gpu/h200-health-resnet50-page.json"
OWN = "own-h200-gemm-bf16"


def _report(burst: bool):  # type: ignore[no-untyped-def]
    data = json.loads(REPORT.read_text())
    if burst:
        for part in data["runs"][0]["result"]["details"]["parts"].values():
            part["burst_warmup_steps"] = [1, 4]
    return from_json(json.dumps(data))


def _own(report, rows=None):  # type: ignore[no-untyped-def]
    found = cards_like_mine(report, 0, rows=rows)
    return next(m for m in found.matches if m.row.id == OWN)


def test_the_gemm_rows_say_how_they_were_timed() -> None:
    rows = [r for r in load_references() if r.suite == "gemm"]
    assert rows and all(r.timing == "burst" for r in rows)


def test_a_burst_row_is_compared_with_a_burst() -> None:
    match = _own(_report(burst=True))
    peak = match.yours
    assert peak == _report(True).runs[0].result.figures["tflops_bf16_peak"].median
    assert not any("burst" in h or "timed" in h for h in match.hint)
    assert match.how is not None and match.how.startswith("your burst")


def test_an_older_peak_is_only_a_hint_against_a_burst_row() -> None:
    match = _own(_report(burst=False))
    assert match.standing == "hint"
    assert any(h.startswith("the reference is a short burst") for h in match.hint)


def test_a_row_that_does_not_say_how_it_timed_is_a_hint_and_a_loop_row_takes_sustained() -> None:
    row = next(r for r in load_references() if r.id == OWN)
    raw = {"id": OWN, "card": row.card, "arch": row.arch, "suite": "gemm",
           "figure": "tflops_bf16", "value": 660.0, "unit": "TFLOP/s", "kind": "measured",
           "source": "a test row", "method": "a long loop", "harness": "pytorch",
           "backend": "cuda", "os": "linux",
           "conditions": {"precision": "n/a", "batch": "n/a", "resolution": "n/a",
                          "steps": "n/a", "software": "torch 2.11.0+cu130",
                          "shape": "8192x8192x8192"}}
    unstated = parse_references({"reference": [raw]})
    report = _report(burst=True)
    match = _own(report, unstated)
    assert any(h.startswith("the source does not say how it timed") for h in match.hint)
    loop = parse_references({"reference": [{**raw, "timing": "sustained"}]})
    match = _own(report, loop)
    assert match.yours == report.runs[0].result.figures["tflops_bf16"].median
    assert not any("timed" in h or "burst" in h for h in match.hint)


def test_a_timing_the_table_does_not_know_is_refused() -> None:
    row = {"id": "x", "card": "H200", "suite": "gemm", "figure": "tflops_bf16", "value": 1.0,
           "unit": "TFLOP/s", "kind": "measured", "source": "s", "method": "m",
           "timing": "median", "conditions": {"precision": "n/a", "batch": "n/a",
                                              "resolution": "n/a", "steps": "n/a",
                                              "software": "s"}}
    with pytest.raises(ReferencesError, match="timing 'median'"):
        parse_references({"reference": [copy.deepcopy(row)]})
