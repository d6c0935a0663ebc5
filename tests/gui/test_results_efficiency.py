"""The Results card shows figures per watt with their power source (core's words), and each
reference of cards like mine as a comparison or a hint with its key, n and spread, address and
date; in Chinese from core's real catalogue."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QLabel, QWidget

from core import i18n as core_i18n
from core.report.efficiency import of_run
from core.report.model import Report, from_json
from core.report.references import cards_like_mine
from core.report.text import efficiency_lines
from gui.bridge import Bridge
from gui.widgets.results_view import ResultsView

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "tests" / "fixtures" / "reports"
SD15 = REPORTS / "h200-sd15-infer-eager-bs1-unsteady.json"
CPU = REPORTS / "cpu-tiny-resnet50-train.json"


def load(path: Path) -> Report:
    return from_json(path.read_text(encoding="utf-8"))


def _view(qtbot: Any, bridge: Bridge, report: Report) -> ResultsView:
    view = ResultsView(bridge)
    qtbot.addWidget(view)
    view.resize(900, 720)
    view.show_report(report)
    return view


def _standing(card: QWidget) -> str:
    row = card.findChild(QWidget, "standing")
    assert row is not None
    return " ".join(label.text() for label in row.findChildren(QLabel) if label.text())


def test_per_watt_and_its_source_on_the_card(qtbot: Any, bridge: Bridge) -> None:
    report = load(SD15)
    view = _view(qtbot, bridge, report)
    card = view.cards[0]
    text = card.facts["per-watt"].text()
    assert text == "\n".join(efficiency_lines(report.runs[0]))
    assert "0.005" in text and "images/s per W" in text and "at 236 W" in text
    assert "NVML (nvmlDeviceGetTotalEnergyConsumption)" in text
    assert "warm-up left out" in text


def test_no_power_no_figure(qtbot: Any, bridge: Bridge) -> None:
    cpu_view = _view(qtbot, bridge, load(CPU))
    cpu = cpu_view.cards[0]
    assert "per-watt" not in cpu.facts  # a CPU run: nothing to say
    report = load(SD15)
    run = report.runs[0]
    run.telemetry = [replace(s, power_w=None, energy_j=None) for s in run.telemetry]
    assert of_run(run) == []
    view = _view(qtbot, bridge, report)
    card = view.cards[0]
    assert card.facts["per-watt"].text() == ("not known: no board power was read during the "
                                             "run")


def test_each_reference_says_comparison_or_hint(qtbot: Any, bridge: Bridge) -> None:
    report = load(SD15)
    view = _view(qtbot, bridge, report)
    card = view.cards[0]
    matches = cards_like_mine(report, 0).matches
    by_id = {c.objectName().removeprefix("reference-"): c for c in card.references}
    own = _standing(by_id["own-h200-sd15-eager"])
    assert own == "a comparison: the key matches this run"
    crowd = _standing(by_id["vlad-h200-2025"])
    assert crowd.startswith("a hint, not a comparison: the source does not name its harness")
    assert [c.objectName() for c in card.references] == [f"reference-{m.row.id}"
                                                         for m in matches]


def test_a_radeon_cards_public_rows_with_n_spread_address_and_date(qtbot: Any,
                                                                    bridge: Bridge) -> None:
    report = load(SD15)
    run = report.runs[0]
    assert run.device is not None
    run.device = replace(run.device, name="AMD Radeon RX 9070 XT", arch="gfx1201",
                         backend="hip", pci_id=None)
    report.machine.gpus = []
    view = _view(qtbot, bridge, report)
    card = view.cards[0]
    ref = next(c for c in card.references
               if c.objectName() == "reference-sdnext-rx9070xt-rocm-windows-bf16-b1")
    texts = [label.text() for label in ref.findChildren(QLabel)]
    assert _standing(ref).startswith("a hint, not a comparison: another harness (SD.Next)")
    assert "harness, backend, OS: SD.Next, ROCm, Windows" in texts
    assert "results: n = 3, lowest–highest 17–18.98" in texts
    assert "2025-11-20..2026-01-04 https://github.com/vladmandic/sd-data/tree/main/input" in texts


def test_in_chinese_from_cores_catalogue(qtbot: Any, bridge: Bridge) -> None:
    core_i18n.set_language("zh_CN")
    try:
        report = load(SD15)
        view = _view(qtbot, bridge, report)
        card = view.cards[0]
        assert card.facts["per-watt"].text().startswith("每瓦 0.005333 images/s")
        by_id = {c.objectName().removeprefix("reference-"): c for c in card.references}
        assert _standing(by_id["own-h200-sd15-eager"]).startswith("可比较")
        assert _standing(by_id["vlad-h200-2025"]).startswith("仅供参考，不是对比")
    finally:
        core_i18n.set_language("en")
