"""Cards like mine keyed by harness, backend, OS, precision, batch and steps (issue 36): a
reference is a comparison only where its key matches the run, otherwise a hint that says why;
n and spread where a source has several; the public rows cite an address and a date."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from core.report.model import Report, from_json
from core.report.references import (
    ReferencesError,
    cards_like_mine,
    load_references,
    parse_references,
    spread_text,
)
from core.report.text import references_text

ROOT = Path(__file__).resolve().parents[2]
SD15 = ROOT / "tests" / "fixtures" / "reports" / "h200-sd15-infer-eager-bs1-unsteady.json"
LLM = ROOT / "tests" / "fixtures" / "reports" / "llm" / "cpu-tiny-llm-infer.json"
PUBLIC = ("sdnext-", "a1111-", "llamacpp-", "lhl-")


def load(path: Path) -> Report:
    return from_json(path.read_text(encoding="utf-8"))


def as_card(report: Report, name: str, arch: str, backend: str = "hip") -> Report:
    """The recorded run, as if measured on another card (the test has none of them)."""
    run = report.runs[0]
    assert run.device is not None
    run.device = replace(run.device, name=name, arch=arch, backend=backend, pci_id=None)
    report.machine.gpus = []
    return report


def by_id(report: Report) -> dict[str, object]:
    return {m.row.id: m for m in cards_like_mine(report, 0).matches}


def test_own_anchor_is_a_comparison_and_a_crowd_median_a_hint() -> None:
    found = by_id(load(SD15))
    own = found["own-h200-sd15-eager"]
    assert own.standing == "comparison" and own.hint == []  # type: ignore[attr-defined]
    crowd = found["vlad-h200-2025"]
    assert crowd.standing == "hint"  # type: ignore[attr-defined]
    assert "the source does not name its harness" in crowd.hint  # type: ignore[attr-defined]
    first = cards_like_mine(load(SD15), 0).matches[0]
    assert first.standing == "comparison"  # comparisons come first


def test_a_different_precision_makes_the_own_anchor_a_hint() -> None:
    report = load(SD15)
    report.runs[0].settings["precision"] = "fp32"
    own = by_id(report)["own-h200-sd15-eager"]
    assert own.standing == "hint"  # type: ignore[attr-defined]
    assert own.hint == ["precision: reference amp-fp16, yours fp32"]  # type: ignore[attr-defined]


def test_a_wsl_run_is_not_compared_with_a_linux_anchor() -> None:
    report = load(SD15)
    report.machine.platform["wsl"] = 2
    own = by_id(report)["own-h200-sd15-eager"]
    assert own.hint == ["OS: reference Linux, yours WSL 2"]  # type: ignore[attr-defined]


def test_rx9070xt_gets_sdnext_rows_as_hints_with_n_and_spread() -> None:
    report = as_card(load(SD15), "AMD Radeon RX 9070 XT", "gfx1201")
    found = by_id(report)
    assert {"sdnext-rx9070xt-rocm-linux-bf16-b1", "sdnext-rx9070xt-rocm-windows-bf16-b1",
            "sdnext-rx9070xt-rocm-windows-fp16-b1"} <= set(found)
    linux = found["sdnext-rx9070xt-rocm-linux-bf16-b1"]
    assert linux.standing == "hint"  # type: ignore[attr-defined]
    assert linux.hint[0].startswith("another harness (SD.Next)")  # type: ignore[attr-defined]
    assert "precision: reference bf16, yours amp-fp16" in linux.hint  # type: ignore[attr-defined]
    windows = found["sdnext-rx9070xt-rocm-windows-bf16-b1"]
    assert "OS: reference Windows, yours Linux" in windows.hint  # type: ignore[attr-defined]
    assert spread_text(windows.row) == "n = 3, lowest–highest 17–18.98"  # type: ignore[attr-defined]
    text = references_text(cards_like_mine(report, 0))
    assert "a hint, not a comparison: another harness (SD.Next)" in text
    assert "harness, backend, OS: SD.Next, ROCm, Windows" in text
    assert "https://github.com/vladmandic/sd-data/tree/main/input" in text
    assert "2025-11-20..2026-01-04" in text


@pytest.mark.parametrize(("name", "arch", "ids"), [
    ("AMD Radeon RX 7900 XTX", "gfx1100", {"sdnext-rx7900xtx-zluda-windows-bf16-b1",
                                          "a1111-rx7900xtx-rocm-linux-fp16-b1"}),
    ("AMD Radeon 780M Graphics", "gfx1103", {"sdnext-780m-zluda-windows-bf16-b1"}),
    ("AMD Radeon 890M Graphics", "gfx1150", {"sdnext-890m-zluda-windows-bf16-b1"}),
    ("AMD Radeon 8060S Graphics", "gfx1151", {"sdnext-8060s-zluda-windows-bf16-b1"}),
])
def test_each_card_finds_its_public_rows(name: str, arch: str, ids: set[str]) -> None:
    found = by_id(as_card(load(SD15), name, arch))
    assert ids <= set(found)
    assert all(found[i].standing == "hint" for i in ids)  # type: ignore[attr-defined]


def test_llama_cpp_rows_are_hints_that_say_another_harness() -> None:
    report = as_card(load(LLM), "AMD Radeon RX 7900 XTX", "gfx1100")
    found = by_id(report)
    tg = found["llamacpp-20934-rx7900xtx-rocm-tg128"]
    assert tg.standing == "hint"  # type: ignore[attr-defined]
    assert tg.hint[0].startswith("llama.cpp with GGUF weights")  # type: ignore[attr-defined]
    assert "llamacpp-20934-rx7900xtx-vulkan-tg128" in found
    strix = by_id(as_card(load(LLM), "AMD Radeon 8060S Graphics", "gfx1151"))
    assert {"lhl-strixhalo-hip-llama2-7b-tg128", "lhl-strixhalo-hip-llama2-7b-pp512"} <= \
        set(strix)


def test_every_public_row_cites_an_address_a_date_and_its_key() -> None:
    rows = [r for r in load_references() if r.id.startswith(PUBLIC)]
    assert len(rows) == 14
    for r in rows:
        assert r.url and r.url.startswith("https://github.com/"), r.id
        assert r.date and r.harness and r.backend and r.os, r.id
        assert r.n is None or r.n >= 1
        if r.spread:
            assert r.spread[0] <= r.value <= r.spread[1]


ROW = {"id": "x", "card": "Radeon RX 9070 XT", "suite": "sd15-infer",
       "figure": "end_to_end_it_s", "value": 12.7, "unit": "it/s", "kind": "crowd",
       "source": "s", "method": "m",
       "conditions": {"precision": "bf16", "batch": 1, "resolution": 512, "steps": 20,
                      "software": "x"}}


@pytest.mark.parametrize(("extra", "message"), [
    ({"harness": "comfy"}, "harness 'comfy' is not one of"),
    ({"os": "macos"}, "os 'macos' is not one of"),
    ({"spread": [12.0, 13.0]}, "a spread needs 'n'"),
    ({"n": 2, "spread": [13.0, 14.0]}, "'spread' must hold the value"),
    ({"n": 0}, "'n' must be a positive integer"),
    ({"url": "http://x"}, "'url' must be an https:// address"),
    ({"date": "Nov 2025"}, "'date' is YYYY-MM"),
])
def test_a_malformed_key_is_refused(extra: dict[str, object], message: str) -> None:
    with pytest.raises(ReferencesError, match=message):
        parse_references({"reference": [{**ROW, **extra}]})
