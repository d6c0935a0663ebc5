"""Comparing two reports, and a run against the reference results ("cards like mine")."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import tomllib

from core.report.compare import compare
from core.report.model import DeviceInfo, Report
from core.report.references import (
    KINDS,
    ReferencesError,
    cards_like_mine,
    default_path,
    load_references,
    model_key,
    parse_references,
    your_value,
)
from core.report.text import comparison_text, references_text
from tests.report.support import CPU, FAILED, GEMM, H200, SD15, load

# --- two reports ----------------------------------------------------------------------------------


def test_same_suite_ratios_and_verdicts() -> None:
    a = load(H200)
    b = copy.deepcopy(a)
    assert b.runs[0].result is not None
    figs = b.runs[0].result.figures
    figs["throughput"].median *= 1.25  # faster: better
    figs["step_time"].median *= 1.25  # slower steps: worse
    figs["tflops"].median *= 1.01  # within 3 %
    b.runs[0].settings["precision"] = "amp-fp16"
    b.software.torch = "2.12.0+rocm7.0"
    b.software.env["HSA_OVERRIDE_GFX_VERSION"] = "11.0.0"
    c = compare(a, b, "mine", "theirs")
    (rc,) = c.runs
    deltas = {d.name: d for d in rc.figures}
    assert deltas["throughput"].ratio == pytest.approx(1.25)
    assert deltas["throughput"].verdict == "better"
    assert deltas["step_time"].verdict == "worse"
    assert deltas["tflops"].verdict == "about the same"
    assert [(d.key, d.a, d.b) for d in rc.settings] == [("precision", "amp-bf16", "amp-fp16")]
    assert ("torch", "2.11.0+cu130", "2.12.0+rocm7.0") in [(d.key, d.a, d.b) for d in c.software]
    assert ("env.HSA_OVERRIDE_GFX_VERSION", "-", "11.0.0") in [(d.key, d.a, d.b)
                                                              for d in c.software]
    assert c.machine == []
    text = comparison_text(c)
    assert "A = mine" in text and "1.25×  better" in text
    assert "precision: amp-bf16 -> amp-fp16" in text


def test_different_devices_show_machine_differences() -> None:
    c = compare(load(CPU), load(H200))
    keys = {d.key for d in c.machine}
    assert {"device", "backend", "arch", "distro_name", "gpus_in_machine"} <= keys
    assert "A used tiny shapes (a smoke test)" in c.runs[0].notes


def test_different_suites_get_no_ratios() -> None:
    c = compare(load(H200), load(GEMM))
    (rc,) = c.runs
    assert rc.figures == [] and not rc.same_suite
    assert "different suites" in rc.notes[0]


def test_a_failed_run_is_compared_without_inventing_figures() -> None:
    failed = load(FAILED)
    failed.runs[0].suite = "resnet50-train"
    (rc,) = compare(load(H200), failed).runs
    assert all(d.b is None and d.ratio is None for d in rc.figures)
    assert any("B did not measure" in n for n in rc.notes)


def test_multi_run_reports_pair_by_suite() -> None:
    a = load(H200)
    a.runs += load(GEMM).runs
    b = load(GEMM)
    b.runs += load(SD15).runs
    c = compare(a, b)
    assert [(r.suite_a, r.suite_b) for r in c.runs] == [("gemm", "gemm")]
    assert c.unpaired == ["A: resnet50-train", "B: sd15-infer"]


# --- the reference table --------------------------------------------------------------------------


def test_every_reference_row_has_source_conditions_and_a_known_figure() -> None:
    rows = load_references()
    assert len(rows) >= 50
    for r in rows:
        assert r.source and r.card and r.suite and r.figure and r.value > 0
        assert r.kind in KINDS
        assert (r.method is None) == (r.kind == "blog-claim")
    raw = tomllib.loads(default_path().read_text())
    for row in raw["reference"]:  # the five conditions are written out on every row
        assert {"precision", "batch", "resolution", "steps", "software"} <= set(row["conditions"])


SEED_CLAIMS = {  # (figure, value, unit) per seed post, as the posts give them
    "seed001-rx7900xtx-resnet50-step": ("step_time", 0.42, "s"),
    "seed001-rx7900xtx-resnet50-vram": ("vram_gb", 18.2, "GB"),
    "seed001-rx7900xtx-resnet50-power": ("power_w", 320, "W"),
    "seed001-rx7900xtx-sd15-image": ("seconds_per_image", 2.8, "s/image"),
    "seed001-rx7900xtx-sd15-vram": ("vram_gb", 6.4, "GB"),
}


def test_the_seed_tables_are_there_as_blog_claims() -> None:
    rows = {r.id: r for r in load_references()}
    for rid, (figure, value, unit) in SEED_CLAIMS.items():
        r = rows[rid]
        assert (r.figure, r.value, r.unit) == (figure, value, unit)
        assert r.kind == "blog-claim" and r.method is None and "blog post" in r.source
        assert r.card == "Radeon RX 7900 XTX" and r.arch == "gfx1100"
    step = rows["seed001-rx7900xtx-resnet50-step"].conditions
    assert (step.precision, step.batch) == ("amp-fp16", 64)


def _row(**over: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": "x", "card": "Card", "suite": "resnet50-train", "figure": "throughput",
        "value": 1.0, "unit": "images/s", "kind": "published", "source": "s", "method": "m",
        "conditions": {"precision": "fp32", "batch": 64, "resolution": 224, "steps": "n/a",
                       "software": "torch"}}
    row.update(over)
    return row


@pytest.mark.parametrize(("row", "message"), [
    (_row(source=""), "'source' must be a non-empty string"),
    ({k: v for k, v in _row().items() if k != "source"}, "'source' must be"),
    (_row(kind="blog-claim"), "a blog claim has no method"),
    (_row(method=None), "needs its 'method'"),
    (_row(unit="img/s"), "throughput is in 'images/s', not 'img/s'"),
    (_row(figure="speed"), "'speed' is not a figure of resnet50-train"),
    (_row(suite="mnist"), "unknown suite"),
    (_row(value=-3), "positive number"),
    (_row(arch="navi31"), "neither a gfx target"),
    (_row(colour="red"), "unknown keys"),
    (_row(conditions={"precision": "fp32"}), "conditions lack batch"),
    (_row(conditions={**_row()["conditions"], "precision": "fp8"}), "precision 'fp8'"),
    (_row(conditions={**_row()["conditions"], "batch": "64"}), "batch must be a positive"),
])
def test_malformed_rows_are_refused_by_name(row: dict[str, Any], message: str) -> None:
    with pytest.raises(ReferencesError, match=message):
        parse_references({"reference": [row]})


def test_duplicate_ids_and_empty_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ReferencesError, match="appears twice"):
        parse_references({"reference": [_row(), _row()]})
    with pytest.raises(ReferencesError, match="no \\[\\[reference\\]\\] rows"):
        parse_references({})
    bad = tmp_path / "r.toml"
    bad.write_text("[[reference]\n")
    with pytest.raises(ReferencesError, match="not valid TOML"):
        load_references(bad)


def test_card_names_match_across_spellings() -> None:
    assert model_key("AMD Radeon RX 7900 XTX") == model_key("Radeon RX 7900 XTX")
    assert model_key("NVIDIA A100-SXM4-80GB") == model_key("A100 80GB (DGX A100)")
    assert model_key("NVIDIA GeForce RTX 4090") == model_key("GeForce RTX 4090")
    assert model_key("Radeon RX 7900 XT") != model_key("Radeon RX 7900 XTX")
    assert model_key("H200") <= model_key("NVIDIA H200")


# --- cards like mine ------------------------------------------------------------------------------


def test_an_h200_run_finds_its_card_first_closest_conditions_first() -> None:
    refs = cards_like_mine(load(H200))
    assert refs.device == "NVIDIA H200" and refs.arch == "sm_90"
    first = refs.matches[0]
    assert first.match == "same card" and first.row.id == "own-h200-resnet50-bf16-cl-bs256"
    assert first.differences == [] and first.verdict == "about the same"
    assert first.ratio == pytest.approx(4624.139 / 4719, rel=1e-4)
    assert {m.match for m in refs.matches} == {"same card", "same chip"}  # H100s share sm_90
    assert all(m.row.suite == "resnet50-train" for m in refs.matches)
    text = references_text(refs)
    assert "source: the rocmate project's own measurement" in text and "conditions:" in text


def _as_7900xtx(report: Report, precision: str = "fp32", batch: int = 64) -> Report:
    r = copy.deepcopy(report)
    run = r.runs[0]
    run.device = DeviceInfo(name="AMD Radeon RX 7900 XTX", backend="hip", arch="gfx1100",
                            pci_id="1002:744c")
    run.settings.update(size="default", precision=precision, batch_size=batch)
    r.machine.gpus = [{"vendor": "amd", "pci_id": "1002:744c", "name": "Radeon RX 7900 XTX",
                       "gfx": "gfx1100", "vram_bytes": 25753026560, "integrated": False}]
    return r


def test_a_7900xtx_run_meets_the_blog_claims_and_says_how_conditions_differ() -> None:
    refs = cards_like_mine(_as_7900xtx(load(CPU)))
    by_id = {m.row.id: m for m in refs.matches}
    step = by_id["seed001-rx7900xtx-resnet50-step"]
    assert step.match == "same card"
    assert "precision: reference amp-fp16, yours fp32" in step.differences
    assert "a blog claim: the post does not say how it was measured" in step.differences
    assert "resolution" in step.unstated
    fp32 = by_id["rocm-pytorch-1276-rx7900xtx-fp32-bs64"]
    assert fp32.differences == [] or all("resolution" in d for d in fp32.differences)
    assert not any(m.match == "other card" for m in refs.matches)
    everything = cards_like_mine(_as_7900xtx(load(CPU)), all_cards=True)
    assert len(everything.matches) > len(refs.matches)
    assert everything.matches[0].match == "same card"


def test_a_card_without_references_says_so() -> None:
    r = _as_7900xtx(load(CPU))
    r.runs[0].device = DeviceInfo(name="AMD Radeon RX 6600 XT", backend="hip", arch="gfx1032")
    r.machine.gpus = []
    refs = cards_like_mine(r)
    assert refs.matches == []
    assert refs.note and "No reference results for AMD Radeon RX 6600 XT (gfx1032)" in refs.note
    assert refs.others > 0 and f"{refs.others} for other cards." in refs.note
    assert "--all-cards" not in refs.note  # the app has no options to name
    assert "(show them with --all-cards)" in references_text(refs)  # the terminal does


def test_cpu_and_tiny_runs_are_flagged() -> None:
    refs = cards_like_mine(load(CPU))
    assert refs.matches == [] and refs.note == "A CPU run: the reference results are for GPUs."
    assert "tiny shapes" in refs.warnings[0]


def test_values_worked_out_from_a_run() -> None:
    h200 = load(H200).runs[0]
    assert your_value(h200, "throughput", "images/s")[0] == pytest.approx(4624.139300460414)
    assert your_value(h200, "throughput", "img/s")[0] is None
    assert your_value(h200, "vram_gb", "GB")[0] == pytest.approx(13.329498112)
    assert your_value(h200, "power_w", "W")[0] == pytest.approx(615.5612036768606)
    sd = load(SD15).runs[0]
    assert sd.result is not None
    per_image = sd.result.figures["seconds_per_image"].median
    steps = sd.result.details["inference_steps"]
    assert your_value(sd, "end_to_end_it_s", "it/s")[0] == pytest.approx(steps / per_image)
    assert your_value(load(FAILED).runs[0], "throughput", "images/s") == (
        None, "the run failed", None)
