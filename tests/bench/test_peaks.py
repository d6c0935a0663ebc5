"""Datasheet peaks from the real knowledge base."""

from __future__ import annotations

import pytest

from core.bench.peaks import find_row, reference
from core.knowledge.loader import load_knowledge
from core.report.formatting import datasheet_parts
from core.report.model import Figure


def fig(v: float, unit: str = "TFLOP/s") -> Figure:
    return Figure(unit=unit, median=v)


def test_gemm_against_the_h200_datasheet() -> None:
    figs = {"tflops_fp32": fig(50.0), "tflops_fp16": fig(700.0), "tflops_bf16": fig(750.0)}
    ref = reference("gemm", {"precision": None}, figs, "10de:2335", None, "NVIDIA H200")
    assert ref is not None and ref.name == "H200"
    assert ref.peaks == {"tflops_fp32": 66.9, "tflops_fp16": 989.4, "tflops_bf16": 989.4}
    assert ref.fractions["tflops_bf16"] == pytest.approx(750.0 / 989.4)
    assert ref.source and "peaks:" in ref.source
    assert ref.note and "PCI id" in ref.note


def test_the_peak_beside_a_sustained_figure_is_set_against_the_same_datasheet_peak() -> None:
    figs = {"tflops_bf16": fig(670.0), "tflops_bf16_peak": fig(775.0), "tflops_fp32": fig(50.0)}
    ref = reference("gemm", {}, figs, "10de:2335", None, "NVIDIA H200")
    assert ref is not None
    assert ref.peaks == {"tflops_fp32": 66.9, "tflops_bf16": 989.4, "tflops_bf16_peak": 989.4}
    assert ref.fractions["tflops_bf16_peak"] == pytest.approx(775.0 / 989.4)
    assert ref.fractions["tflops_bf16"] == pytest.approx(670.0 / 989.4)
    assert datasheet_parts(ref) == ["fp32 75 % of 66.9",  # the figures by their words
                                     "bf16 peak 78 %, sustained 68 % of 989.4"]


def test_bandwidth_and_model_flops_utilisation() -> None:
    ref = reference("bandwidth", {}, {"d2d_gbs": fig(4300.0, "GB/s")}, "10de:2335", None, None)
    assert ref is not None and ref.fractions["d2d_gbs"] == pytest.approx(4300 / 4800)
    mfu = reference("resnet50-train", {"precision": "amp-fp16"}, {"tflops": fig(150.0)},
                    "10de:2335", None, None)
    assert mfu is not None and mfu.peaks == {"tflops": 989.4}
    assert reference("resnet50-train", {"precision": "fp32"}, {"tflops": fig(1.0)},
                     "10de:2335", None, None) is None  # fp32 conv peak is ambiguous (TF32)


def test_found_by_name_when_the_pci_id_is_unknown() -> None:
    kb = load_knowledge()
    row, how = find_row(kb, None, None, "AMD Radeon RX 7900 XTX")
    assert row is not None and row.name == "Radeon RX 7900 XTX" and "name" in how


def test_an_unknown_card_says_so() -> None:
    ref = reference("gemm", {}, {"tflops_bf16": fig(1.0)}, "1234:5678", None, "Mystery GPU")
    assert ref is not None and not ref.peaks and not ref.fractions
    assert ref.note and "no datasheet peak" in ref.note


def test_a_row_without_the_peak_says_which_is_missing() -> None:
    # the RX 7900 XTX row has fp16 and fp32 peaks but no bf16 one
    figs = {"tflops_fp16": fig(100.0), "tflops_bf16": fig(90.0)}
    ref = reference("gemm", {}, figs, None, None, "AMD Radeon RX 7900 XTX")
    assert ref is not None and set(ref.fractions) == {"tflops_fp16"}
    assert ref.note and "peak_tflops_bf16" in ref.note


def test_a_name_finds_only_the_same_card() -> None:
    """By name (no PCI id known): the words must agree. An RX 6800M (gfx1031, a laptop part) must
    not take the desktop RX 6800's peaks, nor an RX 7600 XT the RX 7600's if it had no row."""
    kb = load_knowledge()
    row, _ = find_row(kb, None, None, "NVIDIA H200")
    assert row is not None and row.name == "H200"
    row, _ = find_row(kb, None, None, "AMD Radeon(TM) RX 6800M")
    assert row is None or row.name.endswith("6800M")
    row, how = find_row(kb, None, None, "AMD Radeon RX 6800 Mystery Edition")
    assert row is None and "no row" in how
